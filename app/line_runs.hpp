// The runs of the commands of text lines (cmd.lines): the library's lines calls
// (gxsort/lines.hpp), their reports, -v's summary and locale note, and plan's
// (plan_lines rendered: render_lines_plan.hpp).
#pragma once
#include "commands.hpp"

namespace gxsort::cli {

// sort --lines (unique: dedupe --lines, which is sort -u).
int run_sort_lines(CommandRun& r, bool unique = false);
int run_runs_lines(CommandRun& r);
int run_merge_lines(CommandRun& r);
// Exit 1 with GNU's "FILE:N: disorder: LINE" on stderr when not sorted (-q: status only).
int run_check_lines(CommandRun& r);
// What a command of text lines would do (plan_lines), as text, --json or --dot.
int run_plan_lines(CommandRun& r);

}  // namespace gxsort::cli
