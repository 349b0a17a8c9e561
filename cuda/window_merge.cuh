// The device side of the out-of-core merge pass: one output window whose slices (one
// per run, back to back in a pinned host buffer) are merged on the device by a tree of
// stable 2-way merges, in place. Slice i is from an earlier run than slice i+1, and the
// tree always merges an earlier group as the left input, so ties keep run order.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device_memory.cuh"
#include "gxsort/format.hpp"
#include "merge/merge.cuh"

namespace gxsort::cuda {

// Device bytes merge_window needs for m records (keys up to 8 bytes only).
size_t window_merge_device_bytes(const Format& f, size_t m, MergeKernel k);

// Merges the sorted slices of `records` (slices[i] records each, back to back) into
// one sorted sequence, in place. Keys must fit the 64-bit prefix (f.key_fits_prefix()).
// The same merge of slices already in device memory: d_rec holds them (it is written:
// flat keys become order words there) and d_out has room for as many records (device
// memory, or a caller's device buffer aligned to the widest unit, up to 16 bytes, that
// divides a record: the kernels store such words). Returns the one of the two holding
// the result.
unsigned char* merge_slices_on_device(DeviceMemory& mem, const Format& f, unsigned char* d_rec, unsigned char* d_out,
                                      const std::vector<uint64_t>& slices, MergeKernel k, cudaStream_t stream);

void merge_window(DeviceMemory& mem, const Format& f, unsigned char* records, const std::vector<uint64_t>& slices,
                  MergeKernel k, cudaStream_t stream);

}  // namespace gxsort::cuda
