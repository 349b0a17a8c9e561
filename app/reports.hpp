// What each command prints on its report stream (stdout, or stderr when its output goes
// to stdout): text for people, or with --json one JSON object (cli/json.hpp, with a
// format version) for batch jobs.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

void print_check(FILE* out, const std::string& path, const CheckResult& r, bool json);
void print_reduce(FILE* out, const std::string& path, ReduceOp op, const ReduceResult& r, bool json);
void print_graph_build(FILE* out, const std::string& graph, const GraphBuildResult& r, bool json);
void print_bfs(FILE* out, const std::string& graph, const BfsResult& r, bool json);
void print_clean(FILE* out, const std::vector<CleanEntry>& entries, bool json, bool quiet);
void print_info(FILE* out, const EngineOptions& opt, bool json);
// A plan: the text, JSON (given a format version here) or dot the library made.
void print_plan(FILE* out, const std::string& plan, PlanFormat format);
// -v: the run's summary on stderr.
void print_summary(const RunStats& s);

}  // namespace gxsort::cli
