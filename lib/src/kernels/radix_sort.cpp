#include "kernels/radix_sort.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "parallel/parallel_for.hpp"
#include "kernels/line_scatter.hpp"
#include "kernels/sorting_network.hpp"

namespace gxsort {
namespace {

// Small inputs sort on one thread: handing them to other threads costs more than it gives.
constexpr size_t kMinPerThread = 1 << 16;

// Counts (or positions) per digit value, for digits of log2(Digits) bits.
template <size_t Digits>
using DigitCounts = std::array<size_t, Digits>;
using Histogram = DigitCounts<256>;

unsigned useful_threads(size_t n, unsigned threads) {
  return unsigned(std::max<size_t>(1, std::min<size_t>(threads, n / kMinPerThread)));
}

struct Identity {
  template <class K>
  K operator()(K k) const { return k; }
};

// Each block's counts of the digit at `shift` of map(key) (Digits values: 256 unless
// said), for the blocks of parallel_for_ranges over `threads` parts.
template <size_t Digits = 256, class K, class Map>
std::vector<DigitCounts<Digits>> block_histograms(const K* src, size_t n, unsigned shift, unsigned threads, Map map) {
  std::vector<DigitCounts<Digits>> hist(threads);
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned t) {
    DigitCounts<Digits>& h = hist[t];
    h.fill(0);
    for (size_t i = b; i < e; ++i) ++h[(map(src[i]) >> shift) & (Digits - 1)];
  });
  return hist;
}

// Turns each block's digit counts into its first position per digit, digit-major and
// block-minor (equal digits keep their input order); returns the digit totals.
template <size_t Digits>
DigitCounts<Digits> block_offsets(std::vector<DigitCounts<Digits>>& hist) {
  DigitCounts<Digits> total{};
  size_t sum = 0;
  for (size_t d = 0; d < Digits; ++d)
    for (DigitCounts<Digits>& h : hist) { const size_t c = h[d]; h[d] = sum; sum += c; total[d] += c; }
  return total;
}

// One stable counting-sort pass of src → dst on the byte at `shift`, over `threads`
// blocks. Returns false (and moves nothing) when every key has the same digit.
// `total`, when given, receives the digit counts.
template <class K, bool WithIndex>
bool scatter_pass(const K* src, const uint32_t* isrc, K* dst, uint32_t* idst, size_t n, unsigned shift,
                  unsigned threads, Histogram* total_out = nullptr) {
  std::vector<Histogram> hist = block_histograms(src, n, shift, threads, Identity{});
  const Histogram total = block_offsets(hist);
  if (total_out) *total_out = total;
  if (std::any_of(total.begin(), total.end(), [n](size_t c) { return c == n; })) return false;
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned t) {
    Histogram& off = hist[t];
    for (size_t i = b; i < e; ++i) {
      const K k = src[i];
      size_t pos = off[(k >> shift) & 0xff]++;
      dst[pos] = k;
      if constexpr (WithIndex) idst[pos] = isrc[i];
    }
  });
  return true;
}

// LSD over the bytes below `bits` on `threads` threads; the result ends in (keys, idx).
template <class K, bool WithIndex>
void lsd(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads) {
  K* src = keys; K* dst = ktmp;
  uint32_t* isrc = idx; uint32_t* idst = itmp;
  for (unsigned shift = 0; shift < bits; shift += 8) {
    if (scatter_pass<K, WithIndex>(src, isrc, dst, idst, n, shift, threads)) {
      std::swap(src, dst);
      std::swap(isrc, idst);
    }
  }
  if (src != keys) {
    std::memcpy(keys, src, n * sizeof(K));
    if constexpr (WithIndex) std::memcpy(idx, isrc, n * sizeof(uint32_t));
  }
}

