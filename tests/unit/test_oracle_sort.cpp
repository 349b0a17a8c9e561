#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "../common/oracle_sort.hpp"

using gxsort_test::oracle_stable_sort;

// Elements compared by their key only; the tag tells equal keys apart, so any unstable
// step shows.
TEST_CASE("oracle_stable_sort: std::stable_sort's order for every size, part count and duplicate rate") {
  using Item = std::pair<uint32_t, uint32_t>;  // key, position in the input
  const auto by_key = [](const Item& a, const Item& b) { return a.first < b.first; };
  std::mt19937 rng(5);
  const size_t n0 = gxsort_test::kOracleSortSerial;
  for (size_t n : {size_t(0), size_t(1), size_t(7), n0 - 1, n0, n0 + 1, 3 * n0 + 5, 5 * n0 + 3})
    for (unsigned threads : {1u, 2u, 3u, 5u, 8u, 16u, 40u})
      for (uint32_t keys : {1u, 3u, 1000u, 0xffffffffu}) {
        std::vector<Item> in(n);
        for (size_t i = 0; i < n; ++i) in[i] = {uint32_t(rng() % keys), uint32_t(i)};
        if (keys == 1000u) std::sort(in.begin(), in.end(), [](const Item& a, const Item& b) { return a.first > b.first; });
        std::vector<Item> want = in, got = in;
        std::stable_sort(want.begin(), want.end(), by_key);
        oracle_stable_sort(got.begin(), got.end(), by_key, threads);
        CAPTURE(n);
        CAPTURE(threads);
        CAPTURE(keys);
        CHECK(got == want);
      }
}
