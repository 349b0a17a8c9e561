// Byte sizes as users write them (--memory 4G, --memory 25%) and as we print them.
#pragma once
#include <cstdint>
#include <string>

namespace gxsort {

// "123", "64K", "1.5G", "2T" (powers of 1024; a trailing B or iB is allowed), or
// "N%" of `percent_base`. Throws usage Error naming `option` on bad text.
uint64_t parse_size(const std::string& text, uint64_t percent_base, const std::string& option);
std::string format_bytes(uint64_t bytes);   // "1.5 GiB"
uint64_t physical_memory_bytes();
// What the kernel says is available for new data without swapping (MemAvailable:
// free memory and the page cache it could reclaim); half the RAM where not known.
uint64_t available_memory_bytes();
unsigned hardware_threads();

}  // namespace gxsort
