// The last merge of sort's runs on several threads: splitter lines chosen from the runs'
// indexes (run_index.hpp) cut the output into parts; every run is cut after its last
// line that is not after a splitter (compare_lines: equal lines never straddle two
// parts), so each part is the merge of one byte range of every run, merged on its own,
// stably (ties to the lower run), and the parts in order are the one merge's output.
// With -u compare_lines compares the keys only: equal keys stay in one part, whose
// first line is kept. The parts write at their places in parallel: without -u a part's
// output starts at the sum of its runs' bytes before it; with -u the parts' sizes are
// counted first by a merge that writes nothing (merge_split.cpp, part_offsets).
// A resumable sort's split and parts are pieces of its job (SplitKeeper): a resume
// takes the split a killed run journalled and merges only the parts it did not finish.
#pragma once
#include <cstdint>
#include <vector>

#include "io/temp_files.hpp"
#include "lines/merge.hpp"
#include "lines/run_index.hpp"

namespace gxsort::lines {

// A table of cuts: [p][r], where part p starts in input r (a run file's byte offset; the
// block of lines sorted in memory, the last input: a sorted position); [parts][r]: its size.
using CutTable = std::vector<std::vector<uint64_t>>;

// The split of the last merge: its cuts, and at[p], where part p's output starts
// (at[parts]: the output's size); the first `files` inputs are run files.
struct Split {
  CutTable cuts;
  std::vector<uint64_t> at;
  size_t files = 0;
  size_t parts() const { return at.empty() ? 0 : at.size() - 1; }
};
// The bytes of the run files part p of `split` merges.
uint64_t part_input(const Split& split, size_t p);

// The split and the finished parts of a resumable sort's last merge (runs_job.hpp): a
// killed run's are taken, new ones kept. Parts call kept_part and keep_part on their
// own threads, at once.
class SplitKeeper {
 public:
  virtual ~SplitKeeper() = default;
  // The split a killed run of the job made of inputs of these sizes (the runs' bytes, then
  // the block's lines), when it kept one that fits them (else false: the split is made
  // again, and every part merged).
  virtual bool kept_split(const std::vector<uint64_t>& input_sizes, Split& split) = 0;
  virtual void keep_split(const Split& split) = 0;
  // Whether part p's bytes are in `out` (written by a killed run, and they check out);
  // `lines` set to its lines.
  virtual bool kept_part(size_t p, const Split& split, const io::File& out, uint64_t& lines) = 0;
  // Part p is written into the output; `checksum`: the io::xxh3_blocks of its bytes, hashed
  // as they were written.
  virtual void keep_part(size_t p, const Split& split, uint64_t checksum, uint64_t lines) = 0;
};

// `runs` (indexed by `indexes`, one each, in order) and `last` (lines sorted in memory,
// after the runs; null: none) merged into `out` from byte 0 in about 4 parts per thread
// of setup.threads; with a `keeper`, the parts a killed run wrote are kept. The block is
// cut by a binary search of its sorted lines.
MergeCounts merge_split(const std::vector<io::TempFile>& runs, const std::vector<RunIndex>& indexes,
                        const io::File& out, const MergeSetup& setup, SplitKeeper* keeper = nullptr,
                        const SortedLines* last = nullptr);

}  // namespace gxsort::lines
