// CudaBackend: the device merge of output windows, check and the reductions, each through
// the backend's memory manager and its first stream.
#include <algorithm>

#include "check_kernels.cuh"
#include "cuda_backend.cuh"
#include "cuda_check.cuh"
#include "merge/merge.cuh"
#include "reduce/reduce_kernels.cuh"
#include "window_merge.cuh"

namespace gxsort::cuda {

namespace {
// "auto" is the fastest correct kernel measured (docs/merge-kernels.md).
MergeKernel pick_kernel(MergeKernel k) {
  return k == MergeKernel::automatic ? MergeKernel::circular : k;
}
}  // namespace

size_t CudaBackend::max_window_records(const Format& f) const {
  if (!f.key_fits_prefix()) return max_chunk_records(f);
  const size_t avail = mem_->largest_free();
  const size_t per = window_merge_device_bytes(f, 1 << 20, MergeKernel::circular) / (1 << 20) + 1;
  const size_t slack = window_merge_device_bytes(f, 0, MergeKernel::circular);
  // Half the budget at most: merge temp storage and the arena's rounding need room.
  return avail > 2 * slack ? (avail - 2 * slack) / per / 2 * 2 : 0;
}

void CudaBackend::merge_window(const Format& f, unsigned char* records, const std::vector<uint64_t>& slices,
                               MergeKernel kernel) {
  uint64_t m = 0;
  size_t nonempty = 0;
  for (uint64_t c : slices) { m += c; nonempty += c > 0; }
  if (nonempty < 2) return;  // one slice is already merged
  if (!f.key_fits_prefix()) {
    // Stable sort of slices in run order = stable merge with ties to the earlier run.
    sort_chunk(f, records, size_t(m), nullptr);
    return;
  }
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  try {
    cuda::merge_window(*mem_, f, records, slices, pick_kernel(kernel), streams_[0]);
  } catch (...) {
    drain();
    throw;
  }
}

CheckPartial CudaBackend::check_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index) {
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  DeviceAllocation data = mem_->allocate(std::max<size_t>(n * f.record_size, 1), "check chunk");
  try {
    if (n) GXSORT_CUDA_CHECK(cudaMemcpyAsync(data.get(), records, n * f.record_size, cudaMemcpyHostToDevice, streams_[0]));
    return check_chunk_gpu(*mem_, f, static_cast<const unsigned char*>(data.get()), n, first_index, streams_[0]);
  } catch (...) {
    drain();
    throw;
  }
}

ReducePartial CudaBackend::reduce_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index,
                                        ReduceAlgo a) {
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  DeviceAllocation data = mem_->allocate(std::max<size_t>(n * f.record_size, 1), "reduce chunk");
  const size_t tb = reduce_gpu_temp_bytes(a, f, n);
  DeviceAllocation temp = mem_->allocate(std::max<size_t>(tb, 1), "reduce temp storage");
  try {
    if (n) GXSORT_CUDA_CHECK(cudaMemcpyAsync(data.get(), records, n * f.record_size, cudaMemcpyHostToDevice, streams_[0]));
    return reduce_chunk_gpu(a, f, static_cast<const unsigned char*>(data.get()), n, first_index, temp.get(), tb,
                            streams_[0]);
  } catch (...) {
    drain();
    throw;
  }
}

}  // namespace gxsort::cuda
