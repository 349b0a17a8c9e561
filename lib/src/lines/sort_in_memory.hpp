// The in-memory sort of lines: the stable order of compare_lines, found by sorting each
// line's 64-bit prefix (gxsort::argsort: the GPU where there is one, else the CPU) and
// then ordering the lines whose prefixes tie, by deeper prefixes, the next stage's, or compare_lines.
#pragma once
#include <cstdint>
#include <vector>

#include "gxsort/lines.hpp"
#include "gxsort/memory.hpp"
#include "lines/line_index.hpp"

namespace gxsort::lines {

// The permutation that std::stable_sort of `lines` by compare_lines(order) gives:
// perm[i] is the index of the line at sorted position i.
Permutation sorted_permutation(const LineRefs& lines, const LineOrder& order, const MemoryOptions& mo);

// -u: keep[i] is 1 when the line at sorted position i is kept: the first, and each
// whose keys differ from the line before it (equal keys are next to each other once
// sorted, so that line is the last kept one or equal to it).
KeepFlags unique_flags(const LineRefs& lines, const Permutation& perm, const LineOrder& order, unsigned threads);

}  // namespace gxsort::lines
