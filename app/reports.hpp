// What each command prints on its report stream (stdout, or stderr when its output goes
// to stdout): text for people, or with --json one JSON object (report_json.hpp, with a
// format version) for batch jobs.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

void print_check(FILE* out, const std::string& path, const CheckResult& r, bool json);
void print_reduce(FILE* out, const std::string& path, const ReduceResult& r, bool json);
void print_graph_build(FILE* out, const std::string& graph, const GraphBuildResult& r, bool json);
void print_bfs(FILE* out, const std::string& graph, const BfsResult& r, bool json);
void print_clean(FILE* out, const std::vector<CleanEntry>& entries, bool json, bool quiet);
void print_info(FILE* out, const InfoReport& r, bool json);
// A plan: render_plan.hpp.
// -v: the run's summary on stderr (a distributed sort's: every rank's part too).
void print_summary(const RunStats& s, const char* unit = "records");  // unit: what s.records counts

// A reduction's value as text ("42", "-1.5", "nan", "none"; f32 keys with 9 digits).
std::string reduce_value_text(const ReduceValue& v);
// Where info's thread count comes from.
std::string threads_source(const InfoReport& r);
// The means over a bfs's searches (of one search: its figures).
struct BfsMeans {
  double seconds = 0, gteps = 0, undirected_gteps = 0;
};
BfsMeans bfs_means(const BfsResult& r);

// `text` on one line: control characters (a newline or tab in a file name) written as
// \n, \t, \r or \xNN, as GNU tools quote names, so that every error and note stays
// the one line a script reads.
std::string one_line(const std::string& text);

// Text the library made (an error, a note, a reason) as the CLI shows it: its option
// references spelled as flags ("--memory": gxsort/option_ref.hpp), on one line.
std::string shown(const std::string& library_text);

// The exit code and the one line (without "gxsort: ") an error of `cmd` is reported
// with (shown: flags spelled, escaped).
struct ErrorReport {
  ExitCode code = ExitCode::io;
  std::string message;
};
ErrorReport describe_error(const Command& cmd, const std::exception_ptr& error);

}  // namespace gxsort::cli
