// The dedupe strategy rule: pure, part of the plan (plan/plan_request.hpp: make_plan of dedupe).
#pragma once
#include <cstdint>

#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/plan_report.hpp"

namespace gxsort {

// DedupePath (sort, bitmap, stream): gxsort/plan_report.hpp.

// What --strategy auto weighs, besides the format and the options.
struct DedupeInput {
  uint64_t records = 0;         // the input's records (0 for a stream: unknown)
  bool sort_in_memory = true;   // the sort's plan is in-memory (a stream is taken as such)
  bool gpu = false;             // the backend sorts and sets bits on a GPU (its own crossover)
  // order32(max) - order32(min) + 1 of kKeySpanSamples keys read at even strides over the
  // input (dedupe_file's prepare_dedupe; 0: not sampled, taken as the whole 2^32).
  uint64_t key_span = 0;
};

// sort | bitmap | stream (--assume-sorted). `requested` is --strategy.
// Throws Error(usage) for combinations the bitmap cannot serve.
// auto takes the bitmap only for a flat 4-byte key, no --count, not --assume-sorted, and
//   on a GPU:  more than kGpuBitmapAutoMinKeys keys, or a sort that would not run in memory;
//   on the CPU: a sort that would not run in memory, or at least kCpuBitmapMinKeys keys
//               whose sampled span is at most kCpuBitmapMaxSpan;
// else the sort. The caller falls back to the sort when the bitmap does not fit its device
// or host budget. The constants and the measurements behind them: dedupe_strategy.cpp.
DedupePath choose_dedupe_strategy(DedupeStrategy requested, const Format& f, bool count, bool assume_sorted,
                                  const DedupeInput& in);

// GPU (unchanged since the bitmap came, 2026-11-22; to be measured on the GPU machine):
// more keys than this (256 MiB, half the bitmap's size) take the bitmap.
constexpr uint64_t kGpuBitmapAutoMinKeys = uint64_t(1) << 26;
// CPU: the bitmap's fixed cost (0.45 s on 2 cores: clearing, faulting in and scanning
// 512 MiB) pays off from about this many keys, when their bits fall in a cache-sized span.
constexpr uint64_t kCpuBitmapMinKeys = uint64_t(1) << 26;
// CPU: the widest key span (2^24 bits = 2 MiB of the bitmap, a core's L2 cache) whose
// random bit sets cost less than the in-memory sort's ~11 ns a key.
constexpr uint64_t kCpuBitmapMaxSpan = uint64_t(1) << 24;
// Keys sampled for the span (at even strides: 256 reads, only for auto on inputs of at
// least kCpuBitmapMinKeys flat 4-byte keys).
constexpr size_t kKeySpanSamples = 256;

}  // namespace gxsort
