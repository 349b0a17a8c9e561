// Beamer's direction-optimizing switch, used by the CPU search (bfs_cpu.cpp) and the GPU
// search (cuda/graph/bfs_cuda.cu), each with its own points (the defaults are the GPU's).
#pragma once
#include <cstdint>

namespace gxsort::graph {

struct DirectionSwitch {
  double alpha = 14.0;  // top-down -> bottom-up when the frontier's edges exceed unexplored edges / alpha
  double beta = 24.0;   // bottom-up -> top-down when the frontier has fewer than n / beta vertices
  // ... and only for frontiers of more vertices than this: on the GPU, a small frontier
  // is cheaper top-down (the GPU search also needs it for its queue space).
  static constexpr uint64_t kMinBottomUpFrontier = 4096;
  uint64_t min_bottom_up_frontier = kMinBottomUpFrontier;

  // The CPU search's points, measured on the 2-core CPU machine (docs/benchmarks.md,
  // 2026-11-27): alpha 8-60 and beta 8-64 moved the mean search by a few percent at most,
  // so they stay the GPU's; bottom-up from frontiers of 256 vertices, where the GPU's
  // 4096 kept a few hundred hubs holding most unexplored edges top-down (1-2% slower).
  // The CPU search also stays bottom-up while alpha says so (bfs_cpu.cpp).
  static DirectionSwitch cpu() { return DirectionSwitch{14.0, 24.0, 256}; }

  bool to_bottom_up(uint64_t frontier_edges, double unexplored_edges, uint64_t frontier) const {
    return double(frontier_edges) > unexplored_edges / alpha && frontier > min_bottom_up_frontier;
  }
  bool to_top_down(uint64_t frontier, uint64_t vertices) const { return double(frontier) < double(vertices) / beta; }
};

}  // namespace gxsort::graph
