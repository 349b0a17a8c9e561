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

// circular: like tiled, but the co-rank of every tile is computed first, and a ring of
// Stages + 1 shared-memory slots holds exactly the inputs of the tile being merged and of
// the Stages tiles being loaded (asynchronous copies); the slot of the tile just merged
// also stages its outputs. Shared memory per block: Stages + 1 slots of a tile or of the
// staging rows, whichever is larger.
template <int Threads, int ItemsPerThread, int Stages>
struct CircularPolicy {
  static_assert(Stages >= 1 && Stages <= 3, "pipeline depth 1..3");
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile = Threads * ItemsPerThread;
  static constexpr int stages = Stages;
};

// The circular merge's partition co-ranks every kCoarseSplitStride-th tile boundary with a
// full search, then each of the others between its two coarse neighbours (64: the fastest
// of 16 to 512 on an H200 for all three element types, docs/merge-kernels.md).
constexpr uint32_t kCoarseSplitStride = 64;

// Defaults for the element sizes we instantiate. basic and tiled: about 64 bytes of output
// per thread. circular: the winners of tools/bench/merge_kernels_bench's sweeps on an H200
// (docs/merge-kernels.md): 384 x 12 for 8-byte keys, 512 x 20 for 4-byte ones, 512 x 9 for
// 16-byte records, one stage (a deeper ring costs occupancy). Larger tiles spend less of
// the kernel's shared-memory traffic per element on the per-tile work (the co-rank
// searches and the merges' scattered reads are what bind it) and need fewer split points;
// smaller ones leave the blocks' ends closer together (tiles are handed out one at a time).
template <class T>
struct DefaultMergePolicy {
  static constexpr int items64 = sizeof(T) >= 16 ? 4 : sizeof(T) >= 8 ? 8 : 16;
  using basic = BasicPolicy<256, items64>;
  using tiled = TiledPolicy<128, items64>;
  using circular = CircularPolicy<sizeof(T) >= 16 ? 512 : sizeof(T) >= 8 ? 384 : 512,
                                  sizeof(T) >= 16 ? 9 : sizeof(T) >= 8 ? 12 : 20, 1>;
  // For GPUs that give a block less shared memory than `circular` takes (82-148 KB; sm_86
  // and sm_89 allow 99 KB): about 20 KB.
  using circular_fallback = CircularPolicy<128, items64, 1>;
};

// Alternative policies, exercised by the tests: odd items per thread, tiles that are not
// powers of two, a one-warp block, a deep pipeline.
using TiledPolicySmall = TiledPolicy<32, 3>;   // tile 96
using TiledPolicyLarge = TiledPolicy<256, 7>;  // tile 1792
using CircularPolicySmall = CircularPolicy<32, 1, 1>;  // tile 32
using CircularPolicyOdd = CircularPolicy<96, 7, 3>;    // tile 672, 4 slots

// Further circular candidates timed by the benchmark (the sweeps behind the defaults above),
// instantiated in merge_circular.cu for uint64_t, KeyIndex and uint32_t respectively.
// (320 x 18, 512 x 11 and 384 x 28: the defaults before tiles were handed out one at a time.)
using CircularTune320x18 = CircularPolicy<320, 18, 1>;
using CircularTune384x28 = CircularPolicy<384, 28, 1>;
using CircularTune512x7 = CircularPolicy<512, 7, 1>;
using CircularTune512x11 = CircularPolicy<512, 11, 1>;
using CircularTune256x20 = CircularPolicy<256, 20, 1>;
using CircularTune384x16 = CircularPolicy<384, 16, 1>;
using CircularTune256x36 = CircularPolicy<256, 36, 1>;

#define GXSORT_CIRCULAR_TUNE_LIST(X) X(CircularTune320x18) X(CircularTune256x20) X(CircularTune384x16)
#define GXSORT_CIRCULAR_TUNE_LIST_PAIRS(X) X(CircularTune512x7) X(CircularTune512x11)
#define GXSORT_CIRCULAR_TUNE_LIST_U32(X) X(CircularTune384x28) X(CircularTune256x36)

}  // namespace gxsort::cuda
