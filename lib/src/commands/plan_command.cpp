// gxsort plan CMD ARGS...: the plan of any command, made by the same preparation the
// command runs from (commands/command_plans.hpp), printed instead of run. Nothing is
// written: no output, no temp file, no directory.
#include <sys/stat.h>

#include "commands/command_plans.hpp"
#include "engine/runs_manifest.hpp"
#include "graph/graph.hpp"
#include "io/space.hpp"

namespace gxsort {
namespace {

// merge's inputs, sized without reading them: a runs directory by its manifest.
std::vector<uint64_t> merge_input_records(const std::vector<std::string>& inputs, const Format& f) {
  std::vector<uint64_t> records;
  for (const std::string& a : inputs) {
    struct stat st;
    if (a != "-" && ::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (const ManifestRun& r : read_runs_manifest(a, f)) records.push_back(r.records);
      continue;
    }
    io::File in = open_input(a, f);
    if (in.is_stream())
      fail_usage("plan merge: " + in.path() + " is a stream: its size is known only once it is read (merge copies it first)");
    records.push_back(in.size() / f.record_size);
  }
  return records;
}

Prepared prepare_planned(const std::string& command, const std::vector<std::string>& inputs,
                         const std::string& output, const EngineOptions& opt) {
  if (command == "merge") return prepare_merge(merge_input_records(inputs, opt.format), output.empty() ? inputs[0] : output, opt);
  if (command == "bfs") {
    Prepared p = prepare_bfs(opt);
    const graph::CsrHeader h = graph::read_csr_header(inputs[0]);
    plan_bfs_search(p, h.n, h.m);
    return p;
  }
  io::File in = open_input(inputs[0], opt.format);
  if (command == "runs") return prepare_runs(in, output.empty() ? io::directory_of(inputs[0]) + "/runs" : output, opt);
  if (command == "dedupe") return prepare_dedupe(in, output.empty() ? (in.is_stream() ? "-" : inputs[0]) : output, opt);
  if (command == "check") return prepare_check(in, opt);
  if (command == "reduce") return prepare_reduce(in, opt);
  fail_usage("plan: no plan for '" + command + "'");
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
  if (command == "graph build") {  // no backend: the edge sort makes its own once the edges are counted
    io::File in = io::File::open_input(inputs[0]);
    const Plan p = plan_graph_build(in, inputs[0], opt.graph.build, opt);
    return format == PlanFormat::json ? job_plan_json(p) : job_plan_text(p);
  }
  Prepared p = prepare_planned(command, inputs, output, opt);
  if (format == PlanFormat::dot) return plan_dot(p.plan);
  if (format == PlanFormat::json) return with_backend(p.backend->name(), job_plan_json(p.plan));
  const std::string fmt = command == "bfs" ? "" : "format: " + opt.format.describe() + "\n";
  return "backend: " + p.backend->name() + "\n" + fmt + job_plan_text(p.plan);
}

}  // namespace gxsort
