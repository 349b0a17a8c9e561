// What one device sort works with: the backend's two streams and their join event, the
// arena, the key bit accumulator, and the device buffers of a sort_chunk.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "grid.cuh"
#include "sort/sort_policy.cuh"

namespace gxsort::cuda {

// The bit range [begin, end) where the keys of a pass differ; empty when they are all
// equal. Bits equal in every key cannot reorder anything, so the radix sort skips them.
struct BitRange {
  int begin = 0, end = 0;
  bool empty() const { return begin >= end; }
};

inline BitRange bit_range(uint64_t and_bits, uint64_t or_bits) {
  const uint64_t diff = and_bits ^ or_bits;
  if (diff == 0) return {};
  return {__builtin_ctzll(diff), 64 - __builtin_clzll(diff)};
}

// Shared state of one sort (CudaBackend::sort_context() makes it): streams, the bit
// accumulator, the arena.
struct SortContext {
  cudaStream_t s[2];
  cudaEvent_t ev;
  DeviceMemory* mem;
  uint64_t* bits_host;             // host memory where the bits land
  unsigned grid_cap;               // blocks of a grid-stride kernel
  unsigned host_threads;           // host threads of copies through pinned staging (host_staging.cuh)
  unsigned long long* bits = nullptr;  // device: [AND, OR]; take_bits() sets it

  // The accumulator, allocated now (where the sort's device byte count puts it).
  void take_bits(DeviceAllocation& slot) {
    slot = mem->allocate(2 * sizeof(uint64_t), "key bit range");
    bits = static_cast<unsigned long long*>(slot.get());
  }
  // Make `to` wait for everything queued on `from` so far.
  void join(cudaStream_t from, cudaStream_t to) const {
    GXSORT_CUDA_CHECK(cudaEventRecord(ev, from));
    GXSORT_CUDA_CHECK(cudaStreamWaitEvent(to, ev, 0));
  }
  void reset_bits(cudaStream_t st) const {
    GXSORT_CUDA_CHECK(cudaMemsetAsync(bits, 0xff, sizeof(uint64_t), st));     // AND starts all ones
    GXSORT_CUDA_CHECK(cudaMemsetAsync(bits + 1, 0, sizeof(uint64_t), st));    // OR starts all zeros
  }
  BitRange read_bits() const {  // on s[0], which must already have joined every writer
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(bits_host, bits, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost, s[0]));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(s[0]));
    return bit_range(bits_host[0], bits_host[1]);
  }
  unsigned grid(size_t items) const { return grid_blocks(items, SortPolicy::kThreads, grid_cap); }
};

// The device buffers of one sort_chunk. They outlive the sort's error handling: they go
// back to the arena only after the streams have drained.
struct SortBuffers {
  DeviceAllocation keys[2], vals[2], records_in, records_out, bits;
};

}  // namespace gxsort::cuda
