// sort and plan: the sort command's front door (its engine: engine/sort.hpp), for files
// and for streams, and the plan it would run.
#include <sys/stat.h>

#include <optional>

#include "commands/command_plan.hpp"
#include "commands/resume_plan.hpp"
#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/sort.hpp"
#include "gxsort/timeline.hpp"

namespace gxsort {

bool may_use_gpu(CommandKind command, const std::string& input, const EngineOptions& opt) {
  struct stat st;
  // Only a regular file: a FIFO opened here and closed again could lose what its writer sent.
  if (opt.device != Device::automatic || (command != CommandKind::sort && command != CommandKind::dedupe) || input == "-" ||
      ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return opt.device != Device::cpu;
  try {  // a regular file: none of npy_input's streams (they stay for the command)
    const PlanRequest job = plan_request(command, opt, open_input(input, opt.format, {}).size(), false);
    return choose_backend(job, machine_facts(job)).device != Device::cpu;
  } catch (const Error&) {
    return true;  // the command itself says what is wrong with the input
  }
}

// A SortPlan's parts: what plan() opened and prepared, for run() to use as they are.
template <>
struct SortPlan::State : PlanStateBase<SortRequest> {
  io::File in;
};

namespace {

// Where a sort's temp files go by default: beside its output (plan without -o: beside
// the input; a stream's: /tmp).
std::string default_sort_temp_dir(const SortRequest& r, const io::File& in) {
  return default_temp_dir(!r.output.empty() ? r.output : in.is_stream() ? "-" : r.input);
}

}  // namespace

// What `gxsort plan` shows of a planned sort (plan_sort).
PlanReport report_of(const SortPlan::State& s) {
  const EngineOptions& opt = s.request.options;
  const std::string& output = s.request.output;
  const Prepared& p = s.prepared;
  const io::File& in = s.in;
  PlanReport r = plan_report(p.plan);
  if (in.is_stream()) {  // the runs' size: the rest is known when the stream ends
    r.memory = p.memory;
    r.sort.fan_in = p.plan_input.fan_in ? p.plan_input.fan_in : kDefaultFanIn;
  } else {
    if (opt.resume && output.empty()) fail_usage("plan " + option_ref("resume") + ": name the job's output (-o FILE): a job is its input, options and output");
    if (opt.resume) r.resume = resume_report(SortJob::inspect(p, in, output, opt));
    r.device_auto_cpu = p.device.reason == DeviceReason::wide_records;
    if (p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition) r.temp_dirs = p.tmp_dirs;
  }
  r.backend = p.backend->name();
  r.command = CommandKind::sort;
  r.input = in.path();
  r.stream = in.is_stream();
  r.format = opt.format.describe();
  return r;
}

template class CommandPlan<SortRequest>;

SortPlan plan(SortRequest request) {
  auto s = std::make_unique<SortPlan::State>();
  s->request = std::move(request);
  const EngineOptions& opt = s->request.options;
  s->in = open_input(s->request.input, opt.format, opt.npy_streams);
  const auto t_start = Clock::now();
  s->prepared = prepare_sort(s->in, opt, default_sort_temp_dir(s->request, s->in));
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<SortRequest>(std::move(s));
}

RunStats run(SortPlan plan) {
  SortPlan::State& s = PlanAccess::state(plan);
  const EngineOptions& opt = s.request.options;
  const RunStats st = sort_prepared(s.in, s.request.output, opt, s.prepared, Clock::now() - s.planning);
  s.prepared = Prepared();  // the backend freed (the device's memory with it)
  timeline(opt.context, "its backend freed");
  return st;
}

RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  return run(plan(SortRequest{input, output, opt}));
}

PlanReport plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt) {
  return plan(SortRequest{input, output, opt}).report();
}

}  // namespace gxsort
