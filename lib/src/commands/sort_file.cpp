// sort and plan: the sort command's front door (its engine: engine/sort.hpp), for files
// and for streams, and the plan it would run.
#include <sys/stat.h>

#include "commands/resume_plan.hpp"
#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/sort.hpp"

namespace gxsort {

bool may_use_gpu(const std::string& command, const std::string& input, const EngineOptions& opt) {
  const CommandKind kind = command == "sort" ? CommandKind::sort : CommandKind::dedupe;
  struct stat st;
  // Only a regular file: a FIFO opened here and closed again could lose what its writer sent.
  if (opt.device != Device::automatic || (command != "sort" && command != "dedupe") || input == "-" ||
      ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return opt.device != Device::cpu;
  try {  // a regular file: none of npy_input's streams (they stay for the command)
    const PlanRequest job = plan_request(kind, opt, open_input(input, opt.format, {}).size(), false);
    return choose_backend(job, machine_facts(job)).device != Device::cpu;
  } catch (const Error&) {
    return true;  // the command itself says what is wrong with the input
  }
}

RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  io::File in = open_input(input, opt.format, opt.npy_streams);
  return sort_input(in, output, opt);
}

PlanReport plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt) {
  io::File in = open_input(input, opt.format, opt.npy_streams);
  const std::string tmp = default_temp_dir(!output.empty() ? output : in.is_stream() ? "-" : input);
  PlanReport r;
  if (in.is_stream()) {  // the runs' size: the rest is known when the stream ends
    Prepared p = prepare(opt, plan_request(CommandKind::sort, opt, 0, true), tmp);
    r = plan_report(p.plan);
    r.memory = p.memory;
    r.sort.fan_in = p.plan_input.fan_in ? p.plan_input.fan_in : kDefaultFanIn;
    r.backend = p.backend->name();
  } else {
    Prepared p = prepare(opt, in.size(), tmp, in.path());
    if (opt.resume && output.empty()) fail_usage("plan " + option_ref("resume") + ": name the job's output (-o FILE): a job is its input, options and output");
    const bool resumable = p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition;
    r = plan_report(p.plan);
    if (opt.resume) r.resume = resume_report(SortJob::inspect(p, in, output, opt));
    r.backend = p.backend->name();
    r.device_auto_cpu = p.device.reason == DeviceReason::wide_records;
    if (resumable) r.temp_dirs = p.tmp_dirs;
  }
  r.command = "sort";
  r.input = in.path();
  r.stream = in.is_stream();
  r.format = opt.format.describe();
  return r;
}

}  // namespace gxsort
