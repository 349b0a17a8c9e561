// A stable sort on several threads, for a large group of lines that only compare_lines
// can order: parts sorted at once (std::stable_sort), then merged pairwise in rounds
// (std::merge takes the left part's element first on a tie: stable).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "parallel/parallel_for.hpp"

namespace gxsort::lines {

// Whether v[0, n) is in order by `less`, checked on `threads` threads.
template <class T, class Less>
bool parallel_is_sorted(const T* v, size_t n, unsigned threads, const Less& less) {
  std::atomic<bool> sorted{true};
  parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned) {
    if (b < e && !std::is_sorted(v + b, v + std::min(n, e + 1), less)) sorted = false;  // e's boundary too
  });
  return sorted;
}

template <class T, class Less>
void parallel_stable_sort(T* v, size_t n, unsigned threads, const Less& less) {
  if (threads < 2 || n < size_t(threads) * 1024) return std::stable_sort(v, v + n, less);
  std::vector<size_t> bound;  // the sorted runs: [bound[i], bound[i + 1])
  for (unsigned p = 0; p < threads; ++p) bound.push_back(parallel::part_range(n, threads, p).begin);
  bound.push_back(n);
  parallel::parallel_for(threads, threads, [&](size_t p) { std::stable_sort(v + bound[p], v + bound[p + 1], less); });
  std::vector<T> spare(n);
  T* src = v;
  T* dst = spare.data();
  while (bound.size() > 2) {
    const size_t runs = bound.size() - 1, pairs = (runs + 1) / 2;
    parallel::parallel_for(pairs, threads, [&](size_t q) {
      const size_t a = bound[2 * q], m = bound[std::min(2 * q + 1, runs)], e = bound[std::min(2 * q + 2, runs)];
      std::merge(src + a, src + m, src + m, src + e, dst + a, less);
    });
    std::vector<size_t> merged;
    for (size_t q = 0; q < pairs; ++q) merged.push_back(bound[2 * q]);
    merged.push_back(n);
    bound.swap(merged);
    std::swap(src, dst);
  }
  if (src != v)
    parallel::parallel_for_ranges(n, threads, [&](size_t b, size_t e, unsigned) { std::copy(src + b, src + e, v + b); });
}

}  // namespace gxsort::lines
