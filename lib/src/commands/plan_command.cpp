// gxsort plan CMD ARGS...: the plan of any command, made by the same preparation the
// command runs from: the report of plan(XRequest) (gxsort/requests.hpp). Nothing is
// written: no output, no temp file, no directory.
#include "commands/command_plans.hpp"

namespace gxsort {

PlanReport command_report(const Prepared& p, const std::string& input, const EngineOptions& opt) {
  PlanReport r = plan_report(p.plan);
  r.backend = p.backend->name();
  if (opt.resume) r.resume = ResumeReport{};
  r.input = input;
  r.format = opt.format.describe();
  return r;
}

PlanReport plan_command(CommandKind command, const std::vector<std::string>& inputs, const std::string& output,
                        const EngineOptions& opt) {
  const std::string name = command_name(command);
  if (inputs.empty()) fail_usage("plan " + name + ": name its input");
  if (command == CommandKind::sort) return plan_sort(inputs[0], output, opt);
  if (opt.resume && output.empty())
    fail_usage("plan " + name + " " + option_ref("resume") + ": name the job's output (-o " +
               (command == CommandKind::runs ? "DIR" : "FILE") + "): a job is its input, options and output");
  switch (command) {
    case CommandKind::runs: return plan(RunsRequest{inputs[0], output, opt}).report();
    case CommandKind::merge: return plan(MergeRequest{inputs, output, opt}).report();
    case CommandKind::dedupe: return plan(DedupeRequest{inputs[0], output, opt}).report();
    case CommandKind::check: return plan(CheckRequest{inputs[0], opt}).report();
    case CommandKind::reduce: return plan(ReduceRequest{inputs[0], ReduceOp::sum, ReduceAlgo::flat, opt}).report();
    case CommandKind::bfs: return plan(BfsRequest{inputs[0], opt.graph.bfs, opt}).report();
    case CommandKind::graph_build: return plan(GraphBuildRequest{inputs[0], output, opt.graph.build, opt}).report();
    case CommandKind::sort: case CommandKind::gen: break;
  }
  fail_usage("plan: no plan for '" + name + "'");
}

}  // namespace gxsort
