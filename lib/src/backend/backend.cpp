// Default implementations shared by every backend.
#include "backend/backend.hpp"

#include <cstring>

namespace gxsort {

void Backend::sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                        const SortedRecords& sorted) {
  if (n == 0) return;
  std::memcpy(dst, src, n * f.record_size);
  HostBuffer scratch = allocate_host(sort_scratch_bytes(f, n));
  sort_chunk(f, dst, n, scratch.data());
  if (sorted) sorted(0, n);
}

}  // namespace gxsort
