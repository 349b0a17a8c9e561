// What every lines command runs with, resolved once from its options: the order (-u of
// the options folded into it), the budget, threads, temp directories, the in-memory
// API's options for sorting prefixes, and the merge's buffers and fan-in.
#pragma once
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "gxsort/lines.hpp"
#include "gxsort/memory.hpp"
#include "lines/merge.hpp"

namespace gxsort::lines {

struct LinesJob {
  LineOrder order;
  uint64_t memory = 0;
  unsigned threads = 1;
  std::vector<std::string> tmp_dirs;
  MemoryOptions sort_options;  // argsort of the prefixes: opt's device, budget, threads, cancel
  size_t fan_in = 0;
  size_t merge_buffer = 0;     // each reader's and the writer's buffer in a merge
  size_t gather_buffer = 0;    // each thread's buffer writing a sorted block
  bool keep_last = true;       // sort: the last chunk kept in memory for the last merge (sort_lines.cpp)
  unsigned run_writers = 1;    // sort: the threads that write a run beside the next chunk's sort
};

// `output` chooses the default temp directory (beside it; "" for none: /tmp or $TMPDIR).
LinesJob lines_job(const LineOrder& order, const EngineOptions& opt, const std::string& output);

// The lines the in-memory sort of a whole text of `text` bytes may index beside it in the
// budget (kIndexBytesPerLine each): more go through runs; 0 (none fit) when the text
// goes through runs whatever its lines (sort_lines and plan_lines decide by it).
size_t whole_max_lines(uint64_t text, const LinesJob& job);

// The fan-in of a merge of inputs (merge --lines): job.fan_in, lower where its readers'
// and writer's buffers (job.merge_buffer each) would not fit job.memory; 2 at least.
size_t budget_fan_in(const LinesJob& job);

// The merge's setup for `job`.
MergeSetup merge_setup(const LinesJob& job, const EngineOptions& opt, bool check_sorted);

// The backend that sorts the prefixes: "cuda" where argsort finds a GPU, else "cpu".
std::string prefix_backend(const EngineOptions& opt);

}  // namespace gxsort::lines
