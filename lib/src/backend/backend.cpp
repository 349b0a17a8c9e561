// Default implementations shared by every backend.
#include "backend/backend.hpp"

#include <algorithm>
#include <cstring>

#include "io/file.hpp"
#include "plan/sizes.hpp"

namespace gxsort {
namespace {

// memcpy split over every core in 64 MiB pieces (page-cache and fresh-page copies are
// not bandwidth-bound on one thread).
void parallel_copy(unsigned char* dst, const unsigned char* src, size_t bytes) {
  const size_t piece = size_t(64) << 20;
  io::parallel_tasks((bytes + piece - 1) / piece, hardware_threads(), [&](size_t i) {
    const size_t b = i * piece;
    std::memcpy(dst + b, src + b, std::min(piece, bytes - b));
  });
}

}  // namespace

void Backend::sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                        const SortedRecords& sorted) {
  if (n == 0) return;
  // Sorted in a buffer of allocate_host (pinned on a device backend: data never crosses
  // PCIe from pageable memory such as a mapping), then copied into dst.
  const size_t bytes = n * f.record_size;
  HostBuffer data = allocate_host(bytes);
  parallel_copy(data.data(), src, bytes);
  HostBuffer scratch = allocate_host(sort_scratch_bytes(f, n));
  sort_chunk(f, data.data(), n, scratch.data());
  parallel_copy(dst, data.data(), bytes);
  if (sorted) sorted(0, n);
}

}  // namespace gxsort
