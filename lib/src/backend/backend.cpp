// Default implementations shared by every backend.
#include "backend/backend.hpp"

#include "graph/graph.hpp"
#include "io/file.hpp"
#include "kernels/key_bitmap.hpp"

namespace gxsort {

void Backend::sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                        const SortedRecords& sorted) {
  if (n == 0) return;
  // Sorted in a buffer of allocate_host (pinned on a device backend: data never crosses
  // PCIe from pageable memory such as a mapping), then copied into dst.
  const size_t bytes = n * f.record_size;
  HostBuffer data = allocate_host(bytes);
  io::parallel_copy(data.data(), src, bytes, host_threads());
  HostBuffer scratch = allocate_host(sort_scratch_bytes(f, n));
  sort_chunk(f, data.data(), n, scratch.data());
  io::parallel_copy(dst, data.data(), bytes, host_threads());
  if (sorted) sorted(0, n);
}

void Backend::sort_device_records(const Format&, const void*, void*, size_t, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

void Backend::argsort_device_records(const Format&, const void*, size_t, uint64_t*, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

size_t Backend::unique_device_records(const Format&, const void*, size_t, void*, uint64_t*, uint64_t*, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

size_t Backend::first_unsorted_device(const Format&, const void*, size_t, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

void Backend::merge_device_records(const Format&, const std::vector<DeviceSlice>&, void*, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

void Backend::copy_from_device(void*, const void*, size_t, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

void Backend::copy_to_device(void*, const void*, size_t, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

void Backend::copy_on_device(void*, const void*, size_t, uintptr_t) {
  throw DeviceError("a device buffer: the " + name() + " backend has no device memory");
}

std::vector<graph::BfsRun> Backend::bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources) {
  return bfs(g, sources, graph::plan_bfs_device(g.n, g.m, device_budget()));
}

std::unique_ptr<KeyBitmap> Backend::make_key_bitmap(const Format& f, size_t, uint64_t host_budget) {
  if (host_budget < kBitmapBytes) return nullptr;
  return make_cpu_key_bitmap(f, 0);
}

bool fit_device_to_sorts(Backend& b, const Format& f, uint64_t n, uint64_t beside) {
  if (n < 2 || n > b.max_chunk_records(f)) return false;  // (0 on a backend without a device)
  uint64_t need = b.sort_device_bytes(f, size_t(n));
  if (beside) need += b.sort_device_bytes(f, size_t(beside));
  return b.fit_device_budget(need + (uint64_t(16) << 20));
}

}  // namespace gxsort
