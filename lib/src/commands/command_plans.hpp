// How each command prepares (its PlanRequest, backend and Plan): the command runs from it, and
// `gxsort plan CMD` (commands/plan_command.cpp) prints the same plan.
#pragma once
#include <string>
#include <vector>

#include "commands/resume_plan.hpp"
#include "engine/engine.hpp"
#include "io/file.hpp"

namespace gxsort {

Prepared prepare_check(const io::File& in, const EngineOptions& opt);
Prepared prepare_reduce(const io::File& in, const EngineOptions& opt);
// runs: the run size and slots of `runs IN -o DIR` (temp directory: DIR's parent).
Prepared prepare_runs(const io::File& in, const std::string& out_dir, const EngineOptions& opt);
// merge: the tree over inputs of these record counts.
Prepared prepare_merge(const std::vector<uint64_t>& input_records, const std::string& output, const EngineOptions& opt);
Prepared prepare_dedupe(const io::File& in, const std::string& output, const EngineOptions& opt);

// What every command's report holds (gxsort/requests.hpp): its plan, backend, input and
// format (with options.resume: a resume report, empty where the job keeps no pieces).
PlanReport command_report(const Prepared& p, const std::string& input, const EngineOptions& opt);

// plan CMD --resume: what a resume of the job would find and what it would have left
// (commands/resume_plan.hpp); neither pieces nor stages where the job keeps no pieces.
ResumeReport dedupe_resume(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt);
ResumeReport graph_build_resume(const io::File& in, const std::string& input, const std::string& output,
                               const GraphBuildOptions& g, const EngineOptions& opt);
// graph build: no backend (the edge sort makes its own); `input` names the edge list (its
// extension gives the format under --input-format auto).
Plan plan_graph_build(const io::File& in, const std::string& input, const GraphBuildOptions& g, const EngineOptions& opt);
// bfs: before the graph is read (the load's budget), and with the graph's size.
Prepared prepare_bfs(const EngineOptions& opt);
void plan_bfs_search(Prepared& p, uint64_t vertices, uint64_t edges);

}  // namespace gxsort
