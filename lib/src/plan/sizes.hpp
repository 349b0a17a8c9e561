// The machine's sizes: memory and threads. (Sizes as users write them:
// gxsort/options.hpp, parse_size_option and format_bytes.)
#pragma once
#include <cstdint>
#include <string>

#include "gxsort/options.hpp"

namespace gxsort {

uint64_t physical_memory_bytes();
// What the kernel says is available for new data without swapping (MemAvailable:
// free memory and the page cache it could reclaim); half the RAM where not known.
uint64_t available_memory_bytes();

}  // namespace gxsort
