// Stable device merge of two sorted runs (Programming Massively Parallel Processors, ch. 12).
//
//   size_t bytes = merge_temp_bytes<T>(kernel, na, nb);   // phase 1: how much temp
//   merge<T>(kernel, a, na, b, nb, out, temp, bytes, stream);   // phase 2: enqueue
//
// Stability: out is the merge of a and b where, on equal keys, every element of a comes
// before every element of b (a is the earlier run), and each run keeps its own order.
// Only operator< is used.
//
// The caller owns device memory: a, b, out and temp are device pointers, out must not
// overlap a or b, and the kernels never allocate. Exception: the `thrust` reference lets
// thrust::merge allocate its own temporary memory (its size is not known in advance).
// All work is enqueued on `stream`; nothing synchronizes.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include "merge/merge_policy.cuh"

#include "gxsort/options.hpp"

namespace gxsort::cuda {


// A key and the index of its record: what record merges move. Compared by key only, so
// equal keys keep their relative order only if the merge is stable (ours is).
struct alignas(16) KeyIndex {
  uint64_t key;
  uint64_t index;
};
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool operator<(const KeyIndex& x, const KeyIndex& y) {
  return x.key < y.key;
}

// The kernels are gxsort::MergeKernel (gxsort/options.hpp); `automatic` is not one of
// them: the backend resolves it (circular) before it calls merge().
inline const char* merge_kernel_name(MergeKernel k) { return choice_name(k, kMergeKernels); }

// Bytes of temp storage merge() needs for these sizes (0 for basic and thrust).
template <class T>
size_t merge_temp_bytes(MergeKernel k, size_t na, size_t nb);

// Stable merge of sorted a[0..na) and b[0..nb) into out[0..na+nb) on `stream`, with the
// default policy of each kernel. temp must hold merge_temp_bytes<T>(k, na, nb) bytes
// (8-byte aligned; nullptr when that is 0).
template <class T>
void merge(MergeKernel k, const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
           size_t temp_bytes, cudaStream_t stream);

// The kernels with an explicit policy (tests and benchmarks). Instantiated for T in
// {uint32_t, uint64_t, KeyIndex} with Policy = DefaultMergePolicy<T>::* and the
// alternatives named in merge_policy.cuh.
template <class T, class Policy>
void merge_basic(const T* a, size_t na, const T* b, size_t nb, T* out, cudaStream_t stream);

// Temp of the tiled kernel: one 64-bit split point per block boundary, for the most
// blocks the policy allows (a few tens of KB, whatever the sizes).
template <class Policy>
inline size_t merge_tiled_temp_bytes(size_t /*na*/, size_t /*nb*/) {
  return (size_t(Policy::max_blocks) + 1) * sizeof(uint64_t);
}
template <class T, class Policy>
void merge_tiled(const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                 size_t temp_bytes, cudaStream_t stream);

// Temp of the circular kernel: one 64-bit split point per tile boundary (8 bytes per tile
// of thousands of elements: well under 1% of the output), then the counter that hands out
// tiles to its blocks.
template <class Policy>
inline size_t merge_circular_temp_bytes(size_t na, size_t nb) {
  return ((uint64_t(na) + nb + Policy::tile - 1) / Policy::tile + 2) * sizeof(uint64_t);
}
// Whether a block of the policy's kernel gets its shared memory on the current device.
template <class T, class Policy>
bool merge_circular_fits();
// max_blocks (tests): at most that many blocks, each then walks many tiles; 0: no limit.
template <class T, class Policy>
void merge_circular(const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                    size_t temp_bytes, cudaStream_t stream, uint64_t max_blocks = 0);

template <class T>
void merge_thrust(const T* a, size_t na, const T* b, size_t nb, T* out, cudaStream_t stream);

}  // namespace gxsort::cuda
