// Where a key's text lies in a line, by GNU sort's rules (its begfield and limfield):
// fields counted from the line's start, characters from the field's start, blanks
// skipped where the key says b, and a key that ends before it starts is empty.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "gxsort/lines.hpp"
#include "lines/bytes.hpp"

namespace gxsort::lines {

// The first `c` in `line` from `p` (or its end). Fields are short mostly: 8 bytes at a
// time (a word's zero bytes after xor with c; the lowest is the first) beats memchr's
// set-up.
inline size_t find_byte(std::string_view line, size_t p, char c) {
  const size_t n = line.size();
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  const uint64_t pattern = kOnes * static_cast<unsigned char>(c);
  for (; p + 8 <= n; p += 8) {
    uint64_t word;
    std::memcpy(&word, line.data() + p, 8);
    word ^= pattern;
    const uint64_t zeros = (word - kOnes) & ~word & kHighs;
    if (zeros) return p + static_cast<size_t>(__builtin_ctzll(zeros) >> 3);
  }
#endif
  for (; p < n; ++p)
    if (line[p] == c) return p;
  return n;
}

// The position after `fields` more fields of `line` from `p`, a field's start. With a
// separator, a field ends at the next separator, skipped but after the last field unless
// `past_last_separator`; without one, a field is a run of blanks and the non-blanks after.
inline size_t skip_fields(std::string_view line, int separator, size_t p, size_t fields, bool past_last_separator) {
  const size_t n = line.size();
  if (separator >= 0) {
    while (p < n && fields--) {
      p = find_byte(line, p, static_cast<char>(separator));
      if (p < n && (fields != 0 || past_last_separator)) ++p;
    }
    return p;
  }
  while (p < n && fields--) {
    while (p < n && is_blank(static_cast<unsigned char>(line[p]))) ++p;
    while (p < n && !is_blank(static_cast<unsigned char>(line[p]))) ++p;
  }
  return p;
}

inline size_t skip_blanks(std::string_view line, size_t p) {
  while (p < line.size() && is_blank(static_cast<unsigned char>(line[p]))) ++p;
  return p;
}

// GNU's limfield: where the key ends (end_char 0: at the end of end_field), counting on
// from `field_start`, where the key's start field begins (skipping fields to there and
// on is skipping them all at once: the separators before the last are skipped either way).
inline size_t key_end(std::string_view line, int separator, const LineKey& key, size_t field_start) {
  if (key.end_field == LineKey::kWholeLine) return line.size();
  const size_t start_field = key.start_field == LineKey::kWholeLine ? 0 : key.start_field;
  const bool on = key.end_field >= start_field;
  const size_t from = on ? field_start : 0, skipped = on ? start_field : 0;
  if (key.end_char == 0) return skip_fields(line, separator, from, key.end_field + 1 - skipped, false);
  size_t p = skip_fields(line, separator, from, key.end_field - skipped, true);
  if (key.skip_end_blanks) p = skip_blanks(line, p);
  return key.end_char < line.size() - p ? p + key.end_char : line.size();
}

// The key's bytes in `line` (GNU's begfield to limfield; empty when it ends before it
// starts).
inline std::string_view key_text(int separator, const LineKey& key, std::string_view line) {
  const size_t field_start =
      key.start_field == LineKey::kWholeLine ? 0 : skip_fields(line, separator, 0, key.start_field, true);
  size_t begin = key.skip_start_blanks ? skip_blanks(line, field_start) : field_start;
  begin = key.start_char < line.size() - begin ? begin + key.start_char : line.size();
  const size_t end = key_end(line, separator, key, field_start);
  return std::string_view(line.data() + begin, end > begin ? end - begin : 0);
}

}  // namespace gxsort::lines
