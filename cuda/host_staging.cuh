// Copies of slices between the device and pageable host memory (a caller's array: a
// numpy array, an API user's new[]) at pinned speed. A pageable cudaMemcpyAsync runs at
// about 8.5 GB/s and holds the calling thread (shared/ANCHORS.md); here a slice is
// copied by the backend's host threads into one of two pinned slots while the DMA of the
// slice before it runs. Pinned memory (the engine's chunks), device memory and copies
// smaller than one slice go straight, as one cudaMemcpyAsync; so does everything when no
// pinned memory is left for the slots.
//
// One HostStaging serves one sort's uploads (host to device) and downloads (device to
// host). A download's host bytes land by the next upload or download, or by finish();
// the destructor waits for the DMA still using the slots.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "backend/backend.hpp"

namespace gxsort::cuda {

class HostStaging {
 public:
  // Copies of at most `slice_bytes` each, from `in` and to `out` (host, pinned or device
  // memory), `bytes` in all each way, on `threads` host threads.
  HostStaging(const void* in, const void* out, size_t bytes, size_t slice_bytes, unsigned threads);
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  void upload(void* device, const void* host, size_t bytes, cudaStream_t st);
  void download(void* host, const void* device, size_t bytes, cudaStream_t st);
  void finish();  // the last download's bytes are in host memory

 private:
  struct Pending {
    void* host = nullptr;
    size_t bytes = 0;
    unsigned slot = 0;
  };
  unsigned char* take_slot(unsigned& slot);  // the next slot, once its last DMA is done

  bool stage_in_ = false, stage_out_ = false;
  size_t slot_bytes_ = 0;
  unsigned threads_ = 1;
  HostBuffer slots_;
  cudaEvent_t dma_done_[2] = {nullptr, nullptr};
  unsigned next_ = 0;
  Pending pending_;  // a download whose DMA is queued and whose host copy is not done
};

}  // namespace gxsort::cuda
