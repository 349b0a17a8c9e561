// The inputs of merge --lines, opened as the merge opens them (plan merge --lines counts
// them the same way): files as given, each runs directory's runs in order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "commands/runs_dir.hpp"
#include "gxsort/lines.hpp"
#include "io/file.hpp"

namespace gxsort::lines {

struct MergeInputs {
  std::vector<std::shared_ptr<io::File>> files;
  std::vector<std::string> labels;     // each one's name in messages
  std::vector<ListedRun> listed;       // the runs of runs directories, verified as they are merged
  std::vector<std::string> runs_dirs;
};

// Refuses a stream named twice; a runs directory's manifest checked against `order`
// (open_listed_runs), its runs opened in order.
MergeInputs open_merge_inputs(const std::vector<std::string>& args, const LineOrder& order);

}  // namespace gxsort::lines
