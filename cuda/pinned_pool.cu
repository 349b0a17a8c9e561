// Pinned host buffers: see pinned_pool.cuh.
#include "pinned_pool.cuh"

#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "gxsort/options.hpp"
#include "backend/touched_pages.hpp"

namespace gxsort::cuda {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<const unsigned char*, size_t> sizes;
  size_t in_use = 0;
  size_t peak = 0;
};

// Whole pages: what a buffer of `bytes` maps and pins.
size_t mapped_length(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

Registry& registry() {
  // process-wide: pinned pages (cudaHostRegister) are the process's: the sizes of those pinned now.
  static Registry* r = new Registry;  // never destroyed: buffers may be freed during static teardown
  return *r;
}

void release_pinned(unsigned char* p) {
  Registry& r = registry();
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.sizes.find(p);
    if (it != r.sizes.end()) {
      bytes = it->second;
      r.in_use -= it->second;
      r.sizes.erase(it);
    }
  }
  // A destructor path: errors cannot be reported, and the memory is gone either way.
  cudaHostUnregister(p);
  ::munmap(p, mapped_length(bytes));
}

}  // namespace

// Pages mapped, touched on many threads, then pinned: cudaHostAlloc zeroes and pins its
// pages on one thread, 1.5-1.9 s for an out-of-core process's run buffers on the 4x
// H200 host (tools/bench/pinned_alloc compares the ways). Huge pages, where the kernel
// gives them, mean fewer faults and fewer pages to pin.
HostBuffer allocate_pinned(size_t bytes) {
  if (bytes == 0) return HostBuffer();
  const size_t length = mapped_length(bytes);
  auto refused = [&](const std::string& why) {
    return OutOfMemory(bytes, "cannot pin " + format_bytes(bytes) + " of host memory (" +
                                  format_bytes(pinned_bytes_in_use()) + " already pinned): " + why);
  };
  // Sixteen threads fault pages faster than the pinning that follows takes them.
  unsigned char* base = map_touched_pages(length, std::min(16u, default_threads()));
  if (!base) throw refused("no memory to map");
  const cudaError_t e = cudaHostRegister(base, length, cudaHostRegisterPortable | cudaHostRegisterMapped);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it: a failed pin leaves the device usable
    ::munmap(base, length);
    throw refused(cudaGetErrorString(e));
  }
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    r.sizes[base] = bytes;
    r.in_use += bytes;
    if (r.in_use > r.peak) r.peak = r.in_use;
  }
  return HostBuffer(base, bytes, &release_pinned);
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
