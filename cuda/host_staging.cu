#include "host_staging.cuh"

#include <algorithm>
#include <utility>

#include "cuda_check.cuh"
#include "io/file.hpp"
#include "pinned_pool.cuh"

namespace gxsort::cuda {
namespace {

// Host memory the driver would copy from or to by its own pageable path.
bool pageable(const void* p) {
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return a.type == cudaMemoryTypeUnregistered;
}

}  // namespace

HostStaging::HostStaging(const void* in, const void* out, size_t bytes, size_t slice_bytes, unsigned threads)
    : threads_(std::max(1u, threads)) {
  if (bytes <= slice_bytes) return;  // one copy: nothing to overlap it with
  stage_in_ = in && pageable(in);
  stage_out_ = out && pageable(out);
  if (!stage_in_ && !stage_out_) return;
  try {
    slots_ = allocate_pinned(2 * slice_bytes);
    for (cudaEvent_t& e : dma_done_) GXSORT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  } catch (const Error&) {  // no pinned memory (or events) to spare: the driver's pageable copies, slower
    for (cudaEvent_t& e : dma_done_)
      if (e) cudaEventDestroy(std::exchange(e, nullptr));
    slots_ = HostBuffer();
    stage_in_ = stage_out_ = false;
    return;
  }
  slot_bytes_ = slice_bytes;
}

HostStaging::~HostStaging() {
  for (cudaEvent_t e : dma_done_) {
    if (!e) continue;
    cudaEventSynchronize(e);  // no DMA may outlive the slots
    cudaEventDestroy(e);
  }
}

unsigned char* HostStaging::take_slot(unsigned& slot) {
  slot = next_;
  next_ ^= 1;
  GXSORT_CUDA_CHECK(cudaEventSynchronize(dma_done_[slot]));
  return slots_.data() + slot * slot_bytes_;
}

void HostStaging::upload(void* device, const void* host, size_t bytes, cudaStream_t st) {
  if (!stage_in_ || bytes > slot_bytes_) {
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyDefault, st));
    return;
  }
  finish();  // a download's slot is free only once its bytes are out
  unsigned slot;
  unsigned char* p = take_slot(slot);
  io::parallel_copy(p, host, bytes, threads_);  // while the slice before is on its way
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(device, p, bytes, cudaMemcpyHostToDevice, st));
  GXSORT_CUDA_CHECK(cudaEventRecord(dma_done_[slot], st));
}

void HostStaging::download(void* host, const void* device, size_t bytes, cudaStream_t st) {
  if (!stage_out_ || bytes > slot_bytes_) {
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDefault, st));
    return;
  }
  unsigned slot;
  unsigned char* p = take_slot(slot);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(p, device, bytes, cudaMemcpyDeviceToHost, st));
  GXSORT_CUDA_CHECK(cudaEventRecord(dma_done_[slot], st));
  finish();  // the slice before, while this one is on its way
  pending_ = Pending{host, bytes, slot};
}

void HostStaging::finish() {
  if (!pending_.host) return;
  GXSORT_CUDA_CHECK(cudaEventSynchronize(dma_done_[pending_.slot]));
  io::parallel_copy(pending_.host, slots_.data() + pending_.slot * slot_bytes_, pending_.bytes, threads_);
  pending_ = Pending{};
}

}  // namespace gxsort::cuda
