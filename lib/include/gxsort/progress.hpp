// Progress reporting: the library never prints; it calls this with the phase name,
// the work done and the total (bytes), and the app decides what to draw.
#pragma once
#include <cstdint>
#include <functional>

namespace gxsort {
using ProgressFn = std::function<void(const char* phase, uint64_t done, uint64_t total)>;
}
