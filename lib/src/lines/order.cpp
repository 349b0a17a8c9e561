// PLACEHOLDER (replaced by the helper that writes GNU's key parsing): no options only.
#include "gxsort/error.hpp"
#include "gxsort/lines.hpp"

namespace gxsort {

LineOrder line_order(const LineOptions& o) {
  if (!o.keys.empty() || !o.global.empty() || !o.separator.empty())
    throw Error(ExitCode::usage, "lines: keys and ordering options are not built yet");
  LineOrder order;
  order.stable = o.stable;
  order.unique = o.unique;
  order.terminator = o.zero_terminated ? '\0' : '\n';
  return order;
}

}  // namespace gxsort
