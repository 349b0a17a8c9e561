// The dedupe strategy rule: pure, part of the plan (plan/job.hpp: make_plan of dedupe).
#pragma once
#include <cstdint>

#include "gxsort/format.hpp"
#include "gxsort/options.hpp"

namespace gxsort {

// How dedupe runs: the sort engine, the bitmap, or the group pass over a sorted input.
enum class DedupePath { sort, bitmap, stream };
inline const char* dedupe_path_name(DedupePath p) {
  return p == DedupePath::sort ? "sort" : p == DedupePath::bitmap ? "bitmap" : "stream";
}

// sort | bitmap | stream (--assume-sorted). `requested` is --strategy.
// Throws Error(usage) for combinations the bitmap cannot serve.
//   auto = bitmap when the format is a flat 4-byte key, no --count, not --assume-sorted,
//          and the input has more than 2^26 keys or the sort would not run in memory
//          (`sort_in_memory` false); the caller falls back to sort when the bitmap does
//          not fit its device or host budget.
DedupePath choose_dedupe_strategy(DedupeStrategy requested, const Format& f, bool count, bool assume_sorted,
                                  uint64_t records, bool sort_in_memory);
constexpr uint64_t kBitmapAutoMinKeys = uint64_t(1) << 26;

}  // namespace gxsort
