// Text lines: GNU sort's C-locale order of lines (LC_ALL=C sort), its keys, fields and
// numbers, for files of any size, on the CPU or the GPU. A line is the bytes up to its
// terminator ('\n', or NUL with -z); a last line without one gets one, as GNU sort does.
// Lines are compared as `LC_ALL=C sort` with the same options compares them: the keys in
// order, then (unless stable or unique) the whole lines as unsigned bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort {

// How a key's text is compared (GNU sort's -n, -g, -h; text: bytes).
enum class LineKeyKind : uint8_t {
  text,             // unsigned bytes (with fold/dictionary/printable applied), shorter first on a tie
  numeric,          // -n: blanks, an optional '-', digits, one '.'; anything else is 0
  general_numeric,  // -g: as strtold reads it: errors first, then NaNs, -inf, numbers, +inf
  human_numeric,    // -h: -n with an SI suffix (K M G T P E Z Y R Q, k for K) ordering first
};

// One -k POS1[,POS2] after GNU's inheritance of the global options, with GNU's counting:
// fields and characters from 0 (GNU's -k2.3 is start_field 1, start_char 2).
struct LineKey {
  static constexpr size_t kWholeLine = SIZE_MAX;
  size_t start_field = kWholeLine;  // fields skipped before the key; kWholeLine: the line's start
  size_t start_char = 0;            // characters skipped after them
  size_t end_field = kWholeLine;    // kWholeLine: to the end of the line
  size_t end_char = 0;              // 0: to the end of end_field
  bool skip_start_blanks = false;   // b on POS1
  bool skip_end_blanks = false;     // b on POS2
  bool fold = false;                // f: lower case as upper case
  bool dictionary = false;          // d: blanks and alphanumerics only
  bool printable = false;           // i: printable characters only
  LineKeyKind kind = LineKeyKind::text;
  bool reverse = false;             // r
};

// The whole order of a lines command, resolved from GNU's options (line_order).
struct LineOrder {
  int separator = -1;           // -t: a byte; -1: fields are separated by runs of blanks (leading blanks belong to the field)
  std::vector<LineKey> keys;    // empty: the whole line, as bytes
  bool reverse = false;         // -r: reverses the last-resort comparison (and keys that inherit it)
  bool stable = false;          // -s: no last-resort comparison
  bool unique = false;          // -u: lines with equal keys are one; the first is kept; no last resort
  char terminator = '\n';       // -z: '\0'
};

// GNU sort's options as typed: what line_order resolves.
struct LineOptions {
  std::vector<std::string> keys;  // each -k text: "2", "2,2n", "1.3b,1.5"
  std::string global;             // the global ordering letters given (-b -d -f -g -h -i -n -r): "nr"
  std::string separator;          // -t's text ("" when not given; "\\0" is NUL, as GNU takes it)
  bool stable = false;            // -s
  bool unique = false;            // -u
  bool zero_terminated = false;   // -z
};

// The order the options give, with GNU's rules: global letters go to every key that has
// none of its own, a -k of none when no -k is given and a global letter other than r is
// (as GNU makes a key of the whole line). Throws Error(usage) with GNU's complaint (a
// field number of 0, an unknown letter, -n with -g, -t of two bytes, -M -R -V) naming
// the option.
LineOrder line_order(const LineOptions& o);

// GNU's comparison of two lines (their bytes without the terminator): < 0, 0 or > 0.
int compare_lines(const LineOrder& order, std::string_view a, std::string_view b);
// The keys alone (no last resort; with no keys, the whole line is the key, reversed by
// -r): equal keys are equal lines for -u and for check -u.
int compare_line_keys(const LineOrder& order, std::string_view a, std::string_view b);

// sort: the lines of `inputs` (concatenated, as GNU sort reads several files; "-" is
// standard input) in order into `output`, in memory when they fit opt.memory, else
// through sorted runs in private temp files merged within it (of regular inputs: pieces
// of a job kept on cancellation, reused by opt.resume: lines/runs_job.hpp). opt.unique
// (or order.unique) keeps the first line of each group of equal keys. opt.format is not used.
RunStats sort_lines(const std::vector<std::string>& inputs, const std::string& output, const LineOrder& order,
                    const EngineOptions& opt);
