// The CPU K-way merge alone: K in-memory sorted runs of random u64 walked by RunCursors
// through one LoserTree on one thread (no file I/O), so a change to the tree or the
// cursors shows as ns per record. Checks the output's order and count on every pass.
// Usage: bench/merge_cpu_bench [K=32] [records per run=2^21] [passes=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "engine/run.hpp"

using namespace gxsort;

int main(int argc, char** argv) {
  const size_t k = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 32;
  const size_t per = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : size_t(1) << 21;
  const int passes = argc > 3 ? std::atoi(argv[3]) : 3;
  std::mt19937_64 rng(1);
  std::vector<std::vector<uint64_t>> data(k, std::vector<uint64_t>(per));
  for (auto& run : data) {
    for (auto& x : run) x = rng();
    std::sort(run.begin(), run.end());
  }
  const Format f = Format::typed(KeyType::u64);
  std::vector<RunRef> runs(k);
  for (size_t i = 0; i < k; ++i) {
    runs[i].mem = reinterpret_cast<const unsigned char*>(data[i].data());
    runs[i].records = per;
  }
  std::vector<double> ns;
  for (int pass = 0; pass < passes; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<RunCursor> cursors;
    cursors.reserve(k);
    for (size_t i = 0; i < k; ++i) cursors.emplace_back(f, runs[i], 0, per, size_t(1) << 20);
    LoserTree tree(f, cursors);
    uint64_t prev = 0, out_of_order = 0, count = 0;
    while (!tree.done()) {
      uint64_t v;
      std::memcpy(&v, tree.top().record(), 8);
      out_of_order += v < prev;
      prev = v;
      ++count;
      tree.pop();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (out_of_order || count != k * per) {
      std::fprintf(stderr, "merge_cpu_bench: wrong merge (%llu out of order, %llu of %zu records)\n",
                   (unsigned long long)out_of_order, (unsigned long long)count, k * per);
      return 1;
    }
    ns.push_back(s * 1e9 / double(count));
  }
  std::sort(ns.begin(), ns.end());
  std::printf("K=%zu, %zu records per run, one thread: %.2f ns per record (median of %d; best %.2f)\n", k, per,
              ns[ns.size() / 2], passes, ns.front());
}
