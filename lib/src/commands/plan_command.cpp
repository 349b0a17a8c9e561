// gxsort plan CMD ARGS...: the plan of any command, made by the same preparation the
// command runs from (commands/command_plans.hpp), returned instead of run. Nothing is
// written: no output, no temp file, no directory.
#include <sys/stat.h>

#include "commands/command_plans.hpp"
#include "commands/resume_plan.hpp"
#include "engine/job.hpp"
#include "engine/runs_manifest.hpp"
#include "graph/graph.hpp"
#include "io/space.hpp"

namespace gxsort {
namespace {

// merge's inputs, opened without reading them: a runs directory stands for the runs its
// manifest lists.
std::vector<io::File> merge_input_files(const std::vector<std::string>& inputs, const Format& f,
                                       const NpyStreams& npy_streams) {
  std::vector<io::File> files;
  for (const std::string& a : inputs) {
    struct stat st;
    if (a != "-" && ::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (const ManifestRun& r : read_runs_manifest(a, f)) files.push_back(io::File::open_read(r.path));
      continue;
    }
    io::File in = open_input(a, f, npy_streams);
    if (in.is_stream())
      fail_usage("plan merge: " + in.path() + " is a stream: its size is known only once it is read (merge copies it first)");
    files.push_back(std::move(in));
  }
  return files;
}

// The command's plan, and with --resume what a resume of its job would find.
struct Planned {
  Prepared p;
  ResumeReport resume;
};

Planned prepare_planned(const std::string& command, const std::vector<std::string>& inputs, const std::string& output,
                        const EngineOptions& opt) {
  if (command == "merge") {
    const std::vector<io::File> files = merge_input_files(inputs, opt.format, opt.npy_streams);
    std::vector<uint64_t> records;
    std::vector<const io::File*> pointers;
    for (const io::File& f : files) {
      records.push_back(f.size() / opt.format.record_size);
      pointers.push_back(&f);
    }
    const std::string out = output.empty() ? inputs[0] : output;
    Planned r{prepare_merge(records, out, opt), {}};
    if (opt.resume) r.resume = resume_report(SortJob::inspect_merge(r.p, pointers, out, opt));
    return r;
  }
  if (command == "bfs") {
    Prepared p = prepare_bfs(opt);
    const graph::CsrHeader h = graph::read_csr_header(inputs[0]);
    plan_bfs_search(p, h.n, h.m);
    return {std::move(p), {}};
  }
  io::File in = open_input(inputs[0], opt.format, opt.npy_streams);
  if (command == "runs") {
    const std::string dir = output.empty() ? io::directory_of(inputs[0]) + "/runs" : output;
    Planned r{prepare_runs(in, dir, opt), {}};
    if (opt.resume) r.resume = resume_report(SortJob::inspect_runs(r.p, in, dir, opt));
    return r;
  }
  if (command == "dedupe") {
    const std::string out = output.empty() ? (in.is_stream() ? "-" : inputs[0]) : output;
    Planned r{prepare_dedupe(in, out, opt), {}};
    if (opt.resume) r.resume = dedupe_resume(r.p, in, out, opt);
    return r;
  }
  if (command == "check") return {prepare_check(in, opt), {}};
  if (command == "reduce") return {prepare_reduce(in, opt), {}};
  fail_usage("plan: no plan for '" + command + "'");
}

}  // namespace

PlanReport plan_command(const std::string& command, const std::vector<std::string>& inputs, const std::string& output,
                        const EngineOptions& opt) {
  if (inputs.empty()) fail_usage("plan " + command + ": name its input");
  if (command == "sort") return plan_sort(inputs[0], output, opt);
  if (opt.resume && output.empty())
    fail_usage("plan " + command + " " + option_ref("resume") + ": name the job's output (-o " + (command == "runs" ? "DIR" : "FILE") +
               "): a job is its input, options and output");
  PlanReport r;
  if (command == "graph build") {  // no backend: the edge sort makes its own once the edges are counted
    io::File in = io::File::open_input(inputs[0]);
    r = plan_report(plan_graph_build(in, inputs[0], opt.graph.build, opt));
    if (opt.resume) r.resume = graph_build_resume(in, inputs[0], output, opt.graph.build, opt);
  } else {
    Planned planned = prepare_planned(command, inputs, output, opt);
    r = plan_report(planned.p.plan);
    r.backend = planned.p.backend->name();
    if (opt.resume) r.resume = std::move(planned.resume);
  }
  r.input = inputs[0];
  r.format = opt.format.describe();
  return r;
}

}  // namespace gxsort
