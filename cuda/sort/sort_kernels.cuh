// The device sort's elementwise kernels (sort_kernels.cu) behind host launchers: the key
// transforms of flat keys and the key words of records. Every kernel that builds key
// words also folds their AND and OR into bits[0] and bits[1], from which the sort learns
// the bit range where the keys differ (sort_context.cuh: BitRange).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device_keys.cuh"

namespace gxsort::cuda {

// Flat keys (K = uint32_t or uint64_t) into their order words, in place, folding the bits.
template <class K>
void launch_order_flat(K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits, unsigned grid,
                       cudaStream_t s);
// The same from `from` into `keys` (a sorted copy's first pass: the copy made with it).
template <class K>
void launch_order_flat_from(const K* from, K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits,
                            unsigned grid, cudaStream_t s);
// Only the bits of unsigned ascending keys (their own order words): read, not written.
template <class K>
void launch_flat_bits(const K* keys, size_t n, unsigned long long* bits, unsigned grid, cudaStream_t s);
// Whether flat keys of format f are their own order words (unsigned, ascending).
__host__ __device__ inline bool words_are_keys(KeyType t, bool reverse) {
  return !reverse && (t == KeyType::u32 || t == KeyType::u64);
}
// Order words back into keys, in place.
template <class K>
void launch_unorder_flat(K* keys, size_t n, KeyType t, bool reverse, unsigned grid, cudaStream_t s);

// keys[i] = key word of record perm[i] (of record i when perm is null), for i in [lo, hi),
// folding the bits; 64-bit words when `wide`, else 32-bit. With `index` set it also
// writes index[i] = i: the identity permutation of the first pass.
void launch_extract_keys(bool wide, const unsigned char* records, const uint32_t* perm, uint32_t* index, void* keys,
                         size_t lo, size_t hi, const KeySpec& spec, unsigned long long* bits, unsigned grid,
                         cudaStream_t s);

}  // namespace gxsort::cuda
