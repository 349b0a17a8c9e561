// `gxsort check` on the device: one pass over a chunk in device memory counting order
// violations and duplicate keys between neighbours and summing the record hashes.
#pragma once
#include <cuda_runtime.h>

#include "device_memory.cuh"
#include "kernels/check_chunk.hpp"

namespace gxsort::cuda {

CheckPartial check_chunk_gpu(DeviceMemory& mem, const Format& f, const unsigned char* d_records, size_t n,
                             uint64_t first_index, cudaStream_t stream);

}  // namespace gxsort::cuda
