// PLACEHOLDER (replaced by the helper that writes GNU's comparison): whole lines as bytes.
#include "lines/prefix.hpp"

namespace gxsort::lines {

bool prefix_goes_deeper(const LineOrder& order) { return order.keys.empty(); }

uint64_t line_prefix(const LineOrder& order, std::string_view line, size_t depth, bool& exhausted) {
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i)
    p = (p << 8) | (depth + i < line.size() ? static_cast<unsigned char>(line[depth + i]) : 0);
  exhausted = line.size() <= depth + 8;
  return order.reverse ? ~p : p;
}

}  // namespace gxsort::lines
