// Key-range buckets for the partition sort (plan.hpp: PlanMode::partition).
//
// Bucket i holds the records whose 64-bit key prefix p has s[i-1] <= p < s[i], with
// s[-1] = 0 and s[B-1] past every key: the bucket of p is the number of splitters <= p.
// Records with equal prefixes always share a bucket, so each bucket can be sorted on
// its own (wide keys finish their ties inside it) and the sorted buckets, concatenated
// in order, are the sorted input.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gxsort {

class Splitters {
 public:
  static constexpr size_t kMaxBuckets = 256;  // bucket numbers fit a byte

  // The B-1 splitters at the quantiles of a sorted, non-empty sample of prefixes.
  Splitters(const std::vector<uint64_t>& sorted_sample, size_t buckets)
      : buckets_(std::min(kMaxBuckets, std::max<size_t>(1, buckets))) {
    const size_t n = sorted_sample.size();
    // Padded past the last splitter, so that the scan below needs no bound but B-1.
    s_.assign(buckets_, UINT64_MAX);
    for (size_t j = 1; j < buckets_ && n; ++j) s_[j - 1] = sorted_sample[j * n / buckets_];
    // The table spans the sample's range in kTableSize equal steps: every splitter, and
    // so every bucket boundary, lies inside it.
    base_ = n ? sorted_sample.front() : 0;
    const uint64_t span = n ? sorted_sample.back() - base_ : 0;
    unsigned bits = 0;
    while (bits < 64 && (span >> bits) != 0) ++bits;
    shift_ = bits > kTableBits ? bits - kTableBits : 0;
    for (size_t e = 0; e < kTableSize; ++e) {
      const uint64_t step = uint64_t(e) << shift_;
      const uint64_t first = step > UINT64_MAX - base_ ? UINT64_MAX : base_ + step;
      table_[e] = uint8_t(search(first));
    }
  }

  size_t buckets() const { return buckets_; }

  // The number of splitters <= prefix. The table gives the bucket of the first prefix
  // of the prefix's step; only a step that holds a splitter needs a comparison or more.
  size_t bucket_of(uint64_t prefix) const {
    if (prefix < base_) return 0;  // below every splitter
    const uint64_t e = std::min<uint64_t>((prefix - base_) >> shift_, kTableSize - 1);
    size_t b = table_[e];
    while (b < buckets_ - 1 && s_[b] <= prefix) ++b;
    return b;
  }

  // The same by binary search (the table's source, and the tests' oracle).
  size_t search(uint64_t prefix) const {
    return size_t(std::upper_bound(s_.begin(), s_.begin() + (buckets_ - 1), prefix) - s_.begin());
  }

 private:
  static constexpr unsigned kTableBits = 12;
  static constexpr size_t kTableSize = size_t(1) << kTableBits;
  size_t buckets_;
  std::vector<uint64_t> s_;
  uint64_t base_ = 0;
  unsigned shift_ = 0;
  uint8_t table_[kTableSize];
};

}  // namespace gxsort
