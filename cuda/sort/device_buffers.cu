// The in-memory API's device buffers (gxsort/memory.hpp): a caller's records in device
// memory sorted by the device sort of run formation (sort_flat.cu, sort_records.cu), whose
// copies in and out then go device to device: no host round trip. The caller's stream is
// joined into the backend's streams before the sort; the call returns when it is done.
#include <thrust/copy.h>
#include <thrust/sequence.h>
#include <thrust/system_error.h>
#include <thrust/system/cuda/execution_policy.h>

#include "cuda_backend.cuh"
#include "sort/sort_dispatch.cuh"

namespace gxsort::cuda {
namespace {

// `p` must be memory of `device` that kernels can read (device or managed memory).
void check_device_pointer(const void* p, unsigned device, const char* what) {
  cudaPointerAttributes a;
  GXSORT_CUDA_CHECK(cudaPointerGetAttributes(&a, p));
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    throw DeviceError(std::string("a device buffer: the ") + what + " pointer is not CUDA device memory");
  if (a.type == cudaMemoryTypeDevice && a.device != int(device))
    throw DeviceError(std::string("a device buffer: the ") + what + " is on CUDA device " + std::to_string(a.device) +
                      ", the sort's device is " + std::to_string(device) + " (MemoryOptions::device_index)");
}

// The work queued on the caller's stream so far comes before the sort's.
void wait_for_caller(const SortContext& c, uintptr_t stream) {
  GXSORT_CUDA_CHECK(cudaEventRecord(c.ev, reinterpret_cast<cudaStream_t>(stream)));
  GXSORT_CUDA_CHECK(cudaStreamWaitEvent(c.s[0], c.ev, 0));
  GXSORT_CUDA_CHECK(cudaStreamWaitEvent(c.s[1], c.ev, 0));
}

}  // namespace

// The arena is fitted to this one sort before it is reserved (not 80% of the GPU's free
// memory): another call's backend on the same GPU, at the same time, has room too.
void CudaBackend::sort_device_records(const Format& f, void* records, size_t n, uintptr_t stream) {
  if (n < 2) return;
  const bool in_place = f.flat() && n <= SortPolicy::kMaxRecords;  // flat keys sort where they lie
  if (in_place) {
    set_device();
    fit_device_budget(flat_in_place_working_set(f, n) + (uint64_t(16) << 20));
  } else {
    fit_device_to_sorts(*this, f, n);
  }
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  if (in_place && flat_in_place_working_set(f, n) > mem_->largest_free())
    throw Error(ExitCode::io, "device memory budget exceeded: sorting " + std::to_string(n) + " keys in place needs " +
                                  format_bytes(flat_in_place_working_set(f, n)) + " of device memory (budget " +
                                  format_bytes(mem_->budget()) + ")");
  if (!in_place) require_sort_fits(f, n);
  SortBuffers w;  // outlives the try block: its buffers go back only after the streams drained
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    if (in_place) sort_flat_in_place_on_device(c, f, static_cast<unsigned char*>(records), n, w);
    else if (f.flat()) sort_flat_on_device(c, f, static_cast<unsigned char*>(records), n, w);
    else sort_records_on_device(c, f, static_cast<unsigned char*>(records), n, w);
  } catch (...) {
    drain();
    throw;
  }
}

// The record sort's passes give the permutation (u32 indices) in the arena; it is
// widened into perm (the identity when no pass moved anything).
void CudaBackend::argsort_device_records(const Format& f, const void* records, size_t n, uint64_t* perm,
                                         uintptr_t stream) {
  if (n == 0) return;
  if (n <= SortPolicy::kMaxRecords) {
    set_device();
    fit_device_budget(record_sort_working_set(f, n) + (uint64_t(16) << 20));
  }
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  check_device_pointer(perm, device_, "permutation");
  if (n > SortPolicy::kMaxRecords)
    throw Error(ExitCode::io, "an argsort of " + std::to_string(n) + " records on the device: one device sort takes " +
                                  std::to_string(SortPolicy::kMaxRecords) + " records at most");
  SortBuffers w;
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    allocate_record_sort(c, f, n, w);
    const uint32_t* sorted = sort_record_passes(c, f, static_cast<const unsigned char*>(records), n, w);
    const auto on_stream = thrust::cuda::par.on(c.s[0]);
    if (sorted) thrust::copy(on_stream, sorted, sorted + n, perm);
    else thrust::sequence(on_stream, perm, perm + n);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  } catch (const thrust::system_error& e) {
    drain();
    throw DeviceError(std::string("argsort on the device: ") + e.what());
  } catch (...) {
    drain();
    throw;
  }
}

}  // namespace gxsort::cuda
