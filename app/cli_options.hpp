// Parsing the command line into one Command: the subcommand, its operands and the
// library's option structs, typed (enums and byte counts: the library parses no text).
// Each command accepts its own options only (an option that does not apply is an
// error); pure (no I/O), so the tests call it directly.
#pragma once
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "gxsort/lines.hpp"

namespace gxsort::cli {

struct CommandEntry;

struct Command {
  const CommandEntry* entry = nullptr;  // its entry in the registry (commands.hpp)
  std::string name;                 // sort, plan, runs, merge, check, gen, ..., help
  std::vector<std::string> inputs;  // operands
  std::string output;               // -o
  bool stdout_default = false;      // sort without -o: stdout, refused where it is a terminal
  EngineOptions engine;
  GenOptions gen;
  PlanFormat plan_format = PlanFormat::text;
  CommandKind planned = CommandKind::sort;      // plan: the command planned (plan IN: sort)
  const CommandEntry* planned_entry = nullptr;  // plan CMD ARGS: its entry (null for plan IN)
  ReduceOp reduce_op = ReduceOp::sum;
  ReduceAlgo reduce_algo = ReduceAlgo::flat;
  std::string stats_json;           // --stats-json FILE
  bool quiet = false;
  bool verbose = false;
  bool progress = false;            // --progress: the progress line also where stderr is not a terminal
  bool dry_run = false;             // clean: list, remove nothing
  bool all_users = false;           // clean: other users' leftovers too (root)
  bool json = false;                // --json: the result as one JSON object
  bool format_given = false;        // format options were given (a .npy header must agree)
  std::vector<std::string> keys;    // --key: OFFSET:TYPE[:desc] fields, or NAME[:desc] fields of a structured .npy
  bool reverse = false;             // -r (a .npy header's key is reversed by it too)
  FloatOrder float_order = FloatOrder::total;  // --float-order (applied once the format is known: resolve_npy)
  bool threads_given = false;       // --threads was given (a distributed rank's default is its share)
  bool lines = false;               // text lines (--lines, or GNU sort's text options): line_order
  LineOrder line_order;             // their order, resolved once from GNU's options
  bool distributed = false;         // --distributed: a rank of an MPI job (sort, dedupe, plan)
  int ranks = 0;                    // plan --distributed --ranks N (0: the MPI job's ranks)
  std::string help_text;            // the help entry (commands.hpp): what to print
  bool help_is_error = false;       // `gxsort` alone: the usage goes to stderr, exit 2
};

// Throws gxsort::Error(usage) with a one-line message for bad options.
Command parse_command_line(int argc, const char* const* argv);

// .npy inputs: the header gives the format (checked against format options given);
// a .npy input or a -o ending in .npy makes the outputs .npy files. Reads the headers.
void resolve_npy(Command& cmd);

std::string usage_text();

// sort without -o writes stdout, unless it is a terminal: refused (usage error).
void refuse_terminal_output(const Command& cmd);

}  // namespace gxsort::cli