// The same on one thread for (key, index) pairs in a cache-sized bucket: one read counts
// every digit's histogram at once, then each pass only scatters. The result ends in
// (keys, idx), or in (ktmp, itmp) when `result_in_tmp`: passes alternate between the
// two, so a copy is made first when their count has the wrong parity, never a copy back after.
template <class K>
void lsd_one_thread(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits,
                    bool result_in_tmp = false) {
  constexpr unsigned kMaxPasses = sizeof(K);
  const unsigned passes = std::min(kMaxPasses, (bits + 7) / 8);
  std::array<Histogram, kMaxPasses> hist{};
  for (size_t i = 0; i < n; ++i) {
    const K k = keys[i];
    for (unsigned p = 0; p < passes; ++p) ++hist[p][(k >> (8 * p)) & 0xff];
  }
  std::array<unsigned, kMaxPasses> active{};  // passes whose digit varies
  unsigned count = 0;
  for (unsigned p = 0; p < passes; ++p)
    if (std::none_of(hist[p].begin(), hist[p].end(), [n](size_t c) { return c == n; })) active[count++] = p;
  K* src = keys; K* dst = ktmp;
  uint32_t* isrc = idx; uint32_t* idst = itmp;
  if ((count % 2 == 1) != result_in_tmp) {
    std::memcpy(ktmp, keys, n * sizeof(K));
    std::memcpy(itmp, idx, n * sizeof(uint32_t));
    std::swap(src, dst);
    std::swap(isrc, idst);
  }
  for (unsigned a = 0; a < count; ++a) {
    Histogram& off = hist[active[a]];
    size_t sum = 0;
    for (size_t& c : off) { const size_t cnt = c; c = sum; sum += cnt; }
    const unsigned shift = 8 * active[a];
    for (size_t i = 0; i < n; ++i) {
      const size_t pos = off[(src[i] >> shift) & 0xff]++;
      dst[pos] = src[i];
      idst[pos] = isrc[i];
    }
    std::swap(src, dst);
    std::swap(isrc, idst);
  }
}

// The one-thread sort of a bucket is MSD all the way down: buckets above kLeafKeys take
// 8-bit passes; a bucket of at most kLeafKeys (in L1/L2 with its scratch) takes one
// pass on a digit sized so that its sub-buckets average about 8 keys, and buckets of
// at most network::kMaxKeys are finished by a sorting network. Uniform keys then move
// about log256(n / 8) + 1 times instead of once per remaining byte. (Measured on the
// 2-core VM, one thread, 2^26 48-bit keys in buckets of 4096: 6 LSD passes 8.7 ns per
// key, a 9-bit pass with networks 5.8, with insertion sort instead 11.3.)
constexpr size_t kLeafKeys = size_t(1) << 13;
constexpr unsigned kMaxLeafDigit = 10;

// Bits of the digit of the next pass over a bucket of m keys.
unsigned digit_bits(size_t m) {
  if (m > kLeafKeys) return 8;
  unsigned log2 = 0;
  while ((m >> (log2 + 1)) != 0) ++log2;
  return std::min(kMaxLeafDigit, std::max(1u, log2 > 3 ? log2 - 3 : 1u));
}

// Sorts the m keys of a on their bits below `bits` (those above are equal) with b (m
// keys) as scratch; the result ends in a, or in b when `result_in_b`, each key mapped
// by `out`. Keys alone: equal keys are equal bits, so the networks' order is the stable one.
template <class K, class Map>
void sort_bucket(K* a, K* b, size_t m, unsigned bits, Map out, bool result_in_b) {
  K* const home = result_in_b ? b : a;
  if (m <= network::kMaxKeys) {
    network::small_sort(a, home, m, out);
    return;
  }
  // end[x]: first the count of digit x, then (after the prefix sum) its first position,
  // then (after the scatter) its end.
  size_t end[size_t(1) << kMaxLeafDigit];
  unsigned shift;
  size_t digits;
  for (;;) {
    if (bits == 0) {  // every key equal
      for (size_t i = 0; i < m; ++i) home[i] = out(a[i]);
      return;
    }
    const unsigned d = std::min(bits, digit_bits(m));
    shift = bits - d;
    digits = size_t(1) << d;
    const K mask = K(digits - 1);
    std::fill(end, end + digits, size_t(0));
    for (size_t i = 0; i < m; ++i) ++end[(a[i] >> shift) & mask];
    if (std::none_of(end, end + digits, [m](size_t c) { return c == m; })) break;
    bits = shift;  // the digit is constant: on to the next one
  }
  const K mask = K(digits - 1);
  for (size_t x = 0, sum = 0; x < digits; ++x) { const size_t c = end[x]; end[x] = sum; sum += c; }
  for (size_t i = 0; i < m; ++i) b[end[(a[i] >> shift) & mask]++] = a[i];
  // The sub-buckets now lie in b: a result wanted in a is their scratch's, and vice versa.
  for (size_t x = 0, first = 0; x < digits; first = end[x++]) {
    const size_t c = end[x] - first;
    if (c <= network::kMaxKeys) network::small_sort(b + first, home + first, c, out);
    else sort_bucket(b + first, a + first, c, shift, out, !result_in_b);
  }
}

