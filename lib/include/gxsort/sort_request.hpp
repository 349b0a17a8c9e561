// The sort command as a typed request: plan() opens and plans it (nothing written), a
// front end may look at the plan's report, and run() runs exactly that plan. sort_file
// is run(plan(...)), plan_sort plan(...).report(). Included by gxsort.hpp, at its end.
#pragma once
#include <memory>
#include <string>

#include "gxsort/command_plan.hpp"
#include "gxsort/gxsort.hpp"
#include "gxsort/plan_report.hpp"

namespace gxsort {

// gxsort sort INPUT -o OUTPUT with these options ("-" or a FIFO: a stream).
struct SortRequest {
  std::string input, output;
  EngineOptions options;
};

// A sort ready to run: its input open (a stream is opened once, here) and every size its
// executors use (the device chosen, the backend made, the budgets, the plan). A stream's
// plan is partial: its runs' size; the merge is planned when the stream has ended.
// Dropping it runs nothing and leaves nothing. Its report() is plan_sort's.
using SortPlan = CommandPlan<SortRequest>;

// Opens the input, checks it (format, whole records), chooses the device and plans: no
// output, temp file or job directory made. The input's first 256 MiB are asked into the
// page cache (a hint: a run reads them first). Throws Error as sort_file would.
SortPlan plan(SortRequest request);
// Runs that plan: sort_file's work and RunStats (its seconds count the planning's too).
RunStats run(SortPlan plan);

}  // namespace gxsort
