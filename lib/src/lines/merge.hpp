// The k-way merge of sorted lines: a loser tree by compare_lines, ties to the reader of
// the lower index (stable: runs and inputs in order), -u applied as lines leave it.
// Used by sort (its runs) and merge (its inputs), in passes when they are more than the fan-in.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/lines.hpp"
#include "io/temp_files.hpp"
#include "lines/line_reader.hpp"
#include "lines/run_index.hpp"
#include "lines/write_lines.hpp"

namespace gxsort::lines {

class SplitKeeper;  // merge_split.hpp

struct MergeCounts {
  uint64_t lines = 0;  // written
  uint64_t bytes = 0;  // written
  size_t parts = 1;    // the merges it was split into (merge_split)
  uint64_t input_bytes = 0;  // merge_inputs: read from its inputs (not from its own temp files)
};

// What a merge runs with.
struct MergeSetup {
  const LineOrder* order = nullptr;
  bool check_sorted = false;   // refuse an input out of order: Error(usage) "LABEL: not sorted at line N"
  size_t buffer_bytes = 0;     // each reader's and the writer's buffer
  uint64_t max_line = 0;       // a longer line: fail_long_line (the budget)
  unsigned threads = 1;        // the last merge of indexed runs: its parts merged on these
  const CancelToken* cancel = nullptr;
  std::function<void(uint64_t bytes_read)> progress;  // called at each buffer written (may be empty)
};

// Merges `readers` (sorted) into `out`, each line followed by the terminator. -u
// (order->unique) keeps the first line of each run of equal keys.
MergeCounts merge_lines_into(std::vector<std::unique_ptr<LineReader>>& readers, LineWriter& out,
                             const MergeSetup& setup);

// The passes merge_runs makes over `runs` runs with `fan_in`: each merges groups of up to
// fan_in (a group of one carried over) until one merge into the output is left.
size_t merge_passes(size_t runs, size_t fan_in);

// Sorted run files merged into `out` from byte 0: in passes of at most `fan_in` runs
// into new runs in `tmp_dirs` (each pass's inputs removed as it ends) until one pass
// into `out` is left. `levels` is set to the passes made. With an index of every run
// (`indexes`: one pass), that pass is split over setup.threads (merge_split; -u from 4),
// its split and parts kept by `keeper` when given (a resumable sort's).
// `last`: the lines of the text's last chunk, sorted in memory, merged as a run after
// the others (the caller keeps it only where they are one pass).
MergeCounts merge_runs(std::vector<io::TempFile> runs, const io::File& out, size_t fan_in,
                       const std::vector<std::string>& tmp_dirs, const Context& context, const MergeSetup& setup,
                       size_t& levels, const std::vector<RunIndex>& indexes = {}, SplitKeeper* keeper = nullptr,
                       const SortedLines* last = nullptr);

// A sorted file to merge: a temp file of the merge's own (removed once merged), an
// input it only reads (checked to be in order as it is read, when setup.check_sorted),
// or a block of lines sorted in memory.
struct MergeRun {
  io::TempFile temp;
  const io::File* input = nullptr;  // set: an input, named `label` in messages
  const SortedLines* block = nullptr;  // set: a block's lines
  std::string label;
  const io::File& file() const { return input ? *input : temp.file(); }
};

// merge_runs' passes over any runs (merge of sorted inputs): the same groups, temp files
// and levels; a pass's group of the merge's temp files alone is not checked.
MergeCounts merge_inputs(std::vector<MergeRun> runs, const io::File& out, size_t fan_in,
                         const std::vector<std::string>& tmp_dirs, const Context& context, const MergeSetup& setup,
                         size_t& levels);

}  // namespace gxsort::lines
