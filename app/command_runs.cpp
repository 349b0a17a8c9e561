#include "command_runs.hpp"

#include <iostream>

#include "gxsort/distributed.hpp"
#include "line_runs.hpp"
#include "progress_line.hpp"
#include "render_plan.hpp"
#include "reports.hpp"
#include "stats_file.hpp"

namespace gxsort::cli {

namespace {

// The first operand: the input of a command of one input.
std::string input_of(const Command& cmd) { return cmd.inputs.empty() ? std::string() : cmd.inputs[0]; }

// -v of a command of records: their format, so that the record width shows (u8: 1 byte).
void print_format(const CommandRun& r) {
  if ((r.cmd.entry->groups & kFormat) && r.opt.graph.gen.kind == GraphKind::none)
    std::fprintf(stderr, "  format: %s\n", format_with_width(r.opt.format.describe(), r.opt.format.record_size).c_str());
}

// How a command that did its work ends: the progress line closed, --stats-json written
// (where no commit wrote it), -v's summary.
int finish(CommandRun& r, const RunStats& s) {
  r.progress.finish();
  r.stats.write(s, r.cmd.engine.fsync);
  if (r.cmd.verbose) print_summary(s);
  if (r.cmd.verbose) print_format(r);
  return 0;
}

// Whether a command prints its result: unless -q, and always with --json.
bool prints_result(const Command& cmd) { return !cmd.quiet || cmd.json; }

}  // namespace

int run_help(CommandRun& r) {
  (r.cmd.help_is_error ? std::cerr : std::cout) << r.cmd.help_text;
  return r.cmd.help_is_error ? int(ExitCode::usage) : 0;
}

int run_sort(CommandRun& r) {
  if (r.cmd.lines) return run_sort_lines(r);
  // A request, its plan (input opened, device chosen, nothing written), then its run.
  return finish(r, gxsort::run(gxsort::plan(SortRequest{input_of(r.cmd), r.cmd.output, r.opt})));
}

int run_plan(CommandRun& r) {
  const Command& cmd = r.cmd;
  if (cmd.lines) return run_plan_lines(r);
  if (cmd.distributed) {  // --ranks N: planned here, as if on this host
    const EngineOptions rank = distributed_rank_options(r.opt, 0, cmd.ranks, cmd.threads_given);
    check_plan_format(cmd.planned, true, cmd.plan_format);
    print_plan(stdout, plan_distributed(cmd.inputs[0], rank, nullptr, cmd.ranks), cmd.plan_format);
  } else if (cmd.planned_entry) {  // plan CMD ARGS
    check_plan_format(cmd.planned, false, cmd.plan_format);
    print_plan(stdout, plan_command(cmd.planned, cmd.inputs, cmd.output, r.opt), cmd.plan_format);
  } else {
    print_plan(stdout, plan_sort(cmd.inputs[0], cmd.output, r.opt), cmd.plan_format);
  }
  return 0;
}

int run_runs(CommandRun& r) {
  if (r.cmd.lines) return run_runs_lines(r);
  return finish(r, gxsort::run(gxsort::plan(RunsRequest{input_of(r.cmd), r.cmd.output, r.opt})));
}

int run_merge(CommandRun& r) {
  if (r.cmd.lines) return run_merge_lines(r);
  return finish(r, gxsort::run(gxsort::plan(MergeRequest{r.cmd.inputs, r.cmd.output, r.opt})));
}

int run_check(CommandRun& r) {
  const Command& cmd = r.cmd;
  if (cmd.lines) return run_check_lines(r);
  const CheckResult c = gxsort::run(gxsort::plan(CheckRequest{cmd.inputs[0], r.opt}));
  r.progress.finish();
  if (prints_result(cmd)) print_check(r.report, cmd.inputs[0], c, cmd.json);
  r.stats.write(c.stats, cmd.engine.fsync);
  if (cmd.verbose) print_summary(c.stats);
  if (cmd.verbose) print_format(r);
  return c.sorted ? 0 : int(ExitCode::check_failed);
}

int run_gen(CommandRun& r) {
  const GraphGenOptions& graph = r.opt.graph.gen;
  if (graph.kind != GraphKind::none) return finish(r, gxsort::run(gxsort::plan(GenGraphRequest{r.cmd.output, graph, r.opt})));
  return finish(r, gxsort::run(gxsort::plan(GenRequest{r.cmd.output, r.opt.format, r.cmd.gen, r.opt})));
}

int run_dedupe(CommandRun& r) {
  if (r.cmd.lines) return run_sort_lines(r, true);
  return finish(r, gxsort::run(gxsort::plan(DedupeRequest{input_of(r.cmd), r.cmd.output, r.opt})));
}

int run_reduce(CommandRun& r) {
  const ReduceResult res = gxsort::run(gxsort::plan(ReduceRequest{input_of(r.cmd), r.cmd.reduce_op, r.cmd.reduce_algo, r.opt}));
  print_reduce(r.report, input_of(r.cmd), res, r.cmd.json);
  return finish(r, res.stats);
}

int run_graph_build(CommandRun& r) {
  const GraphBuildResult res = gxsort::run(gxsort::plan(GraphBuildRequest{input_of(r.cmd), r.cmd.output, r.opt.graph.build, r.opt}));
  if (prints_result(r.cmd)) print_graph_build(r.report, r.cmd.output, res, r.cmd.json);
  return finish(r, res.stats);
}

int run_bfs(CommandRun& r) {
  const BfsResult res = gxsort::run(gxsort::plan(BfsRequest{input_of(r.cmd), r.opt.graph.bfs, r.opt}));
  if (prints_result(r.cmd)) print_bfs(r.report, input_of(r.cmd), res, r.cmd.json);
  return finish(r, res.stats);
}

int run_info(CommandRun& r) {
  print_info(stdout, info(r.opt), r.cmd.json);
  return 0;
}

int run_clean(CommandRun& r) {
  const Command& cmd = r.cmd;
  print_clean(stdout, clean_temp_files(cmd.engine.context, cmd.engine.tmp_dirs, cmd.dry_run, cmd.all_users), cmd.json, cmd.quiet);
  return 0;
}

// A rank's request, planned by every rank together, then run by them.
RunStats run_sort_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job) {
  return gxsort::run(gxsort::plan(DistributedSortRequest{cmd.inputs[0], cmd.output, opt, &job, *cmd.entry->kind}));
}

RunStats run_dedupe_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job) {
  EngineOptions unique = opt;
  unique.unique = true;  // keep the first of each key: dedupe's sort strategy
  return gxsort::run(gxsort::plan(DistributedSortRequest{cmd.inputs[0], cmd.output, unique, &job, *cmd.entry->kind}));
}

RunStats run_merge_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job) {
  return gxsort::run(gxsort::plan(DistributedMergeRequest{cmd.inputs, cmd.output, opt, &job}));
}

}  // namespace gxsort::cli