// The shift of the `bits`-bit digit whose top bit is the highest set bit of x (bit 0
// when that bit is below `bits`), or -1 when x is 0. Keys that differ only below that
// bit (a partition bucket holds a 1/B slice of the key range) still split 2^bits ways
// on it, where a byte-aligned digit would give them a few large buckets.
template <class K>
int digit_of_highest_bit(K x, unsigned bits = 8) {
  if (x == 0) return -1;
  unsigned top = 0;
  while ((x >> 1 >> top) != 0) ++top;
  return top >= bits - 1 ? int(top - (bits - 1)) : 0;
}

// The digit shift of the highest bit in which map(keys) differ, or -1 if all are equal.
template <class K, class Map>
int highest_digit(const K* keys, size_t n, unsigned threads, Map map) {
  if (n < 2) return -1;
  const K first = map(keys[0]);
  std::vector<K> diff(threads, 0);
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned t) {
    K d = 0;
    for (size_t i = b; i < e; ++i) d |= map(keys[i]) ^ first;
    diff[t] = d;
  });
  K all = 0;
  for (K d : diff) all |= d;
  return digit_of_highest_bit(all);
}

// The bits of radix_sort_copy's first digit: 8, or more (up to 10) while the buckets
// would average more than bucket_keys keys. Buckets of at most 2^18 keys (2 MiB of u64,
// the default) keep each thread's bucket and scratch in the shared L3 while it sorts
// them. (Measured on the 2-core VM, 2 threads, u64 keys, best of 4, ns per key: 2^28
// keys 5.9-6.2 with 8 bits, 5.1-5.6 with 9, 5.0-5.3 with 10; 2^26 keys on one thread
// 8.9 with 8 bits, 9.1 with 9, 9.7 with 10.)
unsigned first_digit_bits(size_t n, size_t bucket_keys) {
  unsigned bits = 8;
  while (bits < 10 && (n >> bits) > bucket_keys) ++bits;
  return bits;
}

// The first pass of radix_sort_copy: src → dst, each key mapped, bucketed on the
// Bits-bit digit topped by the highest bit in which the mapped keys differ, through
// LineScatter (dst is far larger than the caches). Returns the digit's shift and its
// counts in `bucket` (2^Bits of them), or -1 (nothing moved) when every key is equal.
// The first read counts the top digit while it finds the bit that varies: for most keys
// that is in the top digit, and the keys are read once less.
// src may change while it is read (a mapped input another process writes): the scatter
// writes only inside the ranges the count gave, and throws SourceChanged when a key's
// digit or the bits above it are not those it was counted with, so dst then holds
// exactly the keys read by the scatter, each in its bucket, all with the same bits above
// the digit. The checks cost one OR a key and one comparison a block of lines.
template <unsigned Bits, class K, class Map>
int msd_scatter(const K* src, K* dst, size_t n, unsigned threads, Map map,
                DigitCounts<size_t(1) << Bits>& bucket, const PassHook& between_passes) {
  if (n < 2) return -1;
  constexpr unsigned kTop = 8 * sizeof(K) - Bits;
  constexpr size_t kDigits = size_t(1) << Bits;
  using Counts = DigitCounts<kDigits>;
  const K first = map(src[0]);
  std::vector<Counts> hist(threads);  // per block, its counts, then its first positions
  std::vector<K> diff(threads, 0);
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned t) {
    Counts& h = hist[t];
    h.fill(0);
    K d = 0;
    for (size_t i = b; i < e; ++i) {
      const K k = map(src[i]);
      d |= k ^ first;
      ++h[k >> kTop];
    }
    diff[t] = d;
  });
  test_pause_between_passes(between_passes);
  K all = 0;
  for (K d : diff) all |= d;
  const int shift = digit_of_highest_bit(all, Bits);
  if (shift < 0) return -1;
  if (unsigned(shift) != kTop) hist = block_histograms<kDigits>(src, n, unsigned(shift), threads, map);
  std::vector<Counts> end = hist;  // per block, its counts, then one past its last positions
  bucket = block_offsets(hist);
  for (unsigned t = 0; t < threads; ++t)
    for (size_t d = 0; d < kDigits; ++d) end[t][d] += hist[t][d];
  // The bits above the digit, equal in every key: (k ^ high) >> shift is k's digit, or
  // kDigits or more for a key whose high bits changed.
  const K high = unsigned(shift) == kTop ? K(0) : K(first >> (shift + Bits) << (shift + Bits));
  std::atomic<bool> changed{false};
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned t) {
    Counts& off = hist[t];
    const Counts first_pos = off;
    auto out = std::make_unique<LineScatter<K, kDigits>>(dst, first_pos.data(), end[t].data());  // up to 256 KiB: not on the stack
    K above = 0;  // the bits above the digit of any key that had others (no branch a key)
    for (size_t i = b; i < e; ++i) {
      const K k = map(src[i]);
      const K x = (k ^ high) >> shift;
      above |= x;
      const size_t d = size_t(x) & (kDigits - 1);
      out->put(unsigned(d), off[d]++, k);
    }
    if ((above >> Bits) != 0 || out->overflowed() || off != end[t]) {  // not the keys the first read counted
      changed = true;
      return;
    }
    out->finish(off.data());
  });
  if (changed) throw SourceChanged();
  return shift;
}

