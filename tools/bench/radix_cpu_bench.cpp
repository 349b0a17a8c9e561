// The CPU radix sort alone: radix_sort_copy of N random u64 keys (in memory, no file
// I/O) on T threads, the time of each pass and std::sort of the same keys on one thread
// for scale. Every pass's output is checked against std::sort's.
// Usage: bench/radix_cpu_bench [N=2^28] [threads=all] [passes=3] [dist=uniform|bits24|few]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/radix_sort.hpp"

using namespace gxsort;

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t(1) << 28;
  const unsigned threads = argc > 2 ? unsigned(std::atoi(argv[2])) : std::thread::hardware_concurrency();
  const int passes = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string dist = argc > 4 ? argv[4] : "uniform";
  std::vector<uint64_t> src(n), dst(n), scratch(n);
  std::mt19937_64 rng(1);
  for (auto& x : src) {
    x = rng();
    if (dist == "bits24") x &= (uint64_t(1) << 24) - 1;  // high bytes all zero: their passes are skipped
    else if (dist == "few") x %= 1000;                     // heavy duplicates
  }
  std::vector<uint64_t> want = src;
  const auto s0 = std::chrono::steady_clock::now();
  std::sort(want.begin(), want.end());
  const double std_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
  std::vector<double> secs;
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<uint64_t> input = src;  // the sort may use its input as scratch
    const auto t0 = std::chrono::steady_clock::now();
    radix_sort_copy<uint64_t>(input.data(), dst.data(), n, KeyOrder<uint64_t>{}, threads, scratch.data());
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (dst != want) {
      std::fprintf(stderr, "radix_cpu_bench: wrong sort on pass %d\n", pass);
      return 1;
    }
  }
  std::sort(secs.begin(), secs.end());
  const double med = secs[secs.size() / 2];
  std::printf("radix_sort_copy u64 %s, n=%zu, %u threads: %.3f s = %.2f ns per key (median of %d; best %.3f s); "
              "std::sort one thread %.3f s (%.1fx)\n",
              dist.c_str(), n, threads, med, med * 1e9 / double(n), passes, secs.front(), std_s, std_s / med);
}
