// The manifest of a `gxsort runs` directory (DIR/manifest.txt), version 2, text:
//   gxsort-runs 2
//   format <record size> <key offset> <key type> <key bytes> <reverse 0|1>
//     (a composite key: format <record size> keys <the --key list, e.g. 0:u16be,4:f32:desc> <reverse 0|1>)
//     (text lines: format lines <the terminator and order they were sorted by, lines/line_runs_dir.hpp>)
//   runs <count>
//   run-000000.bin <records> <bytes> <xxh3-64 of the file, 16 hex digits>   (one per run, in order)
//   end <xxh3-64 of every byte of the manifest before this line>
// `merge DIR` trusts nothing it does not check: the manifest's own checksum, the run
// names and count against the directory, each file's size, and (while it merges) each
// file's checksum. Python: xxhash.xxh3_64(open(f, 'rb').read()).hexdigest().
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gxsort/format.hpp"

namespace gxsort {

struct ManifestRun {
  std::string path;  // DIR/run-NNNNNN.bin
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;
};

constexpr int kRunsManifestVersion = 2;
std::string run_file_name(size_t index);  // run-NNNNNN.bin

// What a runs directory's runs are: its manifest's format line, and how a run's bytes
// follow from its records (text lines: at least one byte, the terminator, each).
struct RunsFormat {
  std::string line;          // "format ...", the manifest's second line
  uint64_t record_size = 0;  // 0: text lines
};
RunsFormat runs_format(const Format& f);
// Runs of text lines sorted in the order `order_text` spells (format lines ORDER_TEXT).
RunsFormat line_runs_format(const std::string& order_text);

// The manifest text for runs of format f (names from run_file_name, in order).
std::string runs_manifest_text(const Format& f, const std::vector<ManifestRun>& runs);
std::string runs_manifest_text(const RunsFormat& f, const std::vector<ManifestRun>& runs);

// Names in DIR that look like run files (run-<digits>.bin), sorted.
std::set<std::string> run_files_in(const std::string& dir);

// Reads and checks DIR/manifest.txt against format f and the directory; throws
// Error(usage) naming the file for anything else than an intact version-2 manifest
// listing exactly the run files DIR holds, each of the size it says. Runs of text lines
// merged as records, or records as text lines, are refused saying which they are.
std::vector<ManifestRun> read_runs_manifest(const std::string& dir, const Format& f);
std::vector<ManifestRun> read_runs_manifest(const std::string& dir, const RunsFormat& f);

}  // namespace gxsort
