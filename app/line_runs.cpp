#include "line_runs.hpp"

#include <cinttypes>
#include <cstdlib>

#include "cli_options.hpp"
#include "gxsort/lines.hpp"
#include "progress_line.hpp"
#include "render_lines_plan.hpp"
#include "render_plan.hpp"
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
  check_plan_format(cmd.planned, false, cmd.plan_format);
  const LinesPlan p = plan_lines(cmd.planned, cmd.inputs, cmd.output, cmd.line_order, r.opt);
  std::fputs(render_lines_plan(p, cmd.plan_format, cmd.engine.resume).c_str(), stdout);
  return 0;
}

}  // namespace gxsort::cli
