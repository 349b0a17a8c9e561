// One block of lines sorted and written: the whole text of an in-memory sort, or one run
// (sort's runs, and the run files of `gxsort runs`).
#pragma once
#include <cstdint>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "lines/line_index.hpp"
#include "lines/lines_job.hpp"
#include "lines/run_index.hpp"

namespace gxsort::lines {

struct Written {
  uint64_t lines = 0, bytes = 0;
};

// The sorted order of a block's lines: the permutation, and -u's flags (empty without -u).
struct BlockOrder {
  Permutation perm;
  KeepFlags keep;
};
BlockOrder order_block(const LineRefs& lines, const LinesJob& job, const ProgressFn& progress = nullptr);

// `lines` sorted (-u: the first of equal keys kept) into `out` from byte 0. The sort of
// the whole text (not a run's) reports its "sort" and "write" phases to `progress`; a
// run's lines are sampled into `index` (when given) as they are written.
Written sort_block(const LineRefs& lines, const io::File& out, const LinesJob& job,
                   const ProgressFn& progress = nullptr, RunIndex* index = nullptr);

}  // namespace gxsort::lines
