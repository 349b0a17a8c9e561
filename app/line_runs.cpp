#include "line_runs.hpp"

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

#include "cli_options.hpp"
#include "gxsort/lines.hpp"
#include "progress_line.hpp"
#include "reports.hpp"
#include "stats_file.hpp"

namespace gxsort::cli {

namespace {

// -v: the locale lines are compared in. GNU sort follows LC_ALL, LC_COLLATE, LANG (the
// first set); gxsort compares bytes, as `LC_ALL=C sort` does, whatever they name.
void print_locale() {
  for (const char* name : {"LC_ALL", "LC_COLLATE", "LANG"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    const std::string v = value;
    if (v == "C" || v == "POSIX" || v.compare(0, 2, "C.") == 0) break;
    std::fprintf(stderr, "  locale: %s=%s is not followed: lines are compared in the C locale, byte by byte "
                         "(as LC_ALL=C sort compares them)\n", name, value);
    return;
  }
  std::fprintf(stderr, "  locale: C (lines compared byte by byte)\n");
}

int finish_lines(CommandRun& r, const RunStats& s) {
  r.progress.finish();
  r.stats.write(s, r.cmd.engine.fsync);
  if (r.cmd.verbose) print_summary(s, "lines");
  if (r.cmd.verbose) print_locale();
  return 0;
}

// The bytes of `path` ("-": unknown, as a FIFO's); throws the usage error naming it.
bool input_size(const std::string& path, uint64_t& bytes) {
  struct stat st;
  if (path == "-") return false;
  if (::stat(path.c_str(), &st) != 0) fail_usage(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return false;
  bytes = uint64_t(st.st_size);
  return true;
}

// The memory budget --memory gives (its default when not given), as `gxsort info` says.
uint64_t memory_budget(const EngineOptions& opt) {
  EngineOptions host = opt;
  host.device = Device::cpu;  // the host's budget: no GPU asked
  return info(host).memory_budget;
}

// What a sort (or dedupe) of these lines does, by their size against the budget: the
// engine sorts in memory when the text and its lines' index fit it, else through runs.
std::string sort_mode(const Command& cmd, uint64_t total, bool known, uint64_t budget) {
  if (!known) return "in memory if the input and its lines' index fit the memory budget, else sorted runs merged (a "
                     "stream's size is known when it ends)";
  if (total <= budget)
    return "in memory if the lines' index (tens of bytes a line) fits the memory budget beside their " +
           format_bytes(total) + ", else sorted runs merged";
  return "sorted runs in temporary files" + (cmd.engine.tmp_dirs.empty() ? std::string() : " (in " + cmd.engine.tmp_dirs[0] + ")") +
         ", merged: " + format_bytes(total) + " of lines is more than the memory budget";
}

// plan --resume of a sort of lines: the runs a killed run of the job kept.
void print_lines_resume(CommandRun& r, bool unique) {
  LineOrder order = r.cmd.line_order;
  order.unique = order.unique || unique;
  const LinesResume s = inspect_sort_lines(r.cmd.inputs, r.cmd.output, order, r.opt);
  if (!s.resumable)
    std::printf("resume: this job keeps no runs (in memory, a stream, or an output into a pipe): a killed run "
                "starts from the beginning\n");
  else if (s.job_dir.empty())
    std::printf("resume: no killed run of this job (same inputs, options and output) left runs: it starts from "
                "the beginning\n");
  else
    std::printf("resume: the job directory %s%s\n  runs kept: %zu, in the text's order (sizes checked here; the "
                "resume verifies their checksums first); the rest formed, the last merge from its start\n",
                s.job_dir.c_str(), s.running ? " (a gxsort is running this job now)" : "", s.runs_kept);
}

}  // namespace

int run_sort_lines(CommandRun& r, bool unique) {
  LineOrder order = r.cmd.line_order;
  order.unique = order.unique || unique;
  return finish_lines(r, sort_lines(r.cmd.inputs, r.cmd.output, order, r.opt));
}

int run_runs_lines(CommandRun& r) {
  return finish_lines(r, form_line_runs(r.cmd.inputs, r.cmd.output, r.cmd.line_order, r.opt));
}

int run_merge_lines(CommandRun& r) {
  return finish_lines(r, merge_lines(r.cmd.inputs, r.cmd.output, r.cmd.line_order, r.opt));
}

int run_check_lines(CommandRun& r) {
  const Command& cmd = r.cmd;
  const std::string& path = cmd.inputs[0];
  const LinesCheck c = check_lines(path, cmd.line_order, r.opt);
  r.progress.finish();
  if (!c.sorted && !cmd.quiet) {
    // GNU's shape; the line as it is, ended by the lines' terminator (as GNU sort ends it).
    std::fprintf(stderr, "gxsort: %s:%" PRIu64 ": disorder: ", path.c_str(), c.first_violation);
    std::fwrite(c.line.data(), 1, c.line.size(), stderr);
    std::fputc(cmd.line_order.terminator, stderr);
  } else if (c.sorted && !cmd.quiet) {
    std::fprintf(r.report, "file: %s\nlines: %" PRIu64 "\nsorted: yes\n", path.c_str(), c.lines);
  }
  r.stats.write(c.stats, cmd.engine.fsync);
  if (cmd.verbose) print_summary(c.stats, "lines");
  if (cmd.verbose) print_locale();
  return c.sorted ? 0 : int(ExitCode::check_failed);
}

int run_plan_lines(CommandRun& r) {
  const Command& cmd = r.cmd;
  const CommandEntry* planned = cmd.planned_entry;  // null: plan IN, a sort
  uint64_t total = 0;
  bool known = true;
  for (const std::string& in : cmd.inputs) {
    uint64_t bytes = 0;
    known = input_size(in, bytes) && known;
    total += bytes;
  }
  const uint64_t budget = memory_budget(r.opt);
  const std::string what = planned ? planned->name : "sort";
  std::printf("plan: %s of text lines, in LC_ALL=C sort's order\n", what.c_str());
  std::printf("input: %s\nmemory budget: %s\n", known ? format_bytes(total).c_str() : "a stream (size unknown)",
              format_bytes(budget).c_str());
  if (planned && planned->many_inputs)
    std::printf("mode: the sorted inputs merged, streamed\n");
  else if (planned && !planned->temp_note)
    std::printf("mode: one pass over the lines, streamed\n");
  else
    std::printf("mode: %s\n", sort_mode(cmd, total, known, budget).c_str());
  if (cmd.engine.resume && (!planned || planned->name == "sort" || planned->name == "dedupe"))
    print_lines_resume(r, planned && planned->name == "dedupe");
  else if (cmd.engine.resume)
    std::printf("resume: %s of text lines keeps no job: a killed run starts from the beginning\n", what.c_str());
  return 0;
}

}  // namespace gxsort::cli
