// The C locale's byte classes as GNU sort uses them (LC_ALL=C sort): fixed tables, so
// the order of lines never depends on the process's locale.
#pragma once
#include <array>
#include <cstdint>

namespace gxsort::lines {

// GNU's blanks: ' ' and '\t' (isblank), and '\n', which separates fields too (it can be
// inside a line only with -z).
constexpr bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\n'; }
constexpr bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alnum(unsigned char c) {
  return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
constexpr bool is_print(unsigned char c) { return c >= 0x20 && c < 0x7f; }
constexpr unsigned char to_upper(unsigned char c) {
  return c >= 'a' && c <= 'z' ? static_cast<unsigned char>(c - 'a' + 'A') : c;
}

using ByteTable = std::array<uint8_t, 256>;

// 1 for the bytes a key's d ignores (all but blanks and alphanumerics), or its i (all
// but printable characters).
constexpr ByteTable ignore_table(bool dictionary) {
  ByteTable t{};
  for (unsigned c = 0; c < 256; ++c) {
    const auto b = static_cast<unsigned char>(c);
    t[c] = dictionary ? !(is_alnum(b) || is_blank(b)) : !is_print(b);
  }
  return t;
}
inline constexpr ByteTable kIgnoredByDictionary = ignore_table(true);
inline constexpr ByteTable kIgnoredByPrintable = ignore_table(false);

constexpr ByteTable upper_table() {
  ByteTable t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = to_upper(static_cast<unsigned char>(c));
  return t;
}
// f: lower case folded to upper case.
inline constexpr ByteTable kFolded = upper_table();

}  // namespace gxsort::lines
