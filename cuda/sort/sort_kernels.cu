// The device sort's elementwise kernels: short grid-stride loops; the heavy lifting is CUB's.
#include "sort/sort_kernels.cuh"

#include "cuda_check.cuh"
#include "sort/sort_policy.cuh"

namespace gxsort::cuda {
namespace {

using u32 = uint32_t;
using u64 = uint64_t;

// Folds a thread's AND/OR of key words into bits[0] (AND) and bits[1] (OR): a warp
// shuffle reduction, then one atomic pair per block. Every thread of the block calls it.
__device__ void fold_bits(u64 a, u64 o, unsigned long long* bits) {
  for (int d = 16; d > 0; d >>= 1) {
    a &= __shfl_xor_sync(0xffffffffu, a, d);
    o |= __shfl_xor_sync(0xffffffffu, o, d);
  }
  __shared__ u64 wa[32], wo[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) {
    wa[warp] = a;
    wo[warp] = o;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < warps; ++w) {
      a &= wa[w];
      o |= wo[w];
    }
    atomicAnd(&bits[0], (unsigned long long)a);
    atomicOr(&bits[1], (unsigned long long)o);
  }
}

template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads)
    order_flat_kernel(const K* from, K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits) {
  u64 a = ~u64(0), o = 0;
  // In place, unsigned ascending keys are their words: read, not written.
  const bool write = from != keys || !words_are_keys(t, reverse);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    K k;
    if constexpr (sizeof(K) == 4) k = order32(t, from[i], reverse);
    else k = order64(t, from[i], reverse);
    if (write) keys[i] = k;
    a &= k;
    o |= k;
  }
  fold_bits(a, o, bits);
}

template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads) unorder_flat_kernel(K* keys, size_t n, KeyType t, bool reverse) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(K) == 4) keys[i] = unorder32(t, keys[i], reverse);
    else keys[i] = unorder64(t, keys[i], reverse);
  }
}

// keys[i] = key word of record perm[i] (of record i when perm is null), for i in [lo, hi).
// With `index` set it also writes index[i] = i: the identity permutation of the first pass.
template <class K>
__global__ void __launch_bounds__(SortPolicy::kThreads)
    extract_keys_kernel(const unsigned char* records, const u32* perm, u32* index, K* keys, size_t lo, size_t hi,
                        KeySpec spec, unsigned long long* bits) {
  u64 a = ~u64(0), o = 0;
  for (size_t i = lo + blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < hi; i += size_t(gridDim.x) * blockDim.x) {
    const size_t r = perm ? perm[i] : i;
    const K k = key_word<K>(records + r * spec.record_size, spec);
    keys[i] = k;
    if (index) index[i] = u32(i);
    a &= k;
    o |= k;
  }
  fold_bits(a, o, bits);
}

template <class K>
void launch_extract(const unsigned char* records, const u32* perm, u32* index, void* keys, size_t lo, size_t hi,
                    const KeySpec& spec, unsigned long long* bits, unsigned grid, cudaStream_t s) {
  extract_keys_kernel<K><<<grid, SortPolicy::kThreads, 0, s>>>(records, perm, index, static_cast<K*>(keys), lo, hi,
                                                               spec, bits);
  GXSORT_CUDA_CHECK_LAUNCH("extract_keys_kernel");
}

}  // namespace

template <class K>
void launch_order_flat(K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits, unsigned grid,
                       cudaStream_t s) {
  launch_order_flat_from<K>(keys, keys, n, t, reverse, bits, grid, s);
}

template <class K>
void launch_order_flat_from(const K* from, K* keys, size_t n, KeyType t, bool reverse, unsigned long long* bits,
                            unsigned grid, cudaStream_t s) {
  order_flat_kernel<K><<<grid, SortPolicy::kThreads, 0, s>>>(from, keys, n, t, reverse, bits);
  GXSORT_CUDA_CHECK_LAUNCH("order_flat_kernel");
}

template <class K>
void launch_flat_bits(const K* keys, size_t n, unsigned long long* bits, unsigned grid, cudaStream_t s) {
  const KeyType t = sizeof(K) == 4 ? KeyType::u32 : KeyType::u64;  // in place and unsigned: nothing written
  order_flat_kernel<K><<<grid, SortPolicy::kThreads, 0, s>>>(keys, const_cast<K*>(keys), n, t, false, bits);
  GXSORT_CUDA_CHECK_LAUNCH("order_flat_kernel (bits only)");
}

template <class K>
void launch_unorder_flat(K* keys, size_t n, KeyType t, bool reverse, unsigned grid, cudaStream_t s) {
  if (words_are_keys(t, reverse)) return;
  unorder_flat_kernel<K><<<grid, SortPolicy::kThreads, 0, s>>>(keys, n, t, reverse);
  GXSORT_CUDA_CHECK_LAUNCH("unorder_flat_kernel");
}

void launch_extract_keys(bool wide, const unsigned char* records, const u32* perm, u32* index, void* keys, size_t lo,
                         size_t hi, const KeySpec& spec, unsigned long long* bits, unsigned grid, cudaStream_t s) {
  if (wide) launch_extract<u64>(records, perm, index, keys, lo, hi, spec, bits, grid, s);
  else launch_extract<u32>(records, perm, index, keys, lo, hi, spec, bits, grid, s);
}

template void launch_order_flat<u32>(u32*, size_t, KeyType, bool, unsigned long long*, unsigned, cudaStream_t);
template void launch_order_flat<u64>(u64*, size_t, KeyType, bool, unsigned long long*, unsigned, cudaStream_t);
template void launch_order_flat_from<u32>(const u32*, u32*, size_t, KeyType, bool, unsigned long long*, unsigned,
                                          cudaStream_t);
template void launch_order_flat_from<u64>(const u64*, u64*, size_t, KeyType, bool, unsigned long long*, unsigned,
                                          cudaStream_t);
template void launch_flat_bits<u32>(const u32*, size_t, unsigned long long*, unsigned, cudaStream_t);
template void launch_flat_bits<u64>(const u64*, size_t, unsigned long long*, unsigned, cudaStream_t);
template void launch_unorder_flat<u32>(u32*, size_t, KeyType, bool, unsigned, cudaStream_t);
template void launch_unorder_flat<u64>(u64*, size_t, KeyType, bool, unsigned, cudaStream_t);

}  // namespace gxsort::cuda
