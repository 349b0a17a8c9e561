// The sort command as a typed request: plan() opens and plans it (nothing written), a
// front end may look at the plan's report, and run() runs exactly that plan. sort_file
// is run(plan(...)), plan_sort plan(...).report(). Included by gxsort.hpp, at its end.
#pragma once
#include <memory>
#include <string>

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
// Dropping it runs nothing and leaves nothing.
class SortPlan {
 public:
  SortPlan(SortPlan&&) noexcept;
  SortPlan& operator=(SortPlan&&) noexcept;
  ~SortPlan();
  // What `gxsort plan` shows of it (plan_sort's): made at the first call (with
  // options.resume, it reads what a killed run of the job left). Not for two threads at once.
  const PlanReport& report() const;

  struct State;  // the library's: the request, the open input, the engine's plan

 private:
  explicit SortPlan(std::unique_ptr<State> state);
  State& state() const;  // throws on a plan moved from (or run)
  std::unique_ptr<State> state_;
  friend SortPlan plan(SortRequest request);
  friend RunStats run(SortPlan plan);
};

// Opens the input, checks it (format, whole records), chooses the device and plans: no
// output, temp file or job directory made. The input's first 256 MiB are asked into the
// page cache (a hint: a run reads them first). Throws Error as sort_file would.
SortPlan plan(SortRequest request);
// Runs that plan: sort_file's work and RunStats (its seconds count the planning's too).
RunStats run(SortPlan plan);

}  // namespace gxsort
