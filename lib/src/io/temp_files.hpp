// Temporary files that never outlive the process: each is registered in a fixed,
// lock-free table that a signal handler can walk (unlink is async-signal-safe), so
// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (as in GNU sort) remove them too; destructors remove them on success and
// on errors.
#pragma once
#include <string>

#include "io/file.hpp"

namespace gxsort::io {

// Installs the SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE handlers once (idempotent).
void install_temp_cleanup_handlers();
// Unlinks every live temp file now (async-signal-safe; for a fatal signal's handler).
void remove_all_temps_now();
// A process that dies of one of those signals waits this long after removing its temp
// files (default 0). A rank of a distributed sort sets it: mpirun (Open MPI 4.1) sends
// every rank SIGTERM, and SIGKILL as soon as the first one is gone, before the handlers
// of ranks the scheduler had not run yet removed their files (seen on 2 oversubscribed
// cores); the ranks that are done wait for them.
void set_signal_linger(unsigned milliseconds);

// Every temp file of a job is named ".gxsort.<host>.<pid>.<kind>.<n>.tmp", so that one
// glob (.gxsort.*.tmp) finds what a killed job left, and `gxsort clean` can tell
// whether its process is still alive (io/debris.hpp).
constexpr const char* kTempPrefix = ".gxsort.";
constexpr const char* kTempSuffix = ".tmp";
const std::string& this_host_label();
std::string temp_name(const std::string& kind, long pid, unsigned long n);

// A created temporary file, unlinked when destroyed unless commit_rename() moved it
// into place or release() handed its path to the caller.
class TempFile {
 public:
  TempFile() = default;
  // Creates "<dir>/.gxsort.<host>.<pid>.<kind>.<counter>.tmp" (kind: a word without dots).
  static TempFile create(const std::string& dir, const std::string& kind);
  // The temp file an output is written to before commit_rename: in the target's
  // directory (so the rename is atomic), named in messages as the target.
  static TempFile beside(const std::string& target, const std::string& kind = "out");
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&& o) noexcept;
  ~TempFile();

  File& file() { return file_; }
  const File& file() const { return file_; }
  const std::string& path() const { return path_; }
  // fsync (unless sync is false), close and rename over `target` (atomic replacement
  // within one filesystem).
  void commit_rename(const std::string& target, bool sync = true);
  // Renames the file to `target` (same file system) and keeps tracking it there: it is
  // still removed on errors and signals until release(). For files that become final
  // together, when a last file (a manifest) commits them all.
  void move_to(const std::string& target);
  // Close and delete now.
  void remove();
  // Stop tracking: the file stays (used by `gxsort runs`, whose run files are output).
  std::string release();
  // Out of the signal handler's table, still removed by the destructor: a resumable
  // job's piece (engine/job.hpp), which a signal must leave for --resume.
  void keep_on_signals();
  // An existing file of a resumable job, opened read-write and owned like that.
  static TempFile adopt(const std::string& path);

 private:
  void unregister();
  File file_;
  std::string path_;
  int slot_ = -1;
};

}  // namespace gxsort::io
