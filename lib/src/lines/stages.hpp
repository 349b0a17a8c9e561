// compare_lines as a sequence of stages: the keys in turn (stage i: order.keys[i]), then
// the last resort (the whole lines as bytes, reversed by -r), which -s and -u leave out
// when there are keys; with no keys the whole line is the only stage. Two lines equal at
// every stage before `stage` compare by compare_lines as by compare_from(stage).
#pragma once
#include <cstddef>
#include <string_view>

#include "gxsort/lines.hpp"

namespace gxsort::lines {

size_t stage_count(const LineOrder& order);

// Whether `stage` is the last resort (the whole line's bytes).
inline bool is_last_resort(const LineOrder& order, size_t stage) { return stage >= order.keys.size(); }

// The comparison of one stage (its key's r, or -r for the last resort, applied): -1, 0, 1.
int compare_stage(const LineOrder& order, size_t stage, std::string_view a, std::string_view b);

// The stages from `stage` on: the first that differs.
int compare_from(const LineOrder& order, size_t stage, std::string_view a, std::string_view b);

}  // namespace gxsort::lines
