// std::stable_sort on several threads, for the oracles of the larger test inputs (the GPU
// suite's time is mostly its host oracles): equal parts sorted at once, each with
// std::stable_sort, then merged pairwise with std::inplace_merge, which keeps the left
// part's elements first among equals. The result is std::stable_sort's, element for element
// (tests/unit/test_oracle_sort.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace gxsort_test {

// Inputs below this many elements are sorted on the calling thread.
constexpr size_t kOracleSortSerial = size_t(1) << 16;

template <class It, class Less>
void oracle_stable_sort(It first, It last, Less less, unsigned threads = std::thread::hardware_concurrency()) {
  const size_t n = size_t(last - first);
  size_t parts = std::min<size_t>(std::max(threads, 1u), 16);
  if (n < kOracleSortSerial) parts = 1;
  std::vector<It> cut;  // part i is [cut[i], cut[i + 1])
  for (size_t i = 0; i <= parts; ++i) cut.push_back(first + ptrdiff_t(n * i / parts));
  std::vector<std::thread> workers;
  for (size_t i = 0; i + 1 < parts; ++i) workers.emplace_back([&, i] { std::stable_sort(cut[i], cut[i + 1], less); });
  std::stable_sort(cut[parts - 1], cut[parts], less);
  for (auto& w : workers) w.join();
  for (size_t width = 1; width < parts; width *= 2) {  // neighbours merged at once, level by level
    workers.clear();
    for (size_t i = 0; i + width < parts; i += 2 * width) {
      const It a = cut[i], mid = cut[i + width], b = cut[std::min(i + 2 * width, parts)];
      workers.emplace_back([=] { std::inplace_merge(a, mid, b, less); });
    }
    for (auto& w : workers) w.join();
  }
}

}  // namespace gxsort_test
