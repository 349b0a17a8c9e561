// Where a key's text lies in a line, by GNU sort's rules (its begfield and limfield):
// fields counted from the line's start, characters from the field's start, blanks
// skipped where the key says b, and a key that ends before it starts is empty.
#pragma once
#include <cstddef>
#include <cstring>
#include <string_view>

#include "gxsort/lines.hpp"
#include "lines/bytes.hpp"

namespace gxsort::lines {

// The position after `fields` fields of `line`. With a separator, a field ends at the
// next separator, skipped but after the last field unless `past_last_separator`; without
// one, a field is a run of blanks and the non-blanks after it.
inline size_t skip_fields(std::string_view line, int separator, size_t fields, bool past_last_separator) {
  const size_t n = line.size();
  size_t p = 0;
  if (separator >= 0) {
    while (p < n && fields--) {
      const void* hit = std::memchr(line.data() + p, separator, n - p);
      p = hit ? static_cast<size_t>(static_cast<const char*>(hit) - line.data()) : n;
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

// GNU's begfield: where the key starts.
inline size_t key_begin(std::string_view line, int separator, const LineKey& key) {
  size_t p = key.start_field == LineKey::kWholeLine ? 0 : skip_fields(line, separator, key.start_field, true);
  if (key.skip_start_blanks) p = skip_blanks(line, p);
  return key.start_char < line.size() - p ? p + key.start_char : line.size();
}

// GNU's limfield: where the key ends (end_char 0: at the end of end_field).
inline size_t key_end(std::string_view line, int separator, const LineKey& key) {
  if (key.end_field == LineKey::kWholeLine) return line.size();
  if (key.end_char == 0) return skip_fields(line, separator, key.end_field + 1, false);
  size_t p = skip_fields(line, separator, key.end_field, true);
  if (key.skip_end_blanks) p = skip_blanks(line, p);
  return key.end_char < line.size() - p ? p + key.end_char : line.size();
}

// The key's bytes in `line` (empty when it ends before it starts).
inline std::string_view key_text(int separator, const LineKey& key, std::string_view line) {
  const size_t begin = key_begin(line, separator, key);
  const size_t end = key_end(line, separator, key);
  return std::string_view(line.data() + begin, end > begin ? end - begin : 0);
}

}  // namespace gxsort::lines
