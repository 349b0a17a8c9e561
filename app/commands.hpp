// The registry of the CLI's commands: one entry per command (its name, usage line,
// option groups, help, the function that adds its own options, the one that checks
// its operands into the Command, and the one that runs it and renders its report),
// all in one table (commands.cpp). A new command is one entry there; nothing else in
// the app compares command names.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort {
class DistributedSession;
}
namespace boost::program_options {
class options_description;
class variables_map;
}  // namespace boost::program_options

namespace gxsort::cli {

struct Command;
struct Args;
class ProgressLine;
class StatsFile;

// The groups of options shared by several commands (cli_options.cpp adds them, in
// these groups of the help: general, record format, memory and devices, engine).
enum OptionGroup : unsigned {
  kQuiet = 1u << 0,      // -q
  kStats = 1u << 1,      // -v, --stats-json
  kProgress = 1u << 2,   // --progress
  kFormat = 1u << 3,     // --type, --record-size, --key, ..., --format
  kReverse = 1u << 4,    // -r: an order applies
  kMemory = 1u << 5,     // --memory, --threads
  kTmpDir = 1u << 6,     // --tmp-dir
  kDevice = 1u << 7,     // --device, --device-memory
  kFsync = 1u << 8,      // --no-fsync
  kUnique = 1u << 9,     // -u
  kEngine = 1u << 10,    // --fan-in, --direct-io, --merge-kernel
  kOoc = 1u << 11,       // --ooc
  kLines = 1u << 12,     // --lines and GNU sort's text options (-k POS, -t, -n, ...; -h is --human-numeric-sort)
};

// What a command's run has at hand: the parsed Command, the engine options with the
// CLI's callbacks (progress, notes, the --stats-json write before the commit), the
// --stats-json file, the progress line and the stream its report goes to.
struct CommandRun {
  const Command& cmd;
  EngineOptions& opt;
  StatsFile& stats;
  ProgressLine& progress;
  FILE* report;  // stdout, or stderr when an output goes to stdout
};

// When the GPU starts early (main.cpp: EarlyCudaStart) for a command.
enum class EarlyGpu {
  none,             // never uses a GPU (help, gen, clean)
  first,            // the first GPU it is shown
  all,              // every GPU (info lists them)
  unless_cpu_sort,  // the first, unless --device auto gives the sort to the CPU backend (may_use_gpu)
};

// Why an option other commands take does not apply to this one (the error says it).
struct OptionHint {
  const char* option;
  const char* text;
};

struct CommandEntry {
  const char* name = "";      // one word, or "graph build"
  std::optional<CommandKind> kind;  // the library's command it runs (none: plan, info, clean, help)
  const char* operands = "";  // for the usage line
  const char* summary = "";
  unsigned groups = 0;   // OptionGroup bits
  // What -q leaves: reduce's result is its output (as wc's count is), check's is its
  // exit status. info and plan print their result and nothing else: no -q for them.
  const char* quiet_help = "print nothing but errors";
  const char* more_help = "";  // lines of --help after the summary
  const char* unique_help = "keep only the first record of each group of equal keys";  // -u's
  const char* lines_refusal = nullptr;  // with kLines: why it does not take text lines yet (null: it does)
  std::vector<OptionHint> hints;
  bool listed = true;         // in the usage's list (help is not)
  bool version = false;       // what `gxsort --version` runs (info)
  bool plannable = false;     // plan CMD ARGS plans it
  bool plan_default = false;  // what `plan IN` plans (sort: `plan sort IN` is `plan IN`)
  bool many_inputs = false;   // takes one or more inputs (plan CMD checks the count)
  bool plans = false;         // plan: plans a sort, or CMD ARGS
  bool npy_output = false;    // writes records: a .npy input or output makes them .npy
  bool temp_note = false;     // uses temp directories: notes what killed runs left there
  bool output_dir = false;    // -o names a directory (runs), not a file beside which temp files go
  bool gnu_sort = false;      // GNU sort's habits: -c/-C/-m run check/merge, no input is stdin, no -o stdout
  EarlyGpu early_gpu = EarlyGpu::first;
  // Its own options (after the general ones, before the shared groups), in help order.
  void (*add_options)(boost::program_options::options_description&, Command&, Args&) = nullptr;
  // Its operands and the options it requires, into the Command (usage errors).
  void (*build)(const Args&, const boost::program_options::variables_map&, Command&) = nullptr;
  // What of its request plan CMD needs beyond the options (bfs: its searches); null: none.
  void (*build_planned)(const Args&, const boost::program_options::variables_map&, Command&) = nullptr;
  // Runs it and renders its report; returns the exit status.
  int (*run)(CommandRun&) = nullptr;
  // A rank of a distributed job (--distributed): its share of the job; null: none.
  RunStats (*run_rank)(const Command&, const EngineOptions&, DistributedSession&) = nullptr;
};

const std::vector<CommandEntry>& command_table();
// The listed command named by the word(s) at argv[at..] ("graph build" is two words),
// `last` set to the index of its last word; null when there is none. `partial`: the
// entry of a two-word name whose first word alone is there (else null).
const CommandEntry* command_at(int argc, const char* const* argv, int at, int& last, const CommandEntry** partial);
// The entry of what `gxsort help` and `--help` print, and of `gxsort --version`.
const CommandEntry& help_entry();
const CommandEntry* version_entry();

}  // namespace gxsort::cli
