// A `gxsort runs` directory of text lines: its manifest (engine/runs_manifest.hpp) says
// "format lines", then the terminator and the order its runs were sorted by, as GNU's
// options spell it ("newline -t 0x2c -k2.1n,2.0 -r"): a merge by another order (or
// terminator) is refused, as a merge of records of another format is.
#pragma once
#include <string>

#include "engine/runs_manifest.hpp"
#include "gxsort/lines.hpp"

namespace gxsort::lines {

// The terminator and order of `order` (without -u, which each command applies itself:
// runs sorted with -u are sorted without it too).
std::string order_text(const LineOrder& order);

// The manifest's format of runs of lines sorted by `order`.
inline RunsFormat runs_format_of(const LineOrder& order) { return line_runs_format(order_text(order)); }

}  // namespace gxsort::lines
