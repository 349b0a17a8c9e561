// Text lines on the command line: --lines (--format lines), and GNU sort's text options
// that imply it (-k POS1[,POS2], -t, -n, -g, -h, -b, -d, -f, -i, -z); the options of
// binary records refused with them; the LineOrder resolved once (line_order).
#pragma once
#include "cli_args.hpp"

namespace gxsort::cli {

struct CommandEntry;

// The "text lines" group of a command's help (commands with kLines).
void add_line_options(po::options_description& d, Args& a);
// Whether the options ask for text lines: --lines, --format lines, a GNU text option.
bool wants_lines(const Args& a, const po::variables_map& vm);
// cmd.line_order from GNU's options (usage errors as "NAME: ..."), after refusing what
// does not apply to lines; `spec` is the command whose options were parsed.
void type_lines(const Args& a, const po::variables_map& vm, const CommandEntry& spec, Command& cmd);

}  // namespace gxsort::cli
