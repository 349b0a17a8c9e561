// Moving whole records into a new order on the device: the last step of a record sort
// (by the sorted permutation) and of a record window merge (by the merged KeyIndex).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "grid.cuh"
#include "merge/merge.cuh"

namespace gxsort::cuda {

constexpr unsigned kGatherThreads = 256;

// The source record an order entry names.
__device__ __forceinline__ size_t record_of(uint32_t index) { return index; }
__device__ __forceinline__ size_t record_of(const KeyIndex& k) { return k.index; }

// dst record i = src record order[i], for i in [lo, hi), moved in units of U bytes (the
// widest that divides the record size); `units` = record size / sizeof(U). Count counts
// the units of [lo, hi): uint32_t where they fit (a slice of a sort: a cheap division),
// else size_t.
template <class U, class Count, class Order>
__global__ void __launch_bounds__(kGatherThreads)
    gather_kernel(const U* src, U* dst, const Order* order, size_t lo, size_t hi, Count units) {
  const Count total = Count((hi - lo) * units);
  for (Count g = blockIdx.x * Count(blockDim.x) + threadIdx.x; g < total; g += Count(gridDim.x) * blockDim.x) {
    const size_t i = lo + g / units;
    const Count j = g % units;
    dst[i * units + j] = src[record_of(order[i]) * units + j];
  }
}

template <class U, class Count, class Order>
void launch_gather(const void* src, void* dst, const Order* order, size_t lo, size_t hi, size_t record_size,
                   size_t grid_cap, cudaStream_t s) {
  const Count units = Count(record_size / sizeof(U));
  gather_kernel<U, Count, Order><<<grid_blocks((hi - lo) * units, kGatherThreads, grid_cap), kGatherThreads, 0, s>>>(
      static_cast<const U*>(src), static_cast<U*>(dst), order, lo, hi, units);
  GXSORT_CUDA_CHECK_LAUNCH("gather_kernel");
}

// Records [lo, hi) of dst gathered from src by `order`, on stream s, in at most grid_cap
// blocks. src and dst are device buffers from the arena (256-byte aligned), so a unit
// that divides the record size is aligned.
template <class Count, class Order>
void gather_records(const void* src, void* dst, const Order* order, size_t lo, size_t hi, size_t record_size,
                    size_t grid_cap, cudaStream_t s) {
  if (record_size % 16 == 0) launch_gather<uint4, Count>(src, dst, order, lo, hi, record_size, grid_cap, s);
  else if (record_size % 8 == 0) launch_gather<uint2, Count>(src, dst, order, lo, hi, record_size, grid_cap, s);
  else if (record_size % 4 == 0) launch_gather<uint32_t, Count>(src, dst, order, lo, hi, record_size, grid_cap, s);
  else if (record_size % 2 == 0) launch_gather<uint16_t, Count>(src, dst, order, lo, hi, record_size, grid_cap, s);
  else launch_gather<uint8_t, Count>(src, dst, order, lo, hi, record_size, grid_cap, s);
}

}  // namespace gxsort::cuda