// plan --resume: the runs a killed sort_lines of the same job (inputs, order, budget,
// output) kept, read without taking its directory. resumable: the job keeps runs (regular
// inputs, more text than opt.memory); runs_kept: journalled runs, in the text's order, of
// the journalled size (the resume verifies their checksums first).
struct LinesResume {
  bool resumable = false;
  std::string job_dir;  // "": no killed run left one
  bool running = false; // a gxsort runs the job now
  size_t runs_kept = 0;
  size_t merge_parts = 0, parts_kept = 0;  // the last merge's split, and its parts journalled
  double last_merge_from = 0;              // the part of the last merge's input those parts merge
};
LinesResume inspect_sort_lines(const std::vector<std::string>& inputs, const std::string& output,
                               const LineOrder& order, const EngineOptions& opt);

// plan --lines: what a command of lines (sort, dedupe, merge, check, runs) would do with
// these inputs, output and options, decided by the functions the command decides by (its
// budget, chunks, fan-in, threads) from the inputs' sizes: they are opened as the command
// opens them, and none of their text is read.
enum class LinesPlanMode : uint8_t {
  in_memory,  // the whole text sorted in memory (when its lines' index fits: in_memory_lines)
  runs,       // sorted runs of at most chunk_bytes in temp files, merged in merge_passes
  stream,     // a stream: in memory if it ends within one chunk, else runs merged
  merge,      // merge: the sorted inputs merged, streamed (more than the fan-in: in merge_passes)
  pass,       // check: one streamed pass over the lines
};
const char* lines_plan_mode_name(LinesPlanMode m);  // "in-memory", "external", "stream", "merge", "pass"

struct LinesPlan {
  CommandKind command = CommandKind::sort;  // sort, dedupe, merge, check, runs
  LinesPlanMode mode = LinesPlanMode::in_memory;
  size_t inputs = 0;
  bool stream = false;          // an input is a stream: the text's size is known when it ends
  uint64_t input_bytes = 0;     // the regular inputs' bytes (the whole text unless stream)
  uint64_t memory = 0;          // the budget the command runs with
  unsigned threads = 1;
  std::string backend;          // what sorts the lines' prefixes: "cuda" or "cpu" (merge, check: "cpu")
  // in_memory: the most lines whose index fits beside the text (more go through runs); at
  // least input_bytes: the index fits whatever the lines (each is a byte at least).
  uint64_t in_memory_lines = 0;
  uint64_t chunk_bytes = 0;     // sort, dedupe, runs: the text a run holds at most
  uint64_t chunk_lines = 0;     // ... and its lines at most (lines shorter on average than
                                // chunk_bytes / chunk_lines make smaller runs, and more)
  uint64_t runs = 0;            // runs: input_bytes over chunk_bytes (at least that); merge: the inputs
  size_t fan_in = 0;
  size_t merge_passes = 0;      // runs: the passes merging them, the last into the output (runs: 0)
  std::vector<std::string> temp_dirs;  // sort, dedupe, runs: where the runs go
  bool resumable = false;       // the runs are a job's pieces, kept for --resume (sort, dedupe)
  std::optional<LinesResume> resume;   // opt.resume (sort, dedupe): what a killed run of the job left
};
LinesPlan plan_lines(CommandKind command, const std::vector<std::string>& inputs, const std::string& output,
                     const LineOrder& order, const EngineOptions& opt);
// gxsort runs --lines IN... -o DIR: the lines of `inputs` (as sort_lines reads them) in
// sorted runs of at most half of opt.memory's text each (opt.unique or order.unique:
// each run without two equal keys), DIR/run-NNNNNN.bin, and DIR/manifest.txt naming
// them with the lines' terminator and order, written last (as form_runs: DIR made if
// missing, refused if it holds a manifest or runs; nothing left on failure).
RunStats form_line_runs(const std::vector<std::string>& inputs, const std::string& out_dir, const LineOrder& order,
                        const EngineOptions& opt);

// merge (sort -m): sorted inputs merged, lines with equal keys in the inputs' order. An
// input out of order is refused (Error usage naming it and the line), nothing written.
// A directory of form_line_runs stands for its runs, in order, checked against its
// manifest (a merge by another order or of runs of records is refused, Error usage).
RunStats merge_lines(const std::vector<std::string>& inputs, const std::string& output, const LineOrder& order,
                     const EngineOptions& opt);

// check (sort -c): whether the lines of `path` are in order (with order.unique, strictly:
// no two equal keys). first_violation is the 1-based number of the first line out of
// order, and `line` its bytes (without the terminator).
struct LinesCheck {
  uint64_t lines = 0;
  bool sorted = true;
  uint64_t first_violation = 0;
  std::string line;
  RunStats stats;
};
LinesCheck check_lines(const std::string& path, const LineOrder& order, const EngineOptions& opt);

}  // namespace gxsort
