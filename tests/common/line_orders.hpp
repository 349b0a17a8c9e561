// Text lines' orders for tests, made from GNU sort's options as line_order resolves them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gxsort/lines.hpp"

namespace gxsort_test {

// LC_ALL=C sort -k KEYS... -GLOBAL -t SEPARATOR [-s] [-u] [-z when terminator is NUL].
inline gxsort::LineOrder gnu_line_order(std::vector<std::string> keys, std::string global = "",
                                        std::string separator = "", bool stable = false, bool unique = false,
                                        char terminator = '\n') {
  gxsort::LineOptions o;
  o.keys = std::move(keys);
  o.global = std::move(global);
  o.separator = std::move(separator);
  o.stable = stable;
  o.unique = unique;
  o.zero_terminated = terminator == '\0';
  return gxsort::line_order(o);
}

}  // namespace gxsort_test
