// Anonymous host memory whose pages are faulted in on many threads before use: one
// thread faulting gigabytes (a copy into fresh pages, or cudaHostAlloc's zeroing) is
// the bound where many copy at once.
#pragma once
#include <cstddef>

namespace gxsort {

// `length` bytes (whole pages) mapped private and anonymous, huge pages advised, every
// page written once on up to `threads` threads; null when the mapping fails. munmap it.
unsigned char* map_touched_pages(size_t length, unsigned threads);

}  // namespace gxsort
