// Order-preserving 64-bit prefixes of a line's keys, stage by stage (lines/stages.hpp):
// what the in-memory sort of lines sorts (on the GPU or the CPU backend, as u64 keys with
// the line's index) before the lines whose prefixes tie are ordered by deeper prefixes,
// the next stage's prefixes, or compare_lines.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gxsort/lines.hpp"
#include "lines/stages.hpp"

namespace gxsort::lines {

// The prefix of `line` (without its terminator) for `stage` at `depth` (0, 8, 16, ...:
// the bytes of the stage's text already covered by shallower prefixes; only text goes
// deeper). The contract, for any lines a and b equal at every stage before `stage` whose
// prefixes of this stage at every depth below `depth` are equal: prefix(a) < prefix(b)
// implies compare_lines(a, b) < 0, and prefix(a) > prefix(b) implies compare_lines(a, b) > 0.
// `exhausted`: no deeper prefix of this line says more (its text ended, or the stage is
// not text). `exact`: the prefixes so far say all of this stage for this line: two lines
// with equal prefixes that are both exact are equal at this stage (compare_stage is 0).
uint64_t stage_prefix(const LineOrder& order, size_t stage, std::string_view line, size_t depth, bool& exhausted,
                      bool& exact);

// Whether stage_prefix goes deeper than depth 0 for this stage (it compares text bytes).
bool stage_goes_deeper(const LineOrder& order, size_t stage);

// The first stage's prefix (stage_prefix of stage 0).
uint64_t line_prefix(const LineOrder& order, std::string_view line, size_t depth, bool& exhausted);

// Whether line_prefix goes deeper than depth 0 for this order.
bool prefix_goes_deeper(const LineOrder& order);

}  // namespace gxsort::lines
