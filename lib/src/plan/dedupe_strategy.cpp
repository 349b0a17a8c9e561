#include "plan/dedupe_strategy.hpp"

#include "gxsort/error.hpp"
#include "kernels/key_bitmap.hpp"

namespace gxsort {

DedupePath choose_dedupe_strategy(DedupeStrategy requested, const Format& f, bool count, bool assume_sorted,
                                  uint64_t records, bool sort_in_memory) {
  if (requested == DedupeStrategy::bitmap) {
    if (!bitmap_format_ok(f))
      fail_usage("--strategy bitmap needs a flat file of 4-byte keys (--type u32, i32 or f32), not " + f.describe());
    if (count) fail_usage("--strategy bitmap cannot --count (a bitmap has no counts); use --strategy sort");
    if (assume_sorted) fail_usage("--assume-sorted streams the sorted input; it cannot be combined with --strategy bitmap");
    return DedupePath::bitmap;
  }
  if (assume_sorted) return DedupePath::stream;
  if (requested == DedupeStrategy::sort) return DedupePath::sort;
  if (bitmap_format_ok(f) && !count && (records > kBitmapAutoMinKeys || !sort_in_memory)) return DedupePath::bitmap;
  return DedupePath::sort;
}

}  // namespace gxsort
