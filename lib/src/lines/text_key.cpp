// Text keys: GNU sort's C-locale comparison of key bytes (its keycompare without a
// collating locale), working on the bytes in place.
#include "lines/text_key.hpp"

#include <cstring>

#include "lines/bytes.hpp"

namespace gxsort::lines {

namespace {

const ByteTable* ignored_bytes(const LineKey& key) {
  if (key.dictionary) return &kIgnoredByDictionary;  // d wins over i, as in GNU
  if (key.printable) return &kIgnoredByPrintable;
  return nullptr;
}

int compare_folded(std::string_view a, std::string_view b) {
  const size_t common = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < common; ++i) {
    const uint8_t x = kFolded[static_cast<unsigned char>(a[i])];
    const uint8_t y = kFolded[static_cast<unsigned char>(b[i])];
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// The kept bytes (those `ignored` does not mark) of each text, in turn, translated by
// `translate`; when one runs out, the one with bytes left is the greater.
int compare_filtered(const ByteTable& ignored, const ByteTable& translate, std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (true) {
    while (i < a.size() && ignored[static_cast<unsigned char>(a[i])]) ++i;
    while (j < b.size() && ignored[static_cast<unsigned char>(b[j])]) ++j;
    if (i == a.size() || j == b.size()) break;
    const uint8_t x = translate[static_cast<unsigned char>(a[i++])];
    const uint8_t y = translate[static_cast<unsigned char>(b[j++])];
    if (x != y) return x < y ? -1 : 1;
  }
  return static_cast<int>(i < a.size()) - static_cast<int>(j < b.size());
}

constexpr ByteTable identity_table() {
  ByteTable t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = static_cast<uint8_t>(c);
  return t;
}
constexpr ByteTable kSame = identity_table();

// text_prefix of a key with d or i: the kept bytes are counted from the text's start.
uint64_t filtered_prefix(const ByteTable& ignored, const ByteTable& translate, std::string_view text, size_t depth,
                         bool& exhausted) {
  size_t i = 0;
  for (size_t kept = 0; i < text.size(); ++i) {
    if (ignored[static_cast<unsigned char>(text[i])]) continue;
    if (kept++ == depth) break;
  }
  uint64_t p = 0;
  unsigned taken = 0;
  for (; i < text.size() && taken < 8; ++i) {
    if (ignored[static_cast<unsigned char>(text[i])]) continue;
    p = (p << 8) | translate[static_cast<unsigned char>(text[i])];
    ++taken;
  }
  while (i < text.size() && ignored[static_cast<unsigned char>(text[i])]) ++i;
  exhausted = i == text.size();
  return taken == 8 ? p : (taken == 0 ? 0 : p << (8 * (8 - taken)));
}

}  // namespace

int compare_bytes(std::string_view a, std::string_view b) {
  const size_t common = a.size() < b.size() ? a.size() : b.size();
  const int c = common ? std::memcmp(a.data(), b.data(), common) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

uint64_t bytes_prefix(std::string_view text, size_t depth, bool& exhausted) {
  exhausted = text.size() <= depth + 8;
  uint64_t p = 0;
  if (!exhausted) {  // 8 whole bytes: one big-endian load
    std::memcpy(&p, text.data() + depth, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    p = __builtin_bswap64(p);
#endif
    return p;
  }
  for (size_t i = depth; i < depth + 8; ++i) p = (p << 8) | (i < text.size() ? static_cast<unsigned char>(text[i]) : 0);
  return p;
}

int compare_text(const LineKey& key, std::string_view a, std::string_view b) {
  if (const ByteTable* ignored = ignored_bytes(key)) return compare_filtered(*ignored, key.fold ? kFolded : kSame, a, b);
  return key.fold ? compare_folded(a, b) : compare_bytes(a, b);
}

uint64_t text_prefix(const LineKey& key, std::string_view text, size_t depth, bool& exhausted) {
  const ByteTable& translate = key.fold ? kFolded : kSame;
  if (const ByteTable* ignored = ignored_bytes(key)) return filtered_prefix(*ignored, translate, text, depth, exhausted);
  if (!key.fold) return bytes_prefix(text, depth, exhausted);
  uint64_t p = 0;
  for (size_t i = depth; i < depth + 8; ++i)
    p = (p << 8) | (i < text.size() ? translate[static_cast<unsigned char>(text[i])] : 0);
  exhausted = text.size() <= depth + 8;
  return p;
}

}  // namespace gxsort::lines
