// The whole job's progress. Each phase of a job (run formation, every merge level, a
// partition's two passes) reports its own bytes; a progress line built on those alone
// restarts at 0% with every phase ("merge 100%" then "merge 5%"). WholeProgress weighs
// each phase by the bytes its plan reads and writes (Plan::bytes_read/bytes_written) and
// adds the job's bytes done and total to every report, never letting them go backwards.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gxsort/progress.hpp"
#include "plan/plan.hpp"

namespace gxsort {

struct ProgressStage {
  std::string phase;   // the phase name its reports carry
  size_t level = 0;    // its merge level (0: not a level of a merge tree)
  uint64_t bytes = 0;  // what it reads and writes
};

// The stages of a sort that runs `plan`, in order; their bytes add up to the plan's
// bytes_read + bytes_written.
std::vector<ProgressStage> sort_stages(const Plan& plan);
// The merge levels of `plan` alone (merge of the user's files, the runs of a stream).
std::vector<ProgressStage> merge_stages(const Plan& plan);

class WholeProgress {
 public:
  // `done_bytes`: what stages finished before this tracker (a stream's run formation).
  WholeProgress(ProgressFn sink, std::vector<ProgressStage> stages, uint64_t done_bytes = 0);
  WholeProgress(const WholeProgress&) = delete;
  WholeProgress& operator=(const WholeProgress&) = delete;
  // What the job's code reports to: empty when nothing listens (callers test it).
  ProgressFn fn();

 private:
  void report(Progress p);

  ProgressFn sink_;
  std::vector<ProgressStage> stages_;
  std::vector<uint64_t> before_;  // the bytes of the stages before each one
  uint64_t total_ = 0, done_ = 0;
  std::mutex m_;                  // merge threads report at once; the sink draws one line
};

}  // namespace gxsort
