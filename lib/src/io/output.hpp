// Where a command's output goes: checked before any work, made real at commit, and
// nothing the user had is replaced by anything but the finished output.
//   - A new path or an existing regular file (a symlink is followed to its target): the
//     output is written into a temp file beside the target; commit fsyncs it, gives it
//     the old file's mode (and, as root, its owner), renames it over the target and
//     fsyncs the directory. An existing file with other hard links keeps its inode: the
//     finished, synced temp is copied into it (as GNU sort rewrites in place).
//   - "-" (standard output), one of this process's descriptors (/dev/stdout, /dev/fd/N:
//     written through it, so `>> log` appends) or an existing file that is not regular
//     (character device, FIFO): never replaced, never created. A socket is refused. The output is written
//     into a temp file in the spool directory (the first temp directory), and commit
//     copies it, in order, into the target: nothing reaches it unless the run succeeded.
#pragma once
#include <functional>
#include <string>
#include <sys/types.h>

#include "io/temp_files.hpp"

namespace gxsort::io {

// A descriptor closed when its holder goes away.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  ~UniqueFd();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

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
  // is missing or not writable. `kind` names the temp file (io/temp_files.hpp).
  static Output open(const std::string& path, const std::string& spool_dir, const std::string& kind = "out",
                     const OutputHeader& header = {});
  Output(Output&&) noexcept = default;
  Output& operator=(Output&&) noexcept = default;

  // The file to write the output into, from byte 0 (positional writes are fine).
  File& file() { return temp_.file(); }
  const File& file() const { return temp_.file(); }
  // The directory whose file system must hold the output until commit.
  const std::string& space_dir() const { return space_dir_; }
  bool streamed() const { return stream_; }
  const std::string& label() const { return label_; }  // the name messages use
  // The path a regular output will have (symlinks resolved); "" for a streamed one.
  const std::string& target() const { return target_; }
  // The temp file the output is written into until commit (other processes of a
  // distributed sort open it by this path and write their ranges).
  const std::string& temp_path() const { return temp_.path(); }
  // Makes the written bytes the output (see above); fsyncs unless `sync` is false.
  void commit(bool sync = true);
  // For a resumable job (engine/job.hpp): the output's file gets the stable name `name`
  // in its directory (locked while this process holds it, and left by signals for
  // --resume); with `resume`, a file of that name a killed run left is taken over, its
  // bytes kept. Returns whether one was taken over.
  bool keep_for_job(const std::string& name, bool resume);

 private:
  void commit_stream();
  void commit_in_place(bool sync);
  void write_header();
  TempFile temp_;
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
};

// Follows symlinks (relative ones from their own directory) to the path they end at,
// which need not exist; throws for a loop. With `fd`, it stops at a path that names one
// of this process's descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) and sets *fd
// to it (else -1).
std::string resolve_symlinks(const std::string& path, int* fd = nullptr);
// One name for whatever a path will be written as: "-" and this process's descriptors
// as "fd:N", else the real directory (symlinks resolved) and the file name. Two paths
// with the same key name the same output, existing yet or not.
std::string output_key(const std::string& path);

// fsyncs a directory after a rename into it, so that a power cut cannot undo the rename.
void sync_directory(const std::string& dir);
// Copies bytes [0, n) of `src` into descriptor `fd` at its current position, in order.
void copy_to_fd(const File& src, uint64_t n, int fd, const std::string& label);

}  // namespace gxsort::io
