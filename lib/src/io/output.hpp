// Where a command's output goes: checked before any work, made real at commit, and
// nothing the user had is replaced by anything but the finished output.
//   - A new path or an existing regular file (a symlink is followed to its target): the
//     output is written into a temp file beside the target; commit fsyncs it, gives it
//     the old file's mode (and, as root, its owner), renames it over the target and
//     fsyncs the directory.
//   - An existing file with other hard links keeps its inode: the finished, synced temp
//     is copied into it (as GNU sort rewrites in place). That copy cannot be atomic, so
//     the complete output is first renamed to "<target>.gxsort-sorted" (a name no
//     cleanup removes: kKeptSuffix) and locked; a process ending of a signal waits until
//     the copy is whole (io::ProcessExitHeld), and only then is that file removed. After
//     a kill -9 or an I/O error in the copy it stays, the one complete copy: the error,
//     the next command's note and `gxsort clean` name it and say how to restore it.
//   - "-" (standard output), one of this process's descriptors (/dev/stdout, /dev/fd/N:
//     written through it, so `>> log` appends) or an existing file that is not regular
//     (character device, FIFO): never replaced, never created. A socket is refused. The output is written
//     into a temp file in the spool directory (the first temp directory), and commit
//     copies it, in order, into the target: nothing reaches it unless the run succeeded.
// Commit is two steps (commit_all): everything that can fail (the header, mode, owner,
// fsync, the room of an in-place rewrite) for every output first, then the step that
// makes each real (a copy into a stream, a rename, an in-place rewrite).
#pragma once
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "io/temp_files.hpp"
#include "io/unique_fd.hpp"

namespace gxsort::io {

// A header in front of the output's data (a .npy header): `bytes` long, its text made
// at commit from the data's size. The data is written from byte 0 of file() as always
// (File::set_base).
struct OutputHeader {
  uint64_t bytes = 0;  // 0: no header
  std::function<std::string(uint64_t data_bytes)> make;
};

class Output {
 public:
  Output() = default;
  // Throws usage Error for a directory or an empty path, io Error for a directory that
  // is missing or not writable, or a descriptor that is closed or read-only. `kind`
  // names the temp file (io/temp_files.hpp); `option` the option that named the path
  // (messages); `context`: the call's (its test hooks, timeline and $TMPDIR).
  static Output open(const Context& context, const std::string& path, const std::string& spool_dir,
                     const std::string& kind = "out", const OutputHeader& header = {},
                     const std::string& option = "-o");
  Output(Output&&) noexcept = default;
  Output& operator=(Output&&) noexcept = default;

  // The file to write the output into, from byte 0 (positional writes are fine).
  File& file() { return temp_.file(); }
  const File& file() const { return temp_.file(); }
  // The directory whose file system must hold the output until commit.
  const std::string& space_dir() const { return space_dir_; }
  bool streamed() const { return stream_; }
  bool in_place() const { return in_place_; }  // a hard-linked target, rewritten in place
  const std::string& label() const { return label_; }  // the name messages use
  const Context& context() const { return context_; }  // open()'s
  // Streams the output to the disk as it is written (File::start_write_behind), so that a
  // synced output's final fsync has little left and an unsynced one never meets the
  // kernel's dirty-page throttle. A `synced` one is written at most kSyncedBacklog ahead of
  // the disk (the context's tuning.output_backlog overrides): more dirty output pages would
  // pass the flusher's threshold and have it write back temp runs that are about to be
  // dropped (docs/out-of-core.md). Nothing for a streamed output (its spool is read back).
  // `cancel`: the call's, so that a write waiting for the disk throws Cancelled when it is set.
  void start_write_behind(bool synced, const CancelToken* cancel);
  static constexpr uint64_t kSyncedBacklog = uint64_t(512) << 20;
  // What a synced output is written ahead of the disk at most: kSyncedBacklog, or the
  // context's tuning (0: no limit).
  static uint64_t synced_backlog(const Context& context);
  // The path a regular output will have (symlinks resolved); "" for a streamed one.
  const std::string& target() const { return target_; }
  // The temp file the output is written into until commit (other processes of a
  // distributed sort open it by this path and write their ranges).
  const std::string& temp_path() const { return temp_.path(); }
  // Makes the written bytes the output (see above); fsyncs unless `sync` is false.
  void commit(bool sync = true);
  // The two steps of a commit (commit_all): prepare_commit does all that can fail short
  // of touching the target; finish_commit makes the output real.
  void prepare_commit(bool sync);
  void finish_commit(bool sync);
  // For a resumable job (engine/job.hpp): the output's file gets the stable name `name`
  // in its directory (locked while this process holds it, and left by signals for
  // --resume); with `resume`, a file of that name a killed run left is taken over, its
  // bytes kept. Returns whether one was taken over.
  bool keep_for_job(const std::string& name, bool resume, const CancelToken* cancel = nullptr);

