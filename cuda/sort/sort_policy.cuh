// Tuning constants of the device sort (run formation and the resident sort), all in one place.
#pragma once
#include <cstddef>

#include "device_memory.cuh"

namespace gxsort::cuda {

struct SortPolicy {
  // Copy-in and copy-out are cut into slices of this size, alternating between two
  // streams, so the PCIe copy of one slice overlaps the kernel of the previous one.
  static constexpr size_t kSliceBytes = size_t(64) << 20;
  static constexpr int kThreads = 256;      // threads per block of the elementwise kernels
  static constexpr int kBlocksPerSM = 8;    // grid-stride kernels launch at most this many blocks per SM
  // CUB runs with 32-bit offsets and records are indexed by uint32_t: stay well inside.
  static constexpr size_t kMaxRecords = size_t(1) << 31;
  // Allocation rounding of the handful of buffers of one sort (each rounds up to 256 B).
  static constexpr size_t kRoundingSlack = 16 * DeviceMemory::kAlignment;
};

}  // namespace gxsort::cuda
