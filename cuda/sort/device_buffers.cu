// The in-memory API's device buffers (gxsort/memory.hpp): a caller's records in device
// memory sorted by the device sort of run formation (sort_flat.cu, sort_records.cu), whose
// copies in and out then go device to device: no host round trip. The caller's stream is
// joined into the backend's streams before the sort; the call returns when it is done.
#include <algorithm>

#include <thrust/copy.h>
#include <thrust/sequence.h>
#include <thrust/system_error.h>
#include <thrust/system/cuda/execution_policy.h>

#include "cuda_backend.cuh"
#include "sort/caller_buffers.cuh"
#include "sort/sort_dispatch.cuh"

namespace gxsort::cuda {

uint64_t CudaBackend::device_records_need(const Format& f, size_t n, bool argsort) const {
  const uint64_t spare = uint64_t(16) << 20;
  if (argsort) return record_sort_working_set(f, n) + spare;
  return (f.flat() ? flat_in_place_working_set(f, n) : sort_working_set(f, n)) + spare;
}

// One device sort takes 2^31 records (CUB's item counts are int), within the budget the
// backend was made with and the memory free now (the arena's own reservation counted free).
bool CudaBackend::device_records_fit(const Format& f, size_t n, bool argsort) const {
  return n <= SortPolicy::kMaxRecords && device_need_fits(device_records_need(f, n, argsort));
}

bool CudaBackend::device_need_fits(uint64_t need) const {
  if (need > limit_) return false;
  if (mem_->base() && need <= mem_->budget()) return true;  // the arena holds it already: no driver query
  set_device();
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return need <= free_b + (mem_->base() ? mem_->budget() : 0);
}

// A backend that serves many calls (a DeviceWorkspace) keeps its arena between them: one
// cudaMalloc and cudaFree a call cost more than a small sort. It is made anew when this call
// needs more, or holds more than twice what it needs (memory other libraries on the GPU,
// CuPy's pool, may want); a fresh backend's arena (its whole budget, not yet reserved) is
// fitted to the first call the same way.
void CudaBackend::fit_arena_to(uint64_t bytes) {
  bytes = std::min<uint64_t>(bytes, limit_);
  const uint64_t have = mem_->budget();
  if (mem_->live_allocations() != 0 || (bytes <= have && have <= 2 * bytes + (uint64_t(64) << 20))) return;
  set_device();
  mem_.reset();  // the old arena first: both may not fit together
  mem_ = std::make_unique<DeviceMemory>(int(device_), size_t(bytes));
}

void CudaBackend::release_device_memory() {
  std::lock_guard<std::mutex> lk(sort_mu_);
  if (mem_->live_allocations() != 0 || !mem_->base()) return;
  set_device();
  mem_.reset();
  // One block, never reserved: the next call fits it to its need (fit_arena_to). Not
  // limit_: the memory free when the backend was made may be taken by now.
  mem_ = std::make_unique<DeviceMemory>(int(device_), DeviceMemory::kAlignment);
}

void CudaBackend::copy_from_device(void* host, const void* device, size_t bytes, uintptr_t stream) {
  if (bytes == 0) return;
  set_device();
  check_device_pointer(device, device_, "records");
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaBackend::copy_to_device(void* device, const void* host, size_t bytes, uintptr_t stream) {
  if (bytes == 0) return;
  set_device();
  check_device_pointer(device, device_, "output");
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaBackend::copy_on_device(void* to, const void* from, size_t bytes, uintptr_t stream) {
  if (bytes == 0) return;
  set_device();
  check_device_pointer(from, device_, "records");
  check_device_pointer(to, device_, "output");
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
}

// Flat keys sort where they lie (made there from `from` by the first pass); other records
// go through the arena. The caller (api/device_calls.cpp) asked device_records_fit first.
void CudaBackend::sort_device_records(const Format& f, const void* from, void* records, size_t n, uintptr_t stream) {
  if (n < 2) return copy_on_device(records, from, from == records ? 0 : n * f.record_size, stream);
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  if (from != records) check_device_pointer(from, device_, "input");
  if (n > SortPolicy::kMaxRecords) require_sort_fits(f, n);  // (throws: one device sort's limit)
  fit_arena_to(device_records_need(f, n, false));
  if (f.flat() && flat_in_place_working_set(f, n) > mem_->largest_free())
    throw Error(ExitCode::io, "device memory budget exceeded: sorting " + std::to_string(n) + " keys in place needs " +
                                  format_bytes(flat_in_place_working_set(f, n)) + " of device memory (budget " +
                                  format_bytes(mem_->budget()) + ")");
  if (!f.flat()) require_sort_fits(f, n);
  SortBuffers w;  // outlives the try block: its buffers go back only after the streams drained
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    const auto* in = static_cast<const unsigned char*>(from);
    auto* out = static_cast<unsigned char*>(records);
    if (f.flat()) sort_flat_in_place_on_device(c, f, in, out, n, w);
    else sort_records_on_device(c, f, in, out, n, w);
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
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  check_device_pointer(perm, device_, "permutation");
  if (n > SortPolicy::kMaxRecords)
    throw Error(ExitCode::io, "an argsort of " + std::to_string(n) + " records on the device: one device sort takes " +
                                  std::to_string(SortPolicy::kMaxRecords) + " records at most");
  fit_arena_to(device_records_need(f, n, true));
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
