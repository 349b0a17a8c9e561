// Beamer's direction-optimizing switch, shared by the CPU search (bfs_cpu.cpp) and the GPU
// search (cuda/graph/bfs_cuda.cu) so both backends take the same steps.
#pragma once
#include <cstdint>

namespace gxsort::graph {

struct DirectionSwitch {
  double alpha = 14.0;  // top-down -> bottom-up when the frontier's edges exceed unexplored edges / alpha
  double beta = 24.0;   // bottom-up -> top-down when the frontier has fewer than n / beta vertices
  // ... and only for frontiers of more vertices than this (a small frontier is cheaper top-down).
  static constexpr uint64_t kMinBottomUpFrontier = 4096;

  bool to_bottom_up(uint64_t frontier_edges, double unexplored_edges, uint64_t frontier) const {
    return double(frontier_edges) > unexplored_edges / alpha && frontier > kMinBottomUpFrontier;
  }
  bool to_top_down(uint64_t frontier, uint64_t vertices) const { return double(frontier) < double(vertices) / beta; }
};

}  // namespace gxsort::graph
