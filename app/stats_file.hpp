// The --stats-json file of a command: checked, and its temp file made with room
// reserved, before any work (refused, exit 2, when it names an input or an output, or
// is "-" while an output is too: SideOutput); written and committed by write(), which
// a command that writes outputs calls through EngineOptions::before_commit, before its
// outputs replace anything (a later call does nothing). "-" writes to standard output.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort::cli {

class StatsFile {
 public:
  StatsFile(const std::string& path, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
            const EngineOptions& opt);
  void write(const RunStats& s, bool sync);

 private:
  std::string path_;
  std::unique_ptr<SideOutput> file_;
  bool written_ = false;
};

}  // namespace gxsort::cli
