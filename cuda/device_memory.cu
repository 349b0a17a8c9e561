// The device memory manager: see device_memory.cuh for the design.
#include "device_memory.cuh"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

namespace gxsort::cuda {

namespace {
constexpr double kDefaultFreeFraction = 0.80;  // the budget when --device-memory is not given
}

size_t device_budget(const SizeOption& budget, size_t free_bytes, size_t total_bytes) {
  if (!budget.given) return size_t(double(free_bytes) * kDefaultFreeFraction);
  const uint64_t bytes = budget.of(free_bytes);
  if (bytes < 1) fail_usage(option_ref("device-memory") + ": the device memory budget must be at least 1 byte");
  if (bytes > total_bytes)
    fail_usage(option_ref("device-memory") + ": budget " + format_bytes(bytes) + " exceeds the device's total memory " +
               format_bytes(total_bytes));
  return size_t(bytes);
}

DeviceMemory::DeviceMemory(int device, const SizeOption& budget) {
  GXSORT_CUDA_CHECK(cudaSetDevice(device));
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  init(device, device_budget(budget, free_b, total_b));
}

DeviceMemory::DeviceMemory(int device, size_t budget_bytes) { init(device, budget_bytes); }

void DeviceMemory::init(int device, size_t budget_bytes) {
  device_ = device;
  budget_ = budget_bytes / kAlignment * kAlignment;
  if (budget_ == 0)
    throw Error(ExitCode::usage, "device memory budget of " + format_bytes(budget_bytes) +
                                     " is smaller than one " + std::to_string(kAlignment) + "-byte block");
  GXSORT_CUDA_CHECK(cudaSetDevice(device));
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (budget_ > free_b)
    throw Error(ExitCode::io, "device memory budget " + format_bytes(budget_) + " exceeds the free memory of device " +
                                  std::to_string(device) + " (" + format_bytes(free_b) + " free of " +
                                  format_bytes(total_b) + "); lower " + option_ref("device-memory"));
  free_[0] = budget_;
}

// The arena is reserved at its first allocation, not when the budget is set: a budget
// fitted to the job first (CudaBackend::fit_device_budget) then never reserves the
// default one (111 GiB of an H200 took 0.19 s to reserve and 0.08 s to free, 16 GiB 0.003
// and 0.013 s: docs/benchmarks.md, sixteenth session).
void DeviceMemory::reserve() {
  GXSORT_CUDA_CHECK(cudaSetDevice(device_));
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, budget_);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // an allocation failure is not sticky; clear it for later calls
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw Error(ExitCode::io, "cannot reserve the device memory budget of " + format_bytes(budget_) +
                                  " on device " + std::to_string(device_) + " (" + format_bytes(free_b) +
                                  " reported free); lower " + option_ref("device-memory"));
  }
  if (e != cudaSuccess) throw_cuda(e, "cudaMalloc(device memory arena)", __FILE__, __LINE__);
  base_ = static_cast<unsigned char*>(p);
}

DeviceMemory::~DeviceMemory() {
  if (base_) {
    // Destructors must not throw; a failure here means the context is already gone.
    cudaSetDevice(device_);
    cudaFree(base_);
  }
}

DeviceAllocation DeviceMemory::allocate(size_t bytes, const std::string& what) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!base_) reserve();
  const size_t need = bytes > budget_ ? 0 : round_up(bytes);
  if (need != 0) {
    // First fit in address order: keeps the low end packed and large blocks at the top.
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < need) continue;
      const size_t off = it->first, size = it->second;
      free_.erase(it);
      if (size > need) free_[off + need] = size - need;
      used_[off] = need;
      in_use_ += need;
      if (in_use_ > peak_) peak_ = in_use_;
      return DeviceAllocation(this, base_ + off, bytes);
    }
  }
  size_t largest = 0;
  for (const auto& fb : free_) largest = std::max(largest, fb.second);
  std::string msg = "device memory budget exceeded: requested " + format_bytes(bytes) + " for " + what +
                    ", budget " + format_bytes(budget_) + ", " + format_bytes(in_use_) + " in use";
  if (bytes <= budget_ - in_use_) msg += " (largest free block " + format_bytes(largest) + ")";
  throw Error(ExitCode::io, msg);
}

void DeviceMemory::release(void* p) {
  std::lock_guard<std::mutex> lk(mu_);
  const size_t off = size_t(static_cast<unsigned char*>(p) - base_);
  auto u = used_.find(off);
  if (u == used_.end()) return;  // not ours: cannot happen through DeviceAllocation
  size_t start = off, size = u->second;
  in_use_ -= size;
  used_.erase(u);
  // Coalesce with the free block just after, then the one just before.
  auto next = free_.find(start + size);
  if (next != free_.end()) {
    size += next->second;
    free_.erase(next);
  }
  auto after = free_.lower_bound(start);
  if (after != free_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = size;
}

size_t DeviceMemory::in_use() const {
  std::lock_guard<std::mutex> lk(mu_);
  return in_use_;
}
size_t DeviceMemory::peak() const {
  std::lock_guard<std::mutex> lk(mu_);
  return peak_;
}
void DeviceMemory::reset_peak() {
  std::lock_guard<std::mutex> lk(mu_);
  peak_ = in_use_;
}
size_t DeviceMemory::largest_free() const {
  std::lock_guard<std::mutex> lk(mu_);
  size_t largest = 0;
  for (const auto& fb : free_) largest = std::max(largest, fb.second);
  return largest;
}
size_t DeviceMemory::live_allocations() const {
  std::lock_guard<std::mutex> lk(mu_);
  return used_.size();
}

}  // namespace gxsort::cuda
