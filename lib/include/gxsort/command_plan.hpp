// A command's plan: what plan(request) opened and planned (nothing written), for a front
// end to look at (report()) and for run() to run as it is. One template for every
// command's request (gxsort/sort_request.hpp, gxsort/requests.hpp); its State, the
// parts, is each command's own, defined in the library.
#pragma once
#include <memory>

#include "gxsort/plan_report.hpp"

namespace gxsort {

template <class Request>
class CommandPlan {
 public:
  CommandPlan(CommandPlan&&) noexcept;
  CommandPlan& operator=(CommandPlan&&) noexcept;
  ~CommandPlan();  // a plan dropped unrun runs nothing and leaves nothing
  // What `gxsort plan CMD` shows of it (plan_command's): made at the first call (with
  // options.resume, it reads what a killed run of the job left). Not for two threads at once.
  const PlanReport& report() const;

  struct State;  // the library's: the request, the open inputs, the engine's plan

 private:
  explicit CommandPlan(std::unique_ptr<State> state);
  State& state() const;  // throws on a plan moved from (or run)
  std::unique_ptr<State> state_;
  friend struct PlanAccess;  // the library's: makes plans and hands run() their State
};

}  // namespace gxsort
