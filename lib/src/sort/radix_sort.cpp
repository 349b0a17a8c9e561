#include "sort/radix_sort.hpp"

#include <algorithm>
#include <array>
#include <thread>
#include <vector>

namespace gxsort {
namespace {

constexpr size_t kMinPerThread = 1 << 16;  // below this, threads cost more than they give

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

template <class K, bool WithIndex>
bool radix_impl(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads) {
  threads = unsigned(std::max<size_t>(1, std::min<size_t>(threads, n / kMinPerThread)));
  std::vector<Histogram> hist(threads);
  K* src = keys; K* dst = ktmp;
  uint32_t* isrc = idx; uint32_t* idst = itmp;
  bool swapped = false;
  for (unsigned shift = 0; shift < bits; shift += 8) {
    parallel_blocks(n, threads, [&](unsigned t, size_t b, size_t e) {
      Histogram& h = hist[t];
      h.fill(0);
      for (size_t i = b; i < e; ++i) ++h[(src[i] >> shift) & 0xff];
    });
    // Skip a pass in which every key has the same digit: it would only copy.
    Histogram total{};
    for (auto& h : hist) for (int d = 0; d < 256; ++d) total[d] += h[d];
    if (std::any_of(total.begin(), total.end(), [n](size_t c) { return c == n; })) continue;
    // Offsets: digit-major, thread-minor, so equal digits keep their input order.
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
    std::swap(src, dst);
    std::swap(isrc, idst);
    swapped = !swapped;
  }
  return swapped;
}

}  // namespace

template <class K>
K* radix_sort_keys(K* keys, K* tmp, size_t n, unsigned bits, unsigned threads) {
  return radix_impl<K, false>(keys, nullptr, tmp, nullptr, n, bits, threads) ? tmp : keys;
}

template <class K>
bool radix_sort_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads) {
  return radix_impl<K, true>(keys, idx, ktmp, itmp, n, bits, threads);
}

template uint32_t* radix_sort_keys<uint32_t>(uint32_t*, uint32_t*, size_t, unsigned, unsigned);
template uint64_t* radix_sort_keys<uint64_t>(uint64_t*, uint64_t*, size_t, unsigned, unsigned);
template bool radix_sort_pairs<uint64_t>(uint64_t*, uint32_t*, uint64_t*, uint32_t*, size_t, unsigned, unsigned);

}  // namespace gxsort
