// The members of every CommandPlan (gxsort/command_plan.hpp), for the command files that
// define a plan's State: each defines `template <> struct CommandPlan<R>::State` (a
// PlanStateBase<R>) and `PlanReport report_of(const CommandPlan<R>::State&)`
// in namespace gxsort, then instantiates `template class CommandPlan<R>;`. Included only
// there: elsewhere a plan's members are the ones these files instantiate.
#pragma once
#include <memory>
#include <optional>

#include "engine/engine.hpp"
#include "gxsort/error.hpp"
#include "gxsort/command_plan.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort {

// What every command's State holds (each derives from it and adds its open inputs):
// the request, the engine's preparation, the time planning took (the run's stats
// count it) and report() once made.
template <class R>
struct PlanStateBase {
  R request;
  Prepared prepared;
  Clock::duration planning{};
  std::optional<PlanReport> report;  // report(): made at its first call
};

// How the library makes a plan and reaches its State (private to front ends).
struct PlanAccess {
  template <class R>
  static CommandPlan<R> make(std::unique_ptr<typename CommandPlan<R>::State> state) {
    return CommandPlan<R>(std::move(state));
  }
  template <class R>
  static typename CommandPlan<R>::State& state(const CommandPlan<R>& plan) {
    return plan.state();
  }
};

template <class R>
CommandPlan<R>::CommandPlan(std::unique_ptr<State> state) : state_(std::move(state)) {}
template <class R>
CommandPlan<R>::CommandPlan(CommandPlan&&) noexcept = default;
template <class R>
CommandPlan<R>& CommandPlan<R>::operator=(CommandPlan&&) noexcept = default;
template <class R>
CommandPlan<R>::~CommandPlan() = default;

template <class R>
typename CommandPlan<R>::State& CommandPlan<R>::state() const {
  if (!state_) throw Error(ExitCode::usage, "a command's plan used after it was run or moved");
  return *state_;
}

template <class R>
const PlanReport& CommandPlan<R>::report() const {
  State& s = state();
  if (!s.report) s.report = report_of(s);  // the command's (found by its State's namespace)
  return *s.report;
}

}  // namespace gxsort
