// The CUDA backend class: the device, its arena, streams and pinned landing places, and
// run formation (sort_chunk) through the device sort in cuda/sort/ (sort_dispatch.cuh
// says which file does what). The other Backend calls live beside it:
// cuda_backend_merge_reduce.cu, cuda_backend_dedupe.cu, cuda_backend_bfs.cu and
// sort/resident_sort.cu.
#include "cuda_backend.cuh"

#include <algorithm>
#include <cstring>

#include "cuda_check.cuh"
#include "pinned_pool.cuh"
#include "sort/sort_dispatch.cuh"

namespace gxsort::cuda {

CudaBackend::CudaBackend(unsigned device, const SizeOption& device_memory) : device_(device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError();
    throw Error(ExitCode::device, std::string("no usable CUDA device: ") +
                                      (e != cudaSuccess ? cudaGetErrorString(e) : "none visible"));
  }
  if (int(device) >= count)
    throw Error(ExitCode::device, "CUDA device " + std::to_string(device) + " does not exist (" +
                                      std::to_string(count) + " visible)");
  set_device();
  // One attribute, not cudaGetDeviceProperties (which reads them all): an in-memory call
  // makes a backend each time. The name is read when asked for.
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, int(device)));
  mem_ = std::make_unique<DeviceMemory>(int(device), device_memory);
  limit_ = mem_->budget();
  for (auto& s : streams_) GXSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GXSORT_CUDA_CHECK(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming));
}

CudaBackend::~CudaBackend() {
  cudaSetDevice(int(device_));
  drain();
  if (joined_) cudaEventDestroy(joined_);
  for (auto& s : streams_)
    if (s) cudaStreamDestroy(s);
}

void CudaBackend::set_device() const { GXSORT_CUDA_CHECK(cudaSetDevice(int(device_))); }

void CudaBackend::drain() noexcept {
  for (auto& s : streams_)
    if (s) cudaStreamSynchronize(s);
}

std::string CudaBackend::name() const {
  cudaDeviceProp prop;
  GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, int(device_)));
  return "cuda:" + std::to_string(device_) + " (" + prop.name + ")";
}

HostBuffer CudaBackend::allocate_host(size_t bytes) { return allocate_pinned(bytes); }

size_t CudaBackend::sort_scratch_bytes(const Format&, size_t) const { return 0; }

DeviceInfo CudaBackend::info() const {
  set_device();
  DeviceInfo d;
  cudaDeviceProp prop;
  GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, int(device_)));
  d.name = prop.name;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&d.free_memory, &d.total_memory));
  d.budget = mem_->budget();
  d.multiprocessors = prop.multiProcessorCount;
  d.major = prop.major;
  d.minor = prop.minor;
  return d;
}

size_t CudaBackend::sort_device_bytes(const Format& f, size_t n) const {
  set_device();
  return sort_working_set(f, n);
}

bool CudaBackend::fit_device_budget(uint64_t bytes) {
  std::unique_lock<std::mutex> lk(sort_mu_, std::try_to_lock);  // not while a sort holds the arena
  if (!lk.owns_lock() || bytes >= mem_->budget() || mem_->live_allocations() != 0) return false;
  set_device();
  mem_.reset();  // the old arena first: both may not fit together
  mem_ = std::make_unique<DeviceMemory>(int(device_), size_t(bytes));
  return true;
}

size_t CudaBackend::max_chunk_records(const Format& f) const {
  const size_t avail = mem_->largest_free();
  if (avail <= SortPolicy::kRoundingSlack) return 0;
  const size_t per = sort_bytes_per_record(f);
  size_t n = std::min(SortPolicy::kMaxRecords, (avail - SortPolicy::kRoundingSlack) / per);
  // CUB's temp storage grows more slowly than n: trim until the whole working set fits.
  for (int i = 0; i < 64 && n > 0; ++i) {
    const size_t need = sort_device_bytes(f, n);
    if (need <= avail) break;
    n -= std::min(n, (need - avail) / per + 1);
  }
  return n;
}

void CudaBackend::sort_chunk(const Format& f, unsigned char* records, size_t n, unsigned char* /*scratch*/) {
  if (n >= 2) sort_between(f, records, records, n);
}

void CudaBackend::sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                            const SortedRecords& sorted) {
  if (n == 0) return;
  if (n == 1) std::memcpy(dst, src, f.record_size);
  else sort_between(f, src, dst, n);
  if (sorted) sorted(0, n);
}

void CudaBackend::sort_between(const Format& f, const unsigned char* in, unsigned char* out, size_t n) {
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  require_sort_fits(f, n);
  SortBuffers w;  // outlives the try block: its buffers go back only after the streams drained
  try {
    if (f.flat()) sort_flat_on_device(sort_context(), f, in, out, n, w);
    else sort_records_on_device(sort_context(), f, in, out, n, w);
  } catch (...) {
    drain();
    throw;
  }
}

void CudaBackend::require_sort_fits(const Format& f, size_t n) const {
  if (n > SortPolicy::kMaxRecords)  // CUB's item counts are int: one device sort takes 2^31 records at most
    throw Error(ExitCode::io, "sorting " + std::to_string(n) + " records on the device: one device sort takes " +
                                  std::to_string(SortPolicy::kMaxRecords) + " records at most");
  if (sort_device_bytes(f, n) > mem_->largest_free()) {
    throw Error(ExitCode::io, "device memory budget exceeded: sorting " + std::to_string(n) + " records of " +
                                  std::to_string(f.record_size) + " bytes needs " + format_bytes(sort_device_bytes(f, n)) +
                                  " of device memory; at most " + std::to_string(max_chunk_records(f)) +
                                  " records fit (budget " + format_bytes(mem_->budget()) + ", " +
                                  format_bytes(mem_->in_use()) + " in use)");
  }
}

SortContext CudaBackend::sort_context() const {
  return SortContext{{streams_[0], streams_[1]}, joined_, mem_.get(), bits_host_,
                     unsigned(multiprocessors_ * SortPolicy::kBlocksPerSM), host_threads()};
}

}  // namespace gxsort::cuda
