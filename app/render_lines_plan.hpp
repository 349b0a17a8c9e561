// `gxsort plan --lines`: a LinesPlan (gxsort/lines.hpp) rendered as text for people, as
// the --json document for scripts (the records' plan's keys where they mean the same), or
// as a dot graph of its stages (--dot).
#pragma once
#include <string>

#include "gxsort/lines.hpp"
#include "gxsort/options.hpp"

namespace gxsort::cli {

// `resume`: plan --resume, what p.resume says (or that the command keeps no job) added.
std::string render_lines_plan(const LinesPlan& p, PlanFormat format, bool resume);

}  // namespace gxsort::cli
