#include "backend/touched_pages.hpp"

#include <sys/mman.h>

#include <algorithm>

#include "parallel/parallel_for.hpp"

namespace gxsort {

unsigned char* map_touched_pages(size_t length, unsigned threads) {
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ::madvise(p, length, MADV_HUGEPAGE);  // fewer faults where transparent huge pages are on
  auto* base = static_cast<unsigned char*>(p);
  constexpr size_t kPart = size_t(16) << 20;
  parallel::parallel_for((length + kPart - 1) / kPart, threads, [&](size_t k) {
    for (size_t at = k * kPart; at < std::min(length, (k + 1) * kPart); at += 4096) base[at] = 0;
  });
  return base;
}

}  // namespace gxsort
