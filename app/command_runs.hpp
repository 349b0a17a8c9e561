// Each command's run: the one library call, the rendering of its report, its exit
// status (the registry's run and run_rank: commands.cpp).
#pragma once
#include "commands.hpp"

namespace gxsort::cli {

int run_help(CommandRun& r);
int run_sort(CommandRun& r);
int run_plan(CommandRun& r);
int run_runs(CommandRun& r);
int run_merge(CommandRun& r);
int run_check(CommandRun& r);
int run_gen(CommandRun& r);
int run_dedupe(CommandRun& r);
int run_reduce(CommandRun& r);
int run_graph_build(CommandRun& r);
int run_bfs(CommandRun& r);
int run_info(CommandRun& r);
int run_clean(CommandRun& r);

// A rank's share of sort, dedupe (the distributed sort -u) and merge --distributed.
RunStats run_sort_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job);
RunStats run_dedupe_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job);
RunStats run_merge_rank(const Command& cmd, const EngineOptions& opt, DistributedSession& job);

}  // namespace gxsort::cli
