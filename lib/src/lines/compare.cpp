// PLACEHOLDER (replaced by the helper that writes GNU's comparison): whole lines as bytes.
#include <cstring>

#include "gxsort/lines.hpp"

namespace gxsort {

namespace {
int bytes_compare(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), a.size() < b.size() ? a.size() : b.size());
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}
}  // namespace

int compare_line_keys(const LineOrder& order, std::string_view a, std::string_view b) {
  if (order.keys.empty()) return order.unique ? (order.reverse ? -bytes_compare(a, b) : bytes_compare(a, b)) : 0;
  return 0;
}

int compare_lines(const LineOrder& order, std::string_view a, std::string_view b) {
  const int k = compare_line_keys(order, a, b);
  if (k != 0 || order.stable || order.unique) return k;
  return order.reverse ? -bytes_compare(a, b) : bytes_compare(a, b);
}

}  // namespace gxsort
