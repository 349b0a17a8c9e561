// dedupe, runs, merge, check, reduce, graph build, bfs and gen as typed requests, as the sort is
// (gxsort/sort_request.hpp): plan() opens, stats, probes and plans, writing nothing (no
// output, temp file or job directory); a front end may look at the plan's report()
// (plan_command's for that command); run() runs exactly that plan. The file functions
// (dedupe_file, form_runs, merge_files, check_file, reduce_file, graph_build, bfs_file,
// gen_file, gen_graph) are run(plan(...)).
// A plan dropped unrun runs nothing and leaves nothing. Their plans are named
// CommandPlan<XRequest> (plan/plan.hpp's DedupePlan, BfsPlan... are parts of the engine's
// Plan). Included by gxsort.hpp, at its end.
#pragma once
#include <string>
#include <vector>

#include "gxsort/command_plan.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort {

// gxsort dedupe INPUT -o OUTPUT. Without an output it plans (as if into INPUT, a
// stream's into standard output); its run refuses.
struct DedupeRequest {
  std::string input, output;
  EngineOptions options;
};
CommandPlan<DedupeRequest> plan(DedupeRequest request);
RunStats run(CommandPlan<DedupeRequest> plan);

// gxsort runs INPUT -o OUT_DIR. Without a directory it plans (as if into INPUT's
// directory's runs/); its run refuses.
struct RunsRequest {
  std::string input, out_dir;
  EngineOptions options;
};
CommandPlan<RunsRequest> plan(RunsRequest request);
RunStats run(CommandPlan<RunsRequest> plan);

// gxsort merge INPUTS... -o OUTPUT (a runs directory stands for its runs). Without an
// output it plans (as if into the first input). A stream among the inputs is copied to
// a temp file by the run, which plans the merge then: its plan has no report (refused).
struct MergeRequest {
  std::vector<std::string> inputs;
  std::string output;
  EngineOptions options;
};
CommandPlan<MergeRequest> plan(MergeRequest request);
RunStats run(CommandPlan<MergeRequest> plan);

// gxsort check PATH.
struct CheckRequest {
  std::string path;
  EngineOptions options;
};
CommandPlan<CheckRequest> plan(CheckRequest request);
CheckResult run(CommandPlan<CheckRequest> plan);

// gxsort reduce PATH --op OP --algo ALGO (the plan is the same for every op and algo).
struct ReduceRequest {
  std::string path;
  ReduceOp op = ReduceOp::sum;
  ReduceAlgo algo = ReduceAlgo::flat;
  EngineOptions options;
};
CommandPlan<ReduceRequest> plan(ReduceRequest request);
ReduceResult run(CommandPlan<ReduceRequest> plan);

// gxsort graph build INPUT -o GRAPH. Without an output it plans; its run refuses. The
// run checks the request (--skip-header, --ids, --renumber) before it writes anything.
struct GraphBuildRequest {
  std::string input, output;
  GraphBuildOptions build;
  EngineOptions options;
};
CommandPlan<GraphBuildRequest> plan(GraphBuildRequest request);
GraphBuildResult run(CommandPlan<GraphBuildRequest> plan);

// gxsort bfs GRAPH: planned with the graph's header (its size); a stream's header is
// read by the run, which plans the search then.
struct BfsRequest {
  std::string graph;
  BfsOptions bfs;
  EngineOptions options;
};
CommandPlan<BfsRequest> plan(BfsRequest request);
BfsResult run(CommandPlan<BfsRequest> plan);

// gxsort gen -o OUTPUT --count N: records of `format` (GenOptions: --dist, --seed). The
// plan checks the request and names the output's temp directory; its report() shows the
// command, the output, the format and the records (`gxsort plan` has no gen).
struct GenRequest {
  std::string output;
  Format format;
  GenOptions gen;
  EngineOptions options;
};
CommandPlan<GenRequest> plan(GenRequest request);
RunStats run(CommandPlan<GenRequest> plan);

// gxsort gen -o OUTPUT --graph rmat|uniform: an edge list (bin32 below scale 32, else
// bin64), planned as GenRequest is (its report: the edges as records of the pairs' width).
struct GenGraphRequest {
  std::string output;
  GraphGenOptions graph;
  EngineOptions options;
};
CommandPlan<GenGraphRequest> plan(GenGraphRequest request);
RunStats run(CommandPlan<GenGraphRequest> plan);

}  // namespace gxsort
