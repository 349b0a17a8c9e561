// A `gxsort runs` directory, for runs of records (runs_merge.cpp) and of text lines
// (lines/form_line_runs.cpp): made and checked before runs go in, its runs opened for a
// merge as its manifest lists them (engine/runs_manifest.hpp), their checksums verified
// while the merge reads them.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "engine/runs_manifest.hpp"
#include "gxsort/context.hpp"
#include "io/file.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort {

// The output directory of `runs`: made if missing, removed again (if still empty) unless
// kept; throws Error naming it when it cannot be made.
class CreatedDir {
 public:
  explicit CreatedDir(const std::string& dir);
  ~CreatedDir();
  CreatedDir(const CreatedDir&) = delete;
  CreatedDir& operator=(const CreatedDir&) = delete;
  void keep() { kept_ = true; }

 private:
  std::string dir_;
  bool created_ = false, kept_ = false;
};

// Refuses (Error usage) a directory that is not writable or already holds a manifest.txt
// or run files (links a killed `runs` left to its job's pieces removed first).
void check_runs_dir_empty(const std::string& out_dir);

// A run of a runs directory, opened, with the checksum its manifest gives.
struct ListedRun {
  std::shared_ptr<io::File> file;
  uint64_t checksum = 0;
};

// The runs DIR's manifest lists (checked: read_runs_manifest), opened in order, each of
// the size it says.
std::vector<ListedRun> open_listed_runs(const std::string& dir, const RunsFormat& f);

// After the manifest is in place: the directory's entries made durable (io::sync_directory;
// `context`'s test hook fails it). A failure is Error(io) naming the directory, whose
// manifest and runs, the user's from then on, stay.
void sync_runs_dir(const std::string& out_dir, const Context& context);

// An output inside a runs directory being merged is refused: a later merge of the
// directory would take it for a run.
void refuse_output_in_runs_dir(const std::string& output, const std::vector<std::string>& runs_dirs);

// Hashes the runs on a thread of its own while the merge reads them; finish() throws
// Error(usage) naming the first whose checksum is not the manifest's. Nothing is
// committed before it returns.
class RunVerifier {
 public:
  explicit RunVerifier(std::vector<ListedRun> runs);
  ~RunVerifier();
  void finish();

 private:
  void run();
  std::vector<ListedRun> runs_;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  parallel::OwnThread thread_;
};

}  // namespace gxsort