// Hybrid radix sort of pairs: one parallel MSD pass on the highest byte that varies
// splits them into 256 stable buckets; each bucket, small enough to stay in cache, is
// then LSD-sorted on the lower bytes by whichever thread takes it. Both steps are
// stable, so the whole sort is. The result ends in (keys, idx).
template <class K>
void radix_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned threads) {
  threads = useful_threads(n, threads);
  const int msd = highest_digit(keys, n, threads, Identity{});
  if (msd < 0) return;
  const unsigned msd_shift = unsigned(msd);
  if (n < kMinPerThread * 4) { lsd_one_thread<K>(keys, idx, ktmp, itmp, n, msd_shift + 8); return; }

  Histogram bucket{};
  scatter_pass<K, true>(keys, idx, ktmp, itmp, n, msd_shift, threads, &bucket);
  std::array<size_t, 257> start{};
  for (int d = 0; d < 256; ++d) start[d + 1] = start[d] + bucket[d];

  // Buckets: LSD on the lower bytes, from tmp, the result landing in keys.
  parallel::parallel_for(256, threads, [&](size_t d) {
    const size_t b = start[d], m = start[d + 1] - b;
    if (m > 0) lsd_one_thread<K>(ktmp + b, itmp + b, keys + b, idx + b, m, msd_shift, true);
  });
}

// Copies n keys that the count found all equal from src to dst; throws SourceChanged
// when the copy holds another key (src changed since: dst must be sorted).
template <class K>
void copy_equal_keys(const K* src, K* dst, size_t n, unsigned threads) {
  if (n == 0) return;
  const K first = src[0];
  std::atomic<bool> changed{false};
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned) {
    K d = 0;
    for (size_t i = b; i < e; ++i) {
      const K k = src[i];
      dst[i] = k;
      d |= k ^ first;
    }
    if (d != 0) changed = true;
  });
  if (changed) throw SourceChanged();
}

