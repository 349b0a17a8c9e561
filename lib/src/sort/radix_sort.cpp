#include "sort/radix_sort.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace gxsort {
namespace {

// Small inputs sort on one thread: thread starts cost more than they give.
constexpr size_t kMinPerThread = 1 << 16;

using Histogram = std::array<size_t, 256>;

// Runs f(t, begin, end) on `threads` contiguous blocks of [0, n).
template <class F>
void parallel_blocks(size_t n, unsigned threads, F&& f) {
  if (threads <= 1) { f(0u, size_t(0), n); return; }
  std::vector<std::thread> pool;
  size_t per = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    size_t b = std::min(n, t * per), e = std::min(n, b + per);
    pool.emplace_back([&f, t, b, e] { f(t, b, e); });
  }
  f(0u, size_t(0), std::min(n, per));
  for (auto& th : pool) th.join();
}

// One stable counting-sort pass of src → dst on the byte at `shift`, over `threads`
// blocks. Returns false (and moves nothing) when every key has the same digit.
template <class K, bool WithIndex>
bool scatter_pass(const K* src, const uint32_t* isrc, K* dst, uint32_t* idst, size_t n, unsigned shift,
                  unsigned threads) {
  std::vector<Histogram> hist(threads);
  parallel_blocks(n, threads, [&](unsigned t, size_t b, size_t e) {
    Histogram& h = hist[t];
    h.fill(0);
    for (size_t i = b; i < e; ++i) ++h[(src[i] >> shift) & 0xff];
  });
  Histogram total{};
  for (auto& h : hist) for (int d = 0; d < 256; ++d) total[d] += h[d];
  if (std::any_of(total.begin(), total.end(), [n](size_t c) { return c == n; })) return false;
  // Offsets digit-major, block-minor: equal digits keep their input order.
  size_t sum = 0;
  for (int d = 0; d < 256; ++d)
    for (unsigned t = 0; t < threads; ++t) { size_t c = hist[t][d]; hist[t][d] = sum; sum += c; }
  parallel_blocks(n, threads, [&](unsigned t, size_t b, size_t e) {
    Histogram& off = hist[t];
    for (size_t i = b; i < e; ++i) {
      size_t pos = off[(src[i] >> shift) & 0xff]++;
      dst[pos] = src[i];
      if constexpr (WithIndex) idst[pos] = isrc[i];
    }
  });
  return true;
}

// LSD over the bytes below `bits` on one thread; the result ends in (keys, idx).
template <class K, bool WithIndex>
void lsd_local(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits) {
  K* src = keys; K* dst = ktmp;
  uint32_t* isrc = idx; uint32_t* idst = itmp;
  for (unsigned shift = 0; shift < bits; shift += 8) {
    if (scatter_pass<K, WithIndex>(src, isrc, dst, idst, n, shift, 1)) {
      std::swap(src, dst);
      std::swap(isrc, idst);
    }
  }
  if (src != keys) {
    std::memcpy(keys, src, n * sizeof(K));
    if constexpr (WithIndex) std::memcpy(idx, isrc, n * sizeof(uint32_t));
  }
}

// Hybrid radix sort: one parallel MSD pass on the highest byte that varies splits the
// keys into 256 stable buckets; each bucket, small enough to stay in cache, is then
// LSD-sorted on the lower bytes by whichever thread takes it. Both steps are stable,
// so the whole sort is. The result ends in (keys, idx).
template <class K, bool WithIndex>
void radix_impl(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads) {
  if (n < 2) return;
  K diff = 0;
  for (size_t i = 1; i < n; ++i) diff |= keys[i] ^ keys[0];
  if (diff == 0) return;
  unsigned top = 0;  // bit index of the highest differing bit
  while (top + 1 < bits && (diff >> (top + 1)) != 0) ++top;
  const unsigned msd_shift = top / 8 * 8;
  threads = unsigned(std::max<size_t>(1, std::min<size_t>(threads, n / kMinPerThread)));
  if (n < kMinPerThread * 4) { lsd_local<K, WithIndex>(keys, idx, ktmp, itmp, n, msd_shift + 8); return; }

  // MSD pass: keys → tmp, bucketed by the top digit.
  Histogram bucket{};
  for (size_t i = 0; i < n; ++i) ++bucket[(keys[i] >> msd_shift) & 0xff];  // cheap next to the passes
  scatter_pass<K, WithIndex>(keys, idx, ktmp, itmp, n, msd_shift, threads);
  std::array<size_t, 257> start{};
  for (int d = 0; d < 256; ++d) start[d + 1] = start[d] + bucket[d];

  // Buckets: LSD on the lower bytes in tmp, result copied back into keys.
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int d; (d = next++) < 256;) {
      size_t b = start[d], m = start[d + 1] - b;
      if (m == 0) continue;
      lsd_local<K, WithIndex>(ktmp + b, WithIndex ? itmp + b : nullptr, keys + b, WithIndex ? idx + b : nullptr, m, msd_shift);
      std::memcpy(keys + b, ktmp + b, m * sizeof(K));
      if constexpr (WithIndex) std::memcpy(idx + b, itmp + b, m * sizeof(uint32_t));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace

template <class K>
K* radix_sort_keys(K* keys, K* tmp, size_t n, unsigned bits, unsigned threads) {
  radix_impl<K, false>(keys, nullptr, tmp, nullptr, n, bits, threads);
  return keys;
}

template <class K>
bool radix_sort_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads) {
  radix_impl<K, true>(keys, idx, ktmp, itmp, n, bits, threads);
  return false;
}

template uint32_t* radix_sort_keys<uint32_t>(uint32_t*, uint32_t*, size_t, unsigned, unsigned);
template uint64_t* radix_sort_keys<uint64_t>(uint64_t*, uint64_t*, size_t, unsigned, unsigned);
template bool radix_sort_pairs<uint64_t>(uint64_t*, uint32_t*, uint64_t*, uint32_t*, size_t, unsigned, unsigned);

}  // namespace gxsort
