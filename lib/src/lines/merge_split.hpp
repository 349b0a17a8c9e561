// The last merge of sort's runs on several threads: splitter lines chosen from the runs'
// indexes (run_index.hpp) cut the output into parts; every run is cut after its last
// line that is not after a splitter (compare_lines: equal lines never straddle two
// parts), so each part is the merge of one byte range of every run, merged on its own,
// stably (ties to the lower run), and the parts in order are the one merge's output.
// With -u compare_lines compares the keys only: equal keys stay in one part, whose
// first line is kept. The parts write at their places in parallel: without -u a part's
// output starts at the sum of its runs' bytes before it; with -u the parts' sizes are
// counted first by a merge that writes nothing (merge_split.cpp, part_offsets).
#pragma once
#include <vector>

#include "io/temp_files.hpp"
#include "lines/merge.hpp"
#include "lines/run_index.hpp"

namespace gxsort::lines {

// `runs` (indexed by `indexes`, one each, in order) and `last` (lines sorted in memory,
// after the runs; null: none) merged into `out` from byte 0 in about 4 parts per thread
// of setup.threads. The block is cut by a binary search of its sorted lines.
MergeCounts merge_split(const std::vector<io::TempFile>& runs, const std::vector<RunIndex>& indexes,
                        const io::File& out, const MergeSetup& setup, const SortedLines* last = nullptr);

}  // namespace gxsort::lines
