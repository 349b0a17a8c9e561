// The runs of an out-of-core sort of lines written on a thread of their own: run k is
// written while chunk k+1 is read, indexed and sorted (LineChunks with two slots keeps
// both texts), so the disk's write and the sort overlap instead of taking turns.
#pragma once
#include <cstdint>
#include <future>

#include "io/temp_files.hpp"
#include "lines/line_index.hpp"
#include "lines/lines_job.hpp"
#include "lines/run_index.hpp"
#include "lines/runs_job.hpp"
#include "lines/sort_block.hpp"
#include "parallel/background_tasks.hpp"

namespace gxsort::lines {

// Where a run goes and what it holds: run `i` of a job (`rj`: journalled once written),
// the text's bytes [begin, end) in `lines` lines, sampled into `index` when given.
struct RunTarget {
  io::TempFile* run;
  size_t i;
  uint64_t begin, end, lines;
  RunIndex* index;
};

class RunWriter {
 public:
  RunWriter(const LinesJob& job, RunsJob* rj) : job_(job), rj_(rj), thread_(1) {}
  // Waits for a run being written (a caller unwinding from an error leaves its file to
  // its TempFile; the write's own error is dropped with it).
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Writes `lines` in `order` to t.run on the writer's thread; `lines` (and its text),
  // t.run and t.index must stay valid until wait() returns.
  void start(const RunTarget& t, const LineRefs& lines, BlockOrder order);
  // The run started last is written (its error is thrown here) and journalled.
  void wait();

 private:
  const LinesJob& job_;
  RunsJob* rj_;
  RunTarget pending_{};
  BlockOrder order_;
  std::future<void> done_;
  parallel::BackgroundTasks thread_;  // last: joined before the members above go
};

}  // namespace gxsort::lines
