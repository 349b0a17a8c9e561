// Temporary files that never outlive the process: each is registered in a fixed,
// lock-free table that a front end's signal handling can walk (unlink is
// async-signal-safe: gxsort/signals.hpp, remove_all_temps_now), so that a process dying
// of a signal removes them too; destructors remove them on success, on errors and when a
// call is cancelled.
#pragma once
#include <string>

#include "gxsort/cancel.hpp"
#include "gxsort/context.hpp"
#include "io/file.hpp"

namespace gxsort::io {

// Tests only: tells context.test.stop_at that this process reached `point` (the CLI:
// where GXSORT_TEST_STOP_AT names it, it stops itself with SIGSTOP, the first time only
// unless every_time, so that a test can kill it, signal it or change its input at a
// known point however fast or loaded the machine; kill -CONT lets it go on). The points:
// a temp file kind ("out", "run", "bucket", "merge", "gen", ...), once that file exists
// (TempFile::create); "in-place": halfway through an in-place rewrite (Output's copy
// back into the file); "journal:KIND": after each journal line of a piece of that kind
// ("run", "level", "final", "out", "bucket", ...; resume::JobDir::record), every time.
void test_stop_at(const Context& context, const std::string& point, bool every_time = false);

// While a user's file is rewritten in place (io/output.hpp), the process must not end
// halfway through the rewrite: while one of these lives, begin_process_exit()
// (gxsort/signals.hpp) is false and process_exit_held_note() gives `note`, so a front
// end's fatal path waits for the rewrite to be whole. One at a time. Made once the
// process is ending (begin_process_exit() was true), it waits for ever.
class ProcessExitHeld {
 public:
  explicit ProcessExitHeld(const std::string& note);
  ~ProcessExitHeld();
  ProcessExitHeld(const ProcessExitHeld&) = delete;
  ProcessExitHeld& operator=(const ProcessExitHeld&) = delete;
};

// Every temp file of a job is named ".gxsort.<host>.<pid>.<kind>.<n>.tmp", so that one
// glob (.gxsort.*.tmp) finds what a killed job left, and `gxsort clean` can tell
// whether its process is still alive (io/debris.hpp); <n> is random (not guessable by
// another user of a shared directory). Created 0600 whatever the umask: another user
// must not read what is sorted (an output gets its final mode as it is committed).
constexpr const char* kTempPrefix = ".gxsort.";
constexpr const char* kTempSuffix = ".tmp";
const std::string& this_host_label();
std::string temp_name(const std::string& kind, long pid, unsigned long n);
// Whether `path` is a temp file this process holds now (as it was named at create or
// move_to): removed on signals and exit, so a job into or out of it cannot be resumed.
bool is_temp_file(const std::string& path);

// Where `gxsort clean` looks without -T: $TMPDIR, else /tmp (and the current directory).
std::string default_clean_dir(const Context& context);
// After a kill -9, `gxsort clean` must find what this process left in directories it
// does not look in by default (beside an output, a -T directory): the first time a
// temp file or job directory goes into such a directory, its real path is added to the
// list of context.debris_list, a temp file of this process in default_clean_dir() (kind
// kDirsKind, each path ended by a NUL), which clean reads and follows. Best effort:
// nothing when that directory is not writable, or the Context has no list. Removed,
// like every temp file, on exit, errors and signals, and with the list's last Context.
constexpr const char* kDirsKind = "dirs";
void note_debris_dir(const Context& context, const std::string& dir);

// A created temporary file, unlinked when destroyed unless commit_rename() moved it
// into place or release() handed its path to the caller.
class TempFile {
 public:
  TempFile() = default;
  // Creates "<dir>/.gxsort.<host>.<pid>.<kind>.<random>.tmp" (kind: a word without
  // dots), 0600; a name that exists is never opened: another random one is tried.
  // `context`: its test hooks and where `gxsort clean` looks (note_debris_dir).
  static TempFile create(const Context& context, const std::string& dir, const std::string& kind);
  // The same without note_debris_dir (the list of directories itself).
  static TempFile create_unlisted(const std::string& dir, const std::string& kind);
  // The temp file an output is written to before commit_rename: in the target's
  // directory (so the rename is atomic), named in messages as the target.
  static TempFile beside(const Context& context, const std::string& target, const std::string& kind = "out");
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&& o) noexcept;
  ~TempFile();

  File& file() { return file_; }
  const File& file() const { return file_; }
  const std::string& path() const { return path_; }
  // fsync (unless sync is false), close and rename over `target` (atomic replacement
  // within one filesystem). `context`: its timeline.
  void commit_rename(const std::string& target, bool sync, const Context& context);
  // Renames the file to `target` (same file system) and keeps tracking it there: it is
  // still removed on errors and signals until release(). For files that become final
  // together, when a last file (a manifest) commits them all.
  void move_to(const std::string& target);
  // Close and delete now.
  void remove();
  // Stop tracking: the file stays (used by `gxsort runs`, whose run files are output).
  std::string release();
  // Out of remove_all_temps_now's table, still removed by the destructor unless
  // `cancel` was set (the call is cancelled: a front end's signal): a resumable job's
  // piece (engine/job.hpp), which a signal must leave for --resume.
  void keep_on_signals(const CancelToken* cancel = nullptr);
  // An existing file of a resumable job, `name` in the directory `dir` (a descriptor),
  // opened read-write and owned like that (removed by the destructor, not by signals).
  // Opened without following a link or blocking, and only when it is a regular file of
  // the caller's: anything else is refused, Error(io) naming `path` and its owner.
  static TempFile adopt(int dir, const std::string& name, const std::string& path);

 private:
  void unregister();
  File file_;
  std::string path_;
  int slot_ = -1;
  const CancelToken* kept_if_cancelled_ = nullptr;  // keep_on_signals
};

}  // namespace gxsort::io
