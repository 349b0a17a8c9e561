// Parsing the command line into one Command: the subcommand, its operands and the
// library's option structs. Pure (no I/O), so the tests call it directly.
#pragma once
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

struct Command {
  std::string name;                 // sort, plan, runs, merge, check, gen, info, help
  std::vector<std::string> inputs;  // operands
  std::string output;               // -o
  EngineOptions engine;
  GenOptions gen;
  std::string plan_format = "text"; // plan: text | json | dot
  std::string reduce_op;            // reduce: --op
  std::string reduce_algo = "flat"; // reduce: --algo
  std::string stats_json;           // --stats-json FILE
  bool quiet = false;
  bool dry_run = false;             // clean: list, remove nothing
  bool verbose = false;
  std::string help_text;            // set when --help was asked for (name == "help")
};

// Throws gxsort::Error(usage) with a message for bad options.
Command parse_command_line(int argc, const char* const* argv);

std::string usage_text();

}  // namespace gxsort::cli
