// Order-preserving 64-bit prefixes of a line's first key: what the in-memory sort of lines
// sorts (on the GPU or the CPU backend, as u64 keys with the line's index) before the
// lines whose prefixes tie are ordered by deeper prefixes or by compare_lines.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gxsort/lines.hpp"

namespace gxsort::lines {

// The prefix of `line` (without its terminator) at `depth` (0, 8, 16, ...: the bytes of
// the first key's text already covered by shallower prefixes; only text keys go deeper).
// The contract, for any lines a and b whose prefixes at every depth below `depth` are
// equal: prefix(a) < prefix(b) implies compare_lines(a, b) < 0, and prefix(a) > prefix(b)
// implies compare_lines(a, b) > 0. `exhausted` is set when no deeper prefix of this line
// says more (its key ended, or the key is not text): two lines with equal prefixes that
// are both exhausted are ordered by compare_lines alone.
uint64_t line_prefix(const LineOrder& order, std::string_view line, size_t depth, bool& exhausted);

// Whether line_prefix goes deeper than depth 0 for this order (its first comparison is of
// text bytes).
bool prefix_goes_deeper(const LineOrder& order);

}  // namespace gxsort::lines
