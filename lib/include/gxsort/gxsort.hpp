// The public host API of gxsort: one call per CLI subcommand. No CUDA types here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/error.hpp"
#include "gxsort/format.hpp"
#include "gxsort/progress.hpp"

namespace gxsort {

struct EngineOptions {
  Format format;
  std::string memory;                 // host budget text (--memory); "" = half of RAM
  std::vector<std::string> tmp_dirs;  // --tmp-dir; empty = $TMPDIR, else the output's directory
  size_t fan_in = 0;                  // --fan-in; 0 = choose
  unsigned threads = 0;               // --threads; 0 = all cores
  std::string device = "auto";        // cpu | cuda | auto
  std::string device_memory;          // --device-memory; "" = 80% of free device memory
  std::string merge_kernel = "auto";
  bool unique = false;                // -u: keep the first record of each group of equal keys
  bool fsync = true;                  // fsync the output before renaming it into place  // --merge-kernel: auto | basic | tiled | circular | thrust (GPU merges)
  ProgressFn progress;
};

struct PhaseStat {
  std::string name;
  double seconds = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
};

struct RunStats {
  std::string command;
  std::string backend;
  std::string mode;
  uint64_t records = 0;
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  size_t runs = 0;
  size_t merge_levels = 0;
  double seconds = 0;
  std::vector<PhaseStat> phases;
};
std::string stats_json(const RunStats& s);

// gxsort sort IN -o OUT: a stable sort of the records of IN into OUT (which may be IN).
RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt);

// gxsort plan IN: what sort_file would do. format: "text", "json" or "dot".
std::string plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt,
                      const std::string& format);

// gxsort runs IN -o DIR: sorted run files DIR/run-NNNNNN.bin and DIR/manifest.txt.
RunStats form_runs(const std::string& input, const std::string& out_dir, const EngineOptions& opt);

// gxsort merge FILE... -o OUT: a stable merge (ties by argument order) of sorted files.
// A directory argument holding a manifest.txt stands for its runs, in order.
RunStats merge_files(const std::vector<std::string>& inputs, const std::string& output, const EngineOptions& opt);

struct CheckResult {
  uint64_t records = 0;
  bool sorted = true;
  uint64_t first_violation = 0;  // index of the first record smaller than its predecessor
  uint64_t duplicates = 0;       // records whose key equals the previous record's key
  uint64_t checksum = 0;         // order-independent: sum of a 64-bit hash of each record
};
CheckResult check_file(const std::string& path, const EngineOptions& opt);

struct GenOptions {
  uint64_t count = 0;
  std::string dist = "uniform";  // uniform|sorted|reverse|few-unique|zipf|all-equal|bits
  uint64_t seed = 1;
};
RunStats gen_file(const std::string& output, const Format& f, const GenOptions& g, const EngineOptions& opt);

// gxsort reduce FILE --op OP: a reduction of the records' typed keys, streamed through
// the chunk scheduler. Returns the printed result ("sum 42", "minmax -1 7", ...).
// algo: flat | nested | cub (GPU kernels).
struct ReduceResult {
  std::string text;
  RunStats stats;
};
ReduceResult reduce_file(const std::string& path, const std::string& op, const std::string& algo, const EngineOptions& opt);

// gxsort info: version, build options, threads, memory, devices.
std::string info_text(const EngineOptions& opt);

}  // namespace gxsort
