// Tuning constants of the merge kernels: one policy struct per kernel, and nowhere else.
// The kernels take the policy as a template parameter; merge() uses DefaultMergePolicy<T>,
// the tests and the benchmark also run the alternative policies named below (each is
// explicitly instantiated in its kernel's .cu file for the element types of merge.cuh).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gxsort::cuda {

// basic: every thread co-ranks its own ItemsPerThread outputs in global memory and merges
// them sequentially; no shared memory, no temp storage.
template <int Threads, int ItemsPerThread>
struct BasicPolicy {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
};

// tiled: a block owns a section of the output and walks it one tile at a time; each step
// loads up to `tile` elements of A and of B into shared memory and produces `tile` outputs.
template <int Threads, int ItemsPerThread>
struct TiledPolicy {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile = Threads * ItemsPerThread;
  // Upper bound on the grid: the temp storage holds max_blocks + 1 split points.
  static constexpr int max_blocks = 8192;
};

// circular: like tiled, but A and B live in shared-memory ring buffers that are refilled
// only with what the last tiles consumed (asynchronous copies), Stages tiles ahead.
// Shared memory per block: 2 rings + a staging tile, (2 * (Stages + 1) + 1) tiles.
template <int Threads, int ItemsPerThread, int Stages>
struct CircularPolicy {
  static_assert(Stages >= 1 && Stages <= 3, "pipeline depth 1..3");
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile = Threads * ItemsPerThread;
  static constexpr int stages = Stages;
  // A ring must hold the tile being merged plus the Stages tiles being loaded; a multiple
  // of 4 elements, so a 16-byte vector (4 x u32, 2 x u64) never wraps around the ring.
  static constexpr int ring = ((Stages + 1) * tile + 3) / 4 * 4;
  static constexpr int max_blocks = 8192;
};

// Defaults for the element sizes we instantiate: about 64 bytes of output per thread. The
// circular default won the u64 sweep of tools/bench/merge_kernels_bench on an H200
// (docs/merge-kernels.md): one stage, because deeper rings cost occupancy, and the kernel is
// bound by shared-memory latency rather than by DRAM.
template <class T>
struct DefaultMergePolicy {
  static constexpr int items64 = sizeof(T) >= 16 ? 4 : sizeof(T) >= 8 ? 8 : 16;
  using basic = BasicPolicy<256, items64>;
  using tiled = TiledPolicy<128, items64>;
  using circular = CircularPolicy<128, items64, 1>;
};

// Alternative policies, exercised by the tests: odd items per thread, tiles that are not
// powers of two, a one-warp block, a deep pipeline.
using TiledPolicySmall = TiledPolicy<32, 3>;   // tile 96
using TiledPolicyLarge = TiledPolicy<256, 7>;  // tile 1792
using CircularPolicySmall = CircularPolicy<32, 1, 1>;  // tile 32, ring 64: many wrap-arounds
using CircularPolicyOdd = CircularPolicy<96, 7, 3>;    // tile 672, ring 2688

// Further circular candidates timed by the benchmark for uint64_t only (the sweep behind
// the default above); instantiated for uint64_t in merge_circular.cu.
using CircularTune128x8s2 = CircularPolicy<128, 8, 2>;
using CircularTune128x7s1 = CircularPolicy<128, 7, 1>;
using CircularTune128x9s1 = CircularPolicy<128, 9, 1>;
using CircularTune64x8s1 = CircularPolicy<64, 8, 1>;
using CircularTune256x8s1 = CircularPolicy<256, 8, 1>;
using CircularTune256x4s1 = CircularPolicy<256, 4, 1>;
using CircularTune128x12s1 = CircularPolicy<128, 12, 1>;
using CircularTune64x16s1 = CircularPolicy<64, 16, 1>;

// The list the benchmark sweeps, for merge_circular.cu's instantiations and the bench.
#define GXSORT_CIRCULAR_TUNE_LIST(X)                                                  \
  X(CircularTune128x8s2) X(CircularTune128x7s1) X(CircularTune128x9s1)               \
  X(CircularTune64x8s1) X(CircularTune256x8s1) X(CircularTune256x4s1)                \
  X(CircularTune128x12s1) X(CircularTune64x16s1)

}  // namespace gxsort::cuda