template <unsigned Bits, bool TopBit, class K>
void radix_sort_copy_with(const K* src, K* dst, size_t n, KeyOrder<K> order, unsigned threads, K* scratch,
                          const SortedRange& sorted, const PassHook& between_passes) {
  constexpr int kDigits = 1 << Bits;
  const XorMap<K> to_map = order.to_map(), from_map = order.from_map();
  const XorMap<K, TopBit> to{to_map.a, to_map.b};
  DigitCounts<size_t(1) << Bits> bucket;
  const int msd = msd_scatter<Bits>(src, dst, n, threads, to, bucket, between_passes);
  if (msd < 0) {  // every key equal (or n < 2): the input order is sorted
    copy_equal_keys(src, dst, n, threads);
    if (sorted && n) sorted(0, n);
    return;
  }
  const unsigned msd_shift = unsigned(msd);
  std::vector<size_t> start(kDigits + 1, 0);
  for (int d = 0; d < kDigits; ++d) start[d + 1] = start[d] + bucket[d];
  const XorMap<K, TopBit> from{from_map.a, from_map.b};
  auto finish = [&](size_t b, size_t m, K* scratch, unsigned th) {
    if (th == 1) {
      sort_bucket(dst + b, scratch, m, msd_shift, from, false);
    } else {
      lsd<K, false>(dst + b, nullptr, scratch, nullptr, m, msd_shift, th);
      parallel::parallel_for_ranges(m, th, [&](size_t x, size_t e, unsigned) {
        for (size_t i = b + x; i < b + e; ++i) dst[i] = from(dst[i]);
      });
    }
    if (sorted) sorted(b, m);
  };

  // A bucket too large to share out (skewed keys) is sorted by all threads together;
  // the rest go to whichever thread is free. Scratch: the bucket's own range of
  // `scratch`, else a buffer per thread grown to the largest bucket it takes.
  const size_t big = threads > 1 ? n / (4 * threads) : n + 1;
  std::unique_ptr<K[]> shared;
  size_t shared_size = 0;
  for (int d = 0; d < kDigits; ++d) {
    const size_t m = bucket[d];
    if (m <= big) continue;
    if (!scratch && shared_size < m) shared.reset(new K[shared_size = m]);
    finish(start[d], m, scratch ? scratch + start[d] : shared.get(), threads);
  }
  // One task per thread, each taking buckets until none is left, so that its own
  // buffer serves every bucket it takes.
  std::atomic<int> next{0};
  parallel::parallel_for(threads, threads, [&](size_t) {
    std::unique_ptr<K[]> own;
    size_t own_size = 0;
    for (int d; (d = next++) < kDigits;) {
      const size_t m = bucket[d];
      if (m == 0 || m > big) continue;
      if (!scratch && own_size < m) own.reset(new K[own_size = m]);  // not zero-filled
      finish(start[d], m, scratch ? scratch + start[d] : own.get(), 1);
    }
  });
}

}  // namespace

template <class K>
void radix_sort_copy(const K* src, K* dst, size_t n, KeyOrder<K> order, unsigned threads, K* scratch,
                     const SortedRange& sorted, size_t bucket_keys, const PassHook& between_passes) {
  threads = useful_threads(n, threads);
  // Integer keys map with one xor (b == 0 both ways); floats need the top bit.
  const bool top_bit = order.to_map().b != 0 || order.from_map().b != 0;
  switch (first_digit_bits(n, bucket_keys) * 2 + top_bit) {
    case 16: return radix_sort_copy_with<8, false>(src, dst, n, order, threads, scratch, sorted, between_passes);
    case 17: return radix_sort_copy_with<8, true>(src, dst, n, order, threads, scratch, sorted, between_passes);
    case 18: return radix_sort_copy_with<9, false>(src, dst, n, order, threads, scratch, sorted, between_passes);
    case 19: return radix_sort_copy_with<9, true>(src, dst, n, order, threads, scratch, sorted, between_passes);
    case 20: return radix_sort_copy_with<10, false>(src, dst, n, order, threads, scratch, sorted, between_passes);
    default: return radix_sort_copy_with<10, true>(src, dst, n, order, threads, scratch, sorted, between_passes);
  }
}

template <class K>
void radix_sort_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned threads) {
  radix_pairs<K>(keys, idx, ktmp, itmp, n, threads);
}

template void radix_sort_copy<uint32_t>(const uint32_t*, uint32_t*, size_t, KeyOrder<uint32_t>, unsigned, uint32_t*,
                                        const SortedRange&, size_t, const PassHook&);
template void radix_sort_copy<uint64_t>(const uint64_t*, uint64_t*, size_t, KeyOrder<uint64_t>, unsigned, uint64_t*,
                                        const SortedRange&, size_t, const PassHook&);
template void radix_sort_pairs<uint64_t>(uint64_t*, uint32_t*, uint64_t*, uint32_t*, size_t, unsigned);

}  // namespace gxsort
