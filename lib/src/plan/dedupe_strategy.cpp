#include "plan/dedupe_strategy.hpp"

#include "gxsort/error.hpp"
#include "kernels/key_bitmap.hpp"

namespace gxsort {

namespace {

// --strategy auto of a flat 4-byte key file (no --count, not --assume-sorted).
//
// The sort costs a fixed amount per key; the bitmap a fixed 512 MiB pass (clear + scan)
// plus one random bit set per key, whose cost grows with the span the keys' bits fall in
// (cache hits below the L2 size, a cache and TLB miss each over a wide span). Measured on
// the 2-core CPU machine (tools/bench/dedupe_strategy.sh, docs/benchmarks.md, 2026-11-27),
// keys uniform in [0, R), --no-fsync, sort s / bitmap s:
//   in memory: R >= n (PBBS randomSeq 10^8 in [0, 10^8): 1.0-1.2 / 1.9) the sort wins at
//   every n (the bitmap's bit set alone costs 14-25 ns a key, the sort ~11); narrow spans
//   the bitmap wins from n ~ 2^26: 10^8 keys in 2^20 0.95 / 0.68, in 2^24 1.38 / 1.25, in
//   2^26 1.10 / 1.87; 3*10^8 in 2^22 2.9 / 1.3; 5*10^7 in 2^20 0.52 / 0.54.
//   out of core (runs-in-memory, partition): the sort costs 24-30 ns a key; the bitmap
//   wins for R = n (3*10^8, --memory 2G: 9.2 / 5.9; 5*10^8, 1G: 11.5 / 9.7) and loses
//   at most 1.23x over the whole 32-bit range (3*10^8, 1G: 7.2 / 8.9).
// The GPU keeps the rule by key count (kGpuBitmapAutoMinKeys) until its crossover is
// measured there with the same script.
bool bitmap_pays(const DedupeInput& in) {
  if (!in.sort_in_memory) return true;
  if (in.gpu) return in.records > kGpuBitmapAutoMinKeys;
  return in.records >= kCpuBitmapMinKeys && in.key_span != 0 && in.key_span <= kCpuBitmapMaxSpan;
}

}  // namespace

DedupePath choose_dedupe_strategy(DedupeStrategy requested, const Format& f, bool count, bool assume_sorted,
                                  const DedupeInput& in) {
  if (requested == DedupeStrategy::bitmap) {
    if (!bitmap_format_ok(f))
      fail_usage(option_ref("strategy", "bitmap") + " needs a flat file of 4-byte keys (" + option_ref("type", "u32") + ", i32 or f32), not " + f.describe());
    if (count) fail_usage(option_ref("strategy", "bitmap") + " cannot " + option_ref("count") + " (a bitmap has no counts); use " + option_ref("strategy", "sort"));
    if (assume_sorted) fail_usage(option_ref("assume-sorted") + " streams the sorted input; it cannot be combined with " + option_ref("strategy", "bitmap"));
    return DedupePath::bitmap;
  }
  if (assume_sorted) return DedupePath::stream;
  if (requested == DedupeStrategy::sort) return DedupePath::sort;
  if (bitmap_format_ok(f) && !count && bitmap_pays(in)) return DedupePath::bitmap;
  return DedupePath::sort;
}

}  // namespace gxsort
