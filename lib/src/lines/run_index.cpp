#include "lines/run_index.hpp"

#include <algorithm>

namespace gxsort::lines {

uint64_t sample_interval(uint64_t run_bytes, uint64_t lines, uint64_t budget) {
  constexpr uint64_t kMinInterval = uint64_t(64) << 10;
  const uint64_t average = std::min<uint64_t>(run_bytes / std::max<uint64_t>(lines, 1), kMaxSampleLine);
  const uint64_t samples = std::max<uint64_t>(budget / sample_bytes(size_t(average)), 1);
  return std::max(kMinInterval, run_bytes / samples + 1);
}

}  // namespace gxsort::lines
