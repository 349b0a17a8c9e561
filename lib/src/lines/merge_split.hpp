// The last merge of sort's runs on several threads: splitter lines chosen from the runs'
// indexes (run_index.hpp) cut the output into parts; every run is cut after its last
// line that is not after a splitter (compare_lines: equal lines never straddle two
// parts), so each part is the merge of one byte range of every run, merged on its own,
// stably (ties to the lower run), and the parts in order are the one merge's output.
// Without -u a part's output starts at the sum of its runs' bytes before it, so the
// parts write at their places in parallel. -u is not split (its parts' sizes are known
// only once merged): merge_runs keeps it on one thread.
#pragma once
#include <vector>

#include "io/temp_files.hpp"
#include "lines/merge.hpp"
#include "lines/run_index.hpp"

namespace gxsort::lines {

// `runs` (indexed by `indexes`, one each, in order) merged into `out` from byte 0 in
// about 4 parts per thread of setup.threads.
MergeCounts merge_split(const std::vector<io::TempFile>& runs, const std::vector<RunIndex>& indexes,
                        const io::File& out, const MergeSetup& setup);

}  // namespace gxsort::lines
