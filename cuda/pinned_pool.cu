// Pinned host buffers: see pinned_pool.cuh.
#include "pinned_pool.cuh"

#include <mutex>
#include <unordered_map>

#include "cuda_check.cuh"
#include "device_memory.cuh"

namespace gxsort::cuda {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<const unsigned char*, size_t> sizes;
  size_t in_use = 0;
  size_t peak = 0;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: buffers may be freed during static teardown
  return *r;
}

void release_pinned(unsigned char* p) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.sizes.find(p);
    if (it != r.sizes.end()) {
      r.in_use -= it->second;
      r.sizes.erase(it);
    }
  }
  cudaFreeHost(p);  // a destructor path: errors cannot be reported, and the memory is gone either way
}

}  // namespace

HostBuffer allocate_pinned(size_t bytes) {
  if (bytes == 0) return HostBuffer();
  void* p = nullptr;
  cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it: a failed pin leaves the device usable
    throw OutOfMemory(bytes, "cannot pin " + format_bytes(bytes) + " of host memory (" +
                                 format_bytes(pinned_bytes_in_use()) + " already pinned): " + cudaGetErrorString(e));
  }
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    r.sizes[static_cast<unsigned char*>(p)] = bytes;
    r.in_use += bytes;
    if (r.in_use > r.peak) r.peak = r.in_use;
  }
  return HostBuffer(static_cast<unsigned char*>(p), bytes, &release_pinned);
}

size_t pinned_bytes_in_use() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lk(r.mu);
  return r.in_use;
}

size_t pinned_bytes_peak() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lk(r.mu);
  return r.peak;
}

}  // namespace gxsort::cuda
