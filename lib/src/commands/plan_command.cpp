// gxsort plan CMD ARGS...: the plan of any command, made by the same preparation the
// command runs from (commands/command_plans.hpp), printed instead of run. Nothing is
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
std::vector<io::File> merge_input_files(const std::vector<std::string>& inputs, const Format& f) {
  std::vector<io::File> files;
  for (const std::string& a : inputs) {
    struct stat st;
    if (a != "-" && ::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (const ManifestRun& r : read_runs_manifest(a, f)) files.push_back(io::File::open_read(r.path));
      continue;
    }
    io::File in = open_input(a, f);
    if (in.is_stream())
      fail_usage("plan merge: " + in.path() + " is a stream: its size is known only once it is read (merge copies it first)");
    files.push_back(std::move(in));
  }
  return files;
}

// The command's plan, and with --resume what a resume of its job would find.
struct Planned {
  Prepared p;
  ResumeFound resume;
};

Planned prepare_planned(const std::string& command, const std::vector<std::string>& inputs, const std::string& output,
                        const EngineOptions& opt) {
  if (command == "merge") {
    const std::vector<io::File> files = merge_input_files(inputs, opt.format);
    std::vector<uint64_t> records;
    std::vector<const io::File*> pointers;
    for (const io::File& f : files) {
      records.push_back(f.size() / opt.format.record_size);
      pointers.push_back(&f);
    }
    const std::string out = output.empty() ? inputs[0] : output;
    Planned r{prepare_merge(records, out, opt), {}};
    if (opt.resume) r.resume = ResumeFound::of(SortJob::inspect_merge(r.p, pointers, out, opt));
    return r;
  }
  if (command == "bfs") {
    Prepared p = prepare_bfs(opt);
    const graph::CsrHeader h = graph::read_csr_header(inputs[0]);
    plan_bfs_search(p, h.n, h.m);
    return {std::move(p), {}};
  }
  io::File in = open_input(inputs[0], opt.format);
  if (command == "runs") {
    const std::string dir = output.empty() ? io::directory_of(inputs[0]) + "/runs" : output;
    Planned r{prepare_runs(in, dir, opt), {}};
    if (opt.resume) r.resume = ResumeFound::of(SortJob::inspect_runs(r.p, in, dir, opt));
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

std::string with_resume(const std::string& json, const ResumeFound& r) {
  return json.substr(0, json.rfind('}')) + ",\"resume\":" + (r.json.empty() ? "null" : r.json) + json.substr(json.rfind('}'));
}

std::string with_backend(const std::string& backend, const std::string& json) {
  return "{\"backend\":" + json_quote(backend) + "," + json.substr(1);
}

}  // namespace

std::string plan_command(const std::string& command, const std::vector<std::string>& inputs, const std::string& output,
                         const EngineOptions& opt, PlanFormat format) {
  if (inputs.empty()) fail_usage("plan " + command + ": name its input");
  if (command == "sort") return plan_sort(inputs[0], output, opt, format);
  if (format == PlanFormat::dot && command != "merge")
    fail_usage("plan " + command + ": --dot draws a merge tree (sort and merge); use --json");
  if (opt.resume && output.empty())
    fail_usage("plan " + command + " --resume: name the job's output (-o " + (command == "runs" ? "DIR" : "FILE") +
               "): a job is its input, options and output");
  if (command == "graph build") {  // no backend: the edge sort makes its own once the edges are counted
    io::File in = io::File::open_input(inputs[0]);
    const Plan p = plan_graph_build(in, inputs[0], opt.graph.build, opt);
    const ResumeFound r = opt.resume ? graph_build_resume(in, inputs[0], output, opt.graph.build, opt) : ResumeFound{};
    if (format == PlanFormat::json) return opt.resume ? with_resume(job_plan_json(p), r) : job_plan_json(p);
    return job_plan_text(p) + (opt.resume ? (r.text.empty() ? resume_text_keeps_nothing() : r.text) : "");
  }
  const Planned planned = prepare_planned(command, inputs, output, opt);
  const Prepared& p = planned.p;
  if (format == PlanFormat::dot) return plan_dot(p.plan);
  if (format == PlanFormat::json) {
    const std::string json = with_backend(p.backend->name(), job_plan_json(p.plan));
    return opt.resume ? with_resume(json, planned.resume) : json;
  }
  const std::string fmt = command == "bfs" ? "" : "format: " + opt.format.describe() + "\n";
  const std::string resume = !opt.resume ? "" : planned.resume.text.empty() ? resume_text_keeps_nothing() : planned.resume.text;
  return "backend: " + p.backend->name() + "\n" + fmt + job_plan_text(p.plan) + resume;
}

}  // namespace gxsort
