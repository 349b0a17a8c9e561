// Graphs shared by the CPU and GPU graph tests.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/graph.hpp"

namespace gxsort::graph::test {

// The example graph of the BFS chapter of Programming Massively Parallel Processors.
inline std::vector<std::pair<uint64_t, uint64_t>> pmpp_edges() {
  return {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}, {2, 7}, {3, 4},
          {3, 8}, {4, 5}, {4, 8}, {5, 6}, {6, 8}, {7, 0}, {7, 6}};
}

// An R-MAT or uniform graph of 2^scale vertices and ef * 2^scale edges.
inline CsrGraph random_graph(bool rmat, unsigned scale, uint64_t ef, uint64_t seed, bool sym) {
  std::vector<std::pair<uint64_t, uint64_t>> e;
  for (uint64_t i = 0; i < (ef << scale); ++i) {
    uint64_t s, d;
    gen_edge(rmat, scale, seed, i, s, d);
    e.push_back({s, d});
  }
  return csr_from_edges(std::move(e), sym, false, false, uint64_t(1) << scale);
}

}  // namespace gxsort::graph::test
