// A caller's device buffers (the in-memory API, gxsort/memory.hpp): where they must lie,
// and the caller's stream joined into a device call's streams.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.cuh"
#include "gxsort/error.hpp"
#include "sort/sort_context.cuh"

namespace gxsort::cuda {

// `p` must be memory of `device` that kernels can read (device or managed memory).
inline void check_device_pointer(const void* p, unsigned device, const char* what) {
  cudaPointerAttributes a;
  GXSORT_CUDA_CHECK(cudaPointerGetAttributes(&a, p));
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    throw DeviceError(std::string("a device buffer: the ") + what + " pointer is not CUDA device memory");
  if (a.type == cudaMemoryTypeDevice && a.device != int(device))
    throw DeviceError(std::string("a device buffer: the ") + what + " is on CUDA device " + std::to_string(a.device) +
                      ", the sort's device is " + std::to_string(device) + " (MemoryOptions::device_index)");
}

// The work queued on the caller's stream so far comes before the call's.
inline void wait_for_caller(const SortContext& c, uintptr_t stream) {
  GXSORT_CUDA_CHECK(cudaEventRecord(c.ev, reinterpret_cast<cudaStream_t>(stream)));
  GXSORT_CUDA_CHECK(cudaStreamWaitEvent(c.s[0], c.ev, 0));
  GXSORT_CUDA_CHECK(cudaStreamWaitEvent(c.s[1], c.ev, 0));
}

}  // namespace gxsort::cuda
