// Text keys as GNU sort compares them in the C locale: unsigned bytes, with f (fold to
// upper case), d (blanks and alphanumerics only) and i (printable only) applied on the
// fly, the shorter first when one is the start of the other.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gxsort/lines.hpp"

namespace gxsort::lines {

// -1, 0 or 1 (the key's r is not applied here).
int compare_text(const LineKey& key, std::string_view a, std::string_view b);

// The 8 bytes of the key's text (after f, d, i) from its byte `depth`, big-endian,
// zero-padded; `exhausted` when the text ends within them.
uint64_t text_prefix(const LineKey& key, std::string_view text, size_t depth, bool& exhausted);

// text_prefix of plain bytes (no f, d, i).
uint64_t bytes_prefix(std::string_view text, size_t depth, bool& exhausted);

// Whole texts as unsigned bytes, the shorter first on a tie: -1, 0 or 1.
int compare_bytes(std::string_view a, std::string_view b);

}  // namespace gxsort::lines