 private:
  void commit_stream();
  void commit_in_place(bool sync);
  void write_header();
  void keep_complete_copy(const std::string& kept);
  TempFile temp_;
  Context context_;
  OutputHeader header_;
  std::string label_, target_, space_dir_;
  bool stream_ = false;
  UniqueFd own_fd_;          // "-", /dev/stdout, /dev/fd/N: that descriptor, duplicated at open
  UniqueFd job_lock_;        // keep_for_job: the flock that says a live process holds the file
  bool existed_ = false;     // a regular target that existed: its mode and owner carry over
  mode_t mode_ = 0;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool in_place_ = false;    // hard-linked target: copy into its inode instead of renaming
  UniqueFd in_place_fd_;     // in place: the target, opened and its room reserved by prepare_commit
  bool prepared_ = false;
};

// Commits outputs that belong together (bfs -o and --parents): every one prepared
// first, then the streamed ones copied, then `before_final` (the --stats-json file is
// written there), then the renames and in-place rewrites. Whatever fails, fails before
// a user's regular file is replaced.
void commit_all(const std::vector<Output*>& outputs, bool sync, const std::function<void()>& before_final = {});

// The name the complete output of an in-place rewrite has while it is copied into its
// target ("<target>.gxsort-sorted", or ".gxsort-sorted.N" when that is taken), and the
// target such a name belongs to ("" when it is not one).
constexpr const char* kKeptSuffix = ".gxsort-sorted";
std::string kept_output_name(const std::string& target);
std::string kept_output_target(const std::string& path);
// A file whose in-place rewrite a kill cut short holds part of the new output over part
// of the old: no command reads or writes it as it is. Throws Error(io), one line naming
// the kept complete copy and how to restore it (or that a live process is rewriting it
// now), when `path` (an input or an existing output; symlinks followed) has a kept copy
// in its directory (under its name or that of one of its hard links there).
void refuse_half_rewritten(const std::string& path);

// The mode a new output gets at commit: what a new file gets (0666 less the umask, as
// GNU sort's output). Until then it is written 0600.
mode_t new_file_mode();
// Whether an output path writes into a pipe, FIFO or socket ("-" and this process's
// descriptors included): its reader is gone once it stops reading, so a job into it is
// never resumable (a SIGPIPE would leave pieces no rerun can use). output_can_resume
// says whether a job into `output` may keep pieces: false for those; with `resume`
// they are refused (usage error, one line).
bool output_is_pipe(const std::string& path);
bool output_can_resume(const std::string& output, bool resume);

// Follows symlinks (relative ones from their own directory) to the path they end at,
// which need not exist; throws for a loop. With `fd`, it stops at a path that names one
// of this process's descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) and sets *fd
// to it (else -1).
std::string resolve_symlinks(const std::string& path, int* fd = nullptr);
// One name for whatever a path will be written as: "-" and this process's descriptors
// as "fd:N", else the real directory (symlinks resolved) and the file name. Two paths
// with the same key name the same output, existing yet or not.
std::string output_key(const std::string& path);

// Whether two paths a command was given name the same file: the same output_key (an
// input's "-" is standard input, "fd:0"; an output's is standard output) or the same
// inode. A character device (/dev/null) names no file that could be lost: never.
bool same_target(const std::string& a, bool a_is_input, const std::string& b, bool b_is_input);
// The one check of "an output that is an input": the first of `inputs` that `output`
// names, or "".
std::string input_named_by(const std::string& output, const std::vector<std::string>& inputs);

// fsyncs a directory after a rename into it, so that a power cut cannot undo the rename.
void sync_directory(const std::string& dir);
// Copies bytes [from, to) of `src` into descriptor `fd` at its current position, in order.
void copy_to_fd(const File& src, uint64_t from, uint64_t to, int fd, const std::string& label);

}  // namespace gxsort::io
