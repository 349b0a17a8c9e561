// The registry's table: every command of the CLI, in the order the usage lists them.
#include "commands.hpp"

#include "command_options.hpp"
#include "command_runs.hpp"

namespace gxsort::cli {

namespace {

// The groups most commands that sort share.
constexpr unsigned kReports = kQuiet | kStats | kProgress;
constexpr unsigned kRecords = kFormat | kReverse | kLines;
constexpr unsigned kResources = kMemory | kDevice;
constexpr unsigned kSortEngine = kTmpDir | kFsync | kEngine | kOoc;

const char* const kDedupeHelp =
    "Keys are equal when their bits (totalOrder for floats) are: -0.0 and +0.0 differ, NaNs\n"
    "with the same bits are equal (--float-order numpy: -0.0 == +0.0, every NaN one key).\n"
    "--count output: each record followed by a little-endian u64.\n";
const char* const kSortHelp =
    "GNU sort's habits: no IN reads standard input, no -o writes standard output (unless it is a\n"
    "terminal); -c (-C: exit status only) does what `gxsort check` does, -m what `gxsort merge` does.\n"
    "Text lines (--lines, or GNU sort's -k POS1[,POS2], -t, -n, -g, -h, -b, -d, -f, -i, -z): ordered as\n"
    "`LC_ALL=C sort` orders them, whatever the locale; several IN are read one after the other.\n";
const char* const kCleanHelp =
    "Removes the temporary files (.gxsort.<host>.<pid>.*.tmp) that gxsort runs killed by kill -9,\n"
    "the OOM killer or a batch scheduler left; never those of a running process or of another host,\n"
    "nor another user's unless --all-users. No link is followed.\n";

// An entry with its name, usage operands and summary; the rest as CommandEntry sets it.
CommandEntry named(const char* name, const char* operands, const char* summary) {
  CommandEntry e;
  e.name = name;
  e.operands = operands;
  e.summary = summary;
  return e;
}

CommandEntry sort_entry() {
  CommandEntry e = named("sort", "IN -o OUT", "sort a binary file of fixed-size records (stable)");
  e.kind = CommandKind::sort;
  e.groups = kReports | kRecords | kResources | kSortEngine | kUnique;
  e.more_help = kSortHelp;
  e.plannable = e.plan_default = e.npy_output = e.temp_note = e.gnu_sort = true;
  e.early_gpu = EarlyGpu::unless_cpu_sort;
  e.add_options = add_sort_options, e.build = build_sort, e.run = run_sort, e.run_rank = run_sort_rank;
  return e;
}

CommandEntry plan_entry() {
  CommandEntry e = named("plan", "IN | CMD ARGS",
                         "print what `sort` (or CMD: runs, merge, dedupe, check, reduce, graph build, bfs) would do (--json, --dot)");
  e.groups = kRecords | kResources | kSortEngine | kUnique;
  e.plans = true;
  e.add_options = add_plan_options, e.build = build_plan, e.run = run_plan;
  return e;
}

CommandEntry runs_entry() {
  CommandEntry e = named("runs", "IN -o DIR", "form sorted runs only (run files and a manifest)");
  e.kind = CommandKind::runs;
  e.groups = kReports | kRecords | kResources | kFsync | kUnique;
  e.more_help = "Text lines (--lines, or GNU sort's -k POS1[,POS2], -t, -n, ...): run files of sorted lines (IN... read\n"
                "one after the other), their manifest naming their order; `gxsort merge --lines DIR` merges them.\n";
  e.plannable = e.temp_note = e.output_dir = true;
  e.add_options = add_runs_options, e.build = build_runs, e.run = run_runs;
  return e;
}

CommandEntry merge_entry() {
  CommandEntry e = named("merge", "FILE... -o OUT", "merge sorted files (a `runs` directory stands for its runs)");
  e.kind = CommandKind::merge;
  e.groups = kReports | kRecords | kResources | kTmpDir | kFsync | kEngine | kUnique;
  e.hints = {{"--ooc", ": its inputs are sorted already, and are merged with --fan-in (--ooc chooses how `sort` goes out of core)"}};
  e.plannable = e.npy_output = e.temp_note = e.many_inputs = true;
  e.add_options = add_merge_options, e.build = build_merge, e.run = run_merge, e.run_rank = run_merge_rank;
  return e;
}

CommandEntry check_entry() {
  CommandEntry e = named("check", "FILE", "record count, order, duplicate keys, checksums (exit 1: not sorted)");
  e.kind = CommandKind::check;
  e.groups = kReports | kRecords | kResources | kUnique;
  e.unique_help = "text lines: no two lines with equal keys either (GNU sort's -c -u)";
  e.quiet_help = "print nothing but errors (the exit status says whether the file is sorted)";
  e.plannable = true;
  e.add_options = add_check_options, e.build = build_check, e.run = run_check;
  return e;
}

CommandEntry gen_entry() {
  CommandEntry e = named("gen", "-o FILE --count N", "generate test data (--dist, --seed), or an edge list (--graph)");
  e.kind = CommandKind::gen;
  e.groups = kReports | kFormat;
  e.more_help = "Edge lists: gxsort gen -o FILE --graph rmat|uniform --scale S [--edge-factor E] [--seed X]\n";
  e.hints = {{"-r", ": gen writes records in no key order (--dist sorted|reverse)"},
             {"--reverse", ": gen writes records in no key order (--dist sorted|reverse)"}};
  e.npy_output = true;
  e.early_gpu = EarlyGpu::none;
  e.add_options = add_gen_options, e.build = build_gen, e.run = run_gen;
  return e;
}

CommandEntry dedupe_entry() {
  CommandEntry e = named("dedupe", "IN -o OUT", "sorted, one record per distinct key");
  e.kind = CommandKind::dedupe;
  e.groups = kReports | kRecords | kResources | kSortEngine;
  e.more_help = kDedupeHelp;
  e.plannable = e.npy_output = e.temp_note = true;
  e.early_gpu = EarlyGpu::unless_cpu_sort;  // dedupe sorts too: the same choice (may_use_gpu)
  e.add_options = add_dedupe_options, e.build = build_dedupe, e.run = run_dedupe, e.run_rank = run_dedupe_rank;
  return e;
}

CommandEntry reduce_entry() {
  CommandEntry e = named("reduce", "FILE --op OP", "a reduction of the keys (--algo flat|nested|cub on the GPU)");
  e.kind = CommandKind::reduce;
  e.groups = kReports | kFormat | kResources;
  e.quiet_help = "no progress line: print the result and errors only";
  e.hints = {{"-r", ": a reduction does not depend on the order"}, {"--reverse", ": a reduction does not depend on the order"}};
  e.plannable = true;
  e.add_options = add_reduce_options, e.build = build_reduce, e.run = run_reduce;
  return e;
}

CommandEntry graph_build_entry() {
  CommandEntry e = named("graph build", "IN -o GRAPH", "an edge list (snap|mtx|bin32|bin64) to a CSR graph");
  e.kind = CommandKind::graph_build;
  e.groups = kReports | kResources | kSortEngine;
  e.plannable = e.temp_note = true;
  e.add_options = add_graph_build_options, e.build = build_graph_build, e.run = run_graph_build;
  return e;
}

CommandEntry bfs_entry() {
  CommandEntry e = named("bfs", "GRAPH --source S", "BFS levels (-o) and parents (--parents) of a CSR graph, with stats");
  e.kind = CommandKind::bfs;
  e.groups = kQuiet | kStats | kResources;  // no progress line: its searches take milliseconds, its load is one read
  e.plannable = true;
  e.add_options = add_bfs_options, e.build = build_bfs, e.build_planned = bfs_request, e.run = run_bfs;
  return e;
}

CommandEntry info_entry() {
  CommandEntry e = named("info", "", "version, build, threads, memory, GPUs");
  e.groups = kResources;
  e.version = true;
  e.early_gpu = EarlyGpu::all;
  e.add_options = add_info_options, e.build = build_no_operands, e.run = run_info;
  return e;
}

CommandEntry clean_entry() {
  CommandEntry e = named("clean", "[-T DIR]...", "remove the temporary files of gxsort runs that were killed (-n: list only)");
  e.groups = kQuiet;
  e.more_help = kCleanHelp;
  e.early_gpu = EarlyGpu::none;
  e.add_options = add_clean_options, e.build = build_no_operands, e.run = run_clean;
  return e;
}

CommandEntry help_command_entry() {
  CommandEntry e = named("help", "", "the usage, or a command's options");
  e.listed = false;
  e.early_gpu = EarlyGpu::none;
  e.run = run_help;
  return e;
}

}  // namespace

const std::vector<CommandEntry>& command_table() {
  // In the order the usage lists them; help last.
  static const std::vector<CommandEntry> table{
      sort_entry(),   plan_entry(),        runs_entry(), merge_entry(), check_entry(), gen_entry(),
      dedupe_entry(), reduce_entry(), graph_build_entry(), bfs_entry(), info_entry(),  clean_entry(),
      help_command_entry()};
  return table;
}

const CommandEntry* command_at(int argc, const char* const* argv, int at, int& last, const CommandEntry** partial) {
  *partial = nullptr;
  if (at >= argc) return nullptr;
  const std::string word = argv[at];
  for (const CommandEntry& e : command_table()) {
    if (!e.listed) continue;
    const std::string name = e.name;
    const size_t space = name.find(' ');
    if (name.substr(0, space) != word) continue;
    if (space == std::string::npos) { last = at; return &e; }
    if (at + 1 < argc && name.substr(space + 1) == argv[at + 1]) { last = at + 1; return &e; }
    *partial = &e;
  }
  return nullptr;
}

const CommandEntry& help_entry() { return command_table().back(); }

const CommandEntry* version_entry() {
  for (const CommandEntry& e : command_table())
    if (e.version) return &e;
  return nullptr;
}

}  // namespace gxsort::cli
