#include "io/output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gxsort/error.hpp"
#include "io/mapping_guard.hpp"
#include "io/safe_dir.hpp"
#include "io/space.hpp"

namespace gxsort::io {

namespace {

[[noreturn]] void output_error(const std::string& label, const std::string& what, int err) {
  throw Error(ExitCode::io, label + ": " + what + ": " + std::strerror(err));
}

// The descriptor a path names when it is one of this process's own (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/<our pid>/fd/N), else -1. Such a path
// must not be followed to what the descriptor points at: written through the descriptor
// itself, the output goes where the shell sent it (appended with >>, into a pipe).
int own_fd(const std::string& p) {
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                   "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (p.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string n = p.substr(prefix.size());
    if (!n.empty() && n.size() < 9 && n.find_first_not_of("0123456789") == std::string::npos) return std::stoi(n);
  }
  return -1;
}

}  // namespace

std::string resolve_symlinks(const std::string& path, int* fd) {
  std::string p = path;
  if (fd) *fd = -1;
  for (int hops = 0; hops < 40; ++hops) {
    if (fd && (*fd = own_fd(p)) >= 0) return p;
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(size_t(st.st_size > 0 ? st.st_size : 4096) + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) fail_errno(path, "cannot read the symbolic link", errno);
    const std::string link(buf.data(), size_t(n));
    p = link[0] == '/' ? link : directory_of(p) + "/" + link;
  }
  fail_errno(path, "cannot open for writing", ELOOP);
}

std::string output_key(const std::string& path) {
  if (path == "-") return "fd:1";
  int fd = -1;
  const std::string target = resolve_symlinks(path, &fd);
  if (fd >= 0) return "fd:" + std::to_string(fd);
  const size_t slash = target.find_last_of('/');
  const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  char* dir = ::realpath(directory_of(target).c_str(), nullptr);
  const std::string key = std::string(dir ? dir : directory_of(target).c_str()) + "/" + name;
  std::free(dir);
  return key;
}

bool same_target(const std::string& a, bool a_is_input, const std::string& b, bool b_is_input) {
  if (a.empty() || b.empty()) return false;
  auto key = [](const std::string& p, bool input) { return input && p == "-" ? std::string("fd:0") : output_key(p); };
  const std::string ka = key(a, a_is_input), kb = key(b, b_is_input);
  struct stat st;
  if (ka.compare(0, 3, "fd:") != 0 && ::stat(a.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) return false;
  return ka == kb || (a != "-" && b != "-" && same_file(a, b));
}

std::string input_named_by(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs)
    if (same_target(output, false, in, true)) return in;
  return "";
}

void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself succeeded
  const int r = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (r != 0 && err != EINVAL && err != EROFS) fail_errno(dir, "cannot sync the directory after the rename", err);
}

namespace {
// The umask when the program started (static initialisation runs before any thread):
// where /proc is not mounted.
const mode_t g_start_umask = [] {
  const mode_t m = ::umask(022);
  ::umask(m);
  return m;
}();
}  // namespace

mode_t new_file_mode() {
  // Read, not set: umask(2) reads it only by changing it, under the threads that create
  // files meanwhile. /proc/self/status says it (Linux 4.7+).
  mode_t mask = g_start_umask;
  if (FILE* f = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "Umask:", 6) == 0) mask = mode_t(std::strtoul(line + 6, nullptr, 8));
    std::fclose(f);
  }
  return 0666 & ~mask & 0777;
}

bool output_is_pipe(const std::string& path) {
  int fd = path == "-" ? 1 : -1;
  const std::string target = fd < 0 ? resolve_symlinks(path, &fd) : path;
  struct stat st;
  const int r = fd >= 0 ? ::fstat(fd, &st) : ::stat(target.c_str(), &st);
  return r == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool output_can_resume(const std::string& output, bool resume) {
  if (!output_is_pipe(output)) return true;
  if (resume)
    fail_usage((output == "-" ? std::string("stdout") : output) +
               ": " + option_ref("resume") + " needs an output that can be written again (a pipe's reader is gone once it stops "
               "reading); write to a file (-o FILE)");
  return false;
}

Output Output::open(const Context& context, const std::string& path, const std::string& spool_dir,
                     const std::string& kind, const OutputHeader& header, const std::string& option) {
  if (path.empty()) fail_usage("an output file is required (" + option + " FILE)");
  Output o;
  o.context_ = context;
  o.label_ = path == "-" ? "stdout" : path;
  int fd = path == "-" ? 1 : -1;
  if (fd < 0) o.target_ = resolve_symlinks(path, &fd);
  struct stat st;
  if (fd >= 0) {
    // Standard output, or another descriptor of ours: written through a duplicate.
    o.stream_ = true;
    o.own_fd_ = UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    if (o.own_fd_.get() < 0) output_error(o.label_, "cannot write", errno);
    // Checked now, not when the finished output is copied into it: a descriptor the
    // caller closed (>&-; main holds its number with an O_PATH descriptor) or opened for
    // reading only.
    const int flags = ::fcntl(o.own_fd_.get(), F_GETFL);
    if (flags < 0 || (flags & O_PATH) || (flags & O_ACCMODE) == O_RDONLY)
      throw Error(ExitCode::io, o.label_ + ": cannot write: the descriptor is closed or open for reading only");
  } else if (::stat(o.target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail_usage(path + ": is a directory; " + option + " names a file, not a directory");
    if (S_ISSOCK(st.st_mode))
      fail_usage(path + ": is a socket, which cannot be opened by name; write to - and redirect it");
    // Checked now, not after the work: the user's file must be one the user may write.
    if (::access(o.target_.c_str(), W_OK) != 0) output_error(path, "cannot open for writing", errno);
    if (S_ISREG(st.st_mode)) {
      refuse_half_rewritten(path);
      o.existed_ = true;
      o.mode_ = st.st_mode & 07777;
      o.uid_ = st.st_uid;
      o.gid_ = st.st_gid;
      o.in_place_ = st.st_nlink > 1;
    } else {
      o.stream_ = true;  // a device or a FIFO: written through at commit
    }
  }
  try {
    if (o.stream_) {
      o.target_.clear();
      o.space_dir_ = spool_dir;
      require_writable_dir(spool_dir, "temporary");
      o.temp_ = TempFile::create(context, spool_dir, kind);
    } else {
      o.space_dir_ = directory_of(o.target_);
      require_writable_dir(o.space_dir_, "output");
      o.temp_ = TempFile::beside(context, o.target_, kind);
    }
  } catch (const Error& e) {
    throw Error(e.code(), o.label_ + ": cannot write it: " + e.message());
  }
  o.temp_.file().set_label(o.label_);
  o.header_ = header;
  o.temp_.file().set_base(header.bytes);
  return o;
}

namespace {

// Whether a process holds the flock of the file `name` in `dir` (the caller's own:
// checked by open_own_file_at, which neither follows a link nor blocks).
bool own_file_locked(int dir, const std::string& name) {
  const UniqueFd fd(open_own_file_at(dir, name, O_RDONLY));
  return fd && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0;
}

}  // namespace

bool Output::keep_for_job(const std::string& name, bool resume, const CancelToken* cancel) {
  // The stable name is a digest anyone can compute, in a directory others may write to
  // (a shared one): it is looked at and taken through a descriptor of that directory,
  // no link followed. An entry there that is not this user's own regular file is never
  // written through, replaced or removed: the job stops with one line naming it.
  const std::string dir = directory_of(temp_.path());
  const std::string stable = dir + "/" + name;
  const UniqueFd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd) fail_errno(dir, "cannot open the output's directory", errno);
  struct stat st;
  const bool found = ::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (found && (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()))
    throw Error(ExitCode::io, own_file_refusal(dfd.get(), name, stable, "", EACCES));
  if (found && own_file_locked(dfd.get(), name))
    throw Error(ExitCode::io, stable + ": another gxsort is writing this job's output");
  const bool take_over = found && resume;
  if (take_over) {
    temp_.remove();
    temp_ = TempFile::adopt(dfd.get(), name, stable);
    temp_.file().set_label(label_);
    temp_.file().set_base(header_.bytes);
  } else {
    // A dead run's output that is not resumed goes; then the temp file takes the name only
    // where nothing is: a hard link, which never replaces an entry (one planted meanwhile
    // is refused), then move_to (a rename onto another link of the same file changes
    // nothing but the name TempFile tracks), then the temp name goes. Where the file
    // system has no hard links, move_to renames.
    if (found && ::unlinkat(dfd.get(), name.c_str(), 0) != 0 && errno != ENOENT)
      fail_errno(stable, "cannot remove a dead run's output", errno);
    const std::string temp_name = temp_.path();
    const bool linked = ::linkat(AT_FDCWD, temp_name.c_str(), dfd.get(), name.c_str(), 0) == 0;
    if (!linked && errno == EEXIST) throw Error(ExitCode::io, own_file_refusal(dfd.get(), name, stable, "", EACCES));
    temp_.move_to(stable);
    if (linked) ::unlink(temp_name.c_str());
  }
  temp_.keep_on_signals(cancel);
  // The lock on this very file, not on whatever the name may name later, through an open
  // of its own (/proc/self/fd: the same inode): it goes with this Output, not with the
  // last duplicate of the file's descriptor (a write-behind thread closes its own a little
  // later, io/file.cpp; a call cancelled then resumed in one process found it still
  // held). Without /proc, a duplicate.
  job_lock_ = UniqueFd(::open(("/proc/self/fd/" + std::to_string(temp_.file().fd())).c_str(), O_RDONLY | O_CLOEXEC));
  if (!job_lock_) job_lock_ = UniqueFd(::fcntl(temp_.file().fd(), F_DUPFD_CLOEXEC, 3));
  if (!job_lock_ || ::flock(job_lock_.get(), LOCK_EX | LOCK_NB) != 0)
    throw Error(ExitCode::io, stable + ": another gxsort is writing this job's output");
  return take_over;
}

void Output::write_header() {
  if (header_.bytes == 0) return;
  const File& f = temp_.file();
  const std::string text = header_.make(f.size());
  if (text.size() != header_.bytes) throw Error(ExitCode::io, label_ + ": internal: a header of the wrong size");
  if (f.raw_size() < header_.bytes) f.truncate(0);  // an empty output still has its header
  if (::pwrite(f.fd(), text.data(), text.size(), 0) != ssize_t(text.size())) output_error(label_, "cannot write the header", errno);
}

void copy_to_fd(const File& src, uint64_t from, uint64_t n, int fd, const std::string& label) {
  off_t off = off_t(from);
  bool use_sendfile = true;
  std::vector<unsigned char> buf;
  while (uint64_t(off) < n) {
    const size_t want = size_t(std::min<uint64_t>(n - uint64_t(off), uint64_t(1) << 30));
    ssize_t w;
    if (use_sendfile) {
      w = ::sendfile(fd, src.fd(), &off, want);
      if (w < 0 && (errno == EINVAL || errno == ENOSYS)) { use_sendfile = false; continue; }
    } else {
      if (buf.empty()) buf.resize(size_t(8) << 20);
      const size_t len = std::min(want, buf.size());
      const ssize_t got = ::pread(src.fd(), buf.data(), len, off);  // raw bytes: a header too
      if (got != ssize_t(len)) output_error(label, "cannot read back the output", got < 0 ? errno : EIO);
      size_t done = 0;
      while (done < len) {
        const ssize_t r = ::write(fd, buf.data() + done, len - done);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail_errno(label, "write failed", errno);
        done += size_t(r);
      }
      off += off_t(len);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno(label, "write failed", errno);
    if (w == 0) throw Error(ExitCode::io, label + ": write failed: the output took no more bytes");
  }
}

void Output::commit_stream() {
  const uint64_t n = temp_.file().raw_size();
  UniqueFd opened;
  int fd = own_fd_.get();
  if (fd < 0) {
    // Opened only now: a FIFO's open waits for its reader, which may start after us.
    opened = UniqueFd(::open(label_.c_str(), O_WRONLY | O_CLOEXEC));
    if (opened.get() < 0) output_error(label_, "cannot open for writing", errno);
    fd = opened.get();
  }
  copy_to_fd(temp_.file(), 0, n, fd, label_);
  temp_.remove();
}

std::string kept_output_name(const std::string& target) {
  std::string kept = target + kKeptSuffix;
  struct stat st;  // a name taken by anything, a dangling link included
  for (int i = 1; ::lstat(kept.c_str(), &st) == 0 && i < 1000; ++i) kept = target + kKeptSuffix + "." + std::to_string(i);
  return kept;
}

std::string kept_output_target(const std::string& path) {
  const std::string suffix = kKeptSuffix;
  size_t at = path.rfind(suffix);
  if (at == std::string::npos || at == 0 || path[at - 1] == '/') return "";
  const std::string rest = path.substr(at + suffix.size());
  if (!rest.empty() && (rest[0] != '.' || rest.size() == 1 || rest.find_first_not_of("0123456789", 1) != std::string::npos))
    return "";
  return path.substr(0, at);
}

namespace {

// A kept copy of an in-place rewrite of `file` (named `name`) among the entries of the
// directory `d`: its name ("" when none) and whether a live process holds its lock
// (the rewrite goes on). It counts only as a regular file, not a link, of the caller,
// of the file's owner or of root: anyone may plant a name in a shared directory, only
// they can have rewritten the file.
std::string find_kept_copy(DIR* d, const std::string& name, const struct stat& file, bool& running) {
  const int dfd = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string of = kept_output_target(e->d_name);
    struct stat st;
    if (of.empty() || (of != name && (::fstatat(dfd, of.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                                      st.st_dev != file.st_dev || st.st_ino != file.st_ino)))
      continue;  // another file's (a hard link of this one counts)
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        (st.st_uid != ::geteuid() && st.st_uid != file.st_uid && st.st_uid != 0))
      continue;
    // Opened only once it is known to be a regular file (a planted device is never
    // opened), and trusted only if it still is that file. One the caller may not read
    // (another user's 0600 copy) is taken as cut short.
    const UniqueFd fd(::openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat opened;
    if (fd.get() >= 0 && (::fstat(fd.get(), &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino))
      continue;
    running = fd.get() >= 0 && ::flock(fd.get(), LOCK_SH | LOCK_NB) != 0;
    return e->d_name;
  }
  return "";
}

}  // namespace

// Refused, not finished from the kept copy: that copy is the file's content only if
// nothing wrote the file since the kill (the user may have restored or replaced it),
// which nothing here can prove; writing it back on the strength of a name would be
// the very data loss this prevents. Refusing loses nothing, and one cp restores it.
void refuse_half_rewritten(const std::string& path) {
  const std::string target = resolve_symlinks(path);
  struct stat file;
  if (::stat(target.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) return;
  const std::string dir = directory_of(target);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  bool running = false;
  const std::string name = find_kept_copy(d, target.substr(target.find_last_of('/') + 1), file, running);
  ::closedir(d);
  if (name.empty()) return;
  const std::string kept = dir + "/" + name;
  if (running)
    throw Error(ExitCode::io, path + ": not used: another gxsort is rewriting it in place now (its complete sorted "
                                     "output is in " + kept + "); run this again once that ends");
  throw Error(ExitCode::io, path + ": not used: an in-place rewrite of it was cut short, it may be partly rewritten; "
                                   "its complete sorted output is kept in " + kept + " (`cp " + kept + " " + path +
                                   "` restores it, then remove " + kept + ")");
}

void Output::keep_complete_copy(const std::string& kept) {
  // Out of the table remove_all_temps_now sweeps: from here on this file is the one complete copy
  // of the output (the target is about to be overwritten), and nothing may remove it
  // until the target holds all of it. Locked, so that `gxsort clean` and the notes tell
  // a rewrite in progress from one a kill -9 cut short (a job's output is locked already).
  temp_.move_to(kept);
  temp_.keep_on_signals();
  if (job_lock_.get() < 0) ::flock(temp_.file().fd(), LOCK_EX | LOCK_NB);
  sync_directory(space_dir_);  // a crash during the copy must find it under this name
}

void Output::commit_in_place(bool sync) {
  const std::string kept = kept_output_name(target_);
  keep_complete_copy(kept);
  const uint64_t n = temp_.file().raw_size();
  const int fd = in_place_fd_.get();
  const ProcessExitHeld exit_held(label_ + ": a signal came while the sorted output is copied into it (in place: it has "
                                 "other hard links); it is finished first (the complete output is in " + kept + ")");
  try {
    copy_to_fd(temp_.file(), 0, n / 2, fd, label_);
    test_stop_at(context_, "in-place");  // tests only (io/temp_files.hpp)
    copy_to_fd(temp_.file(), n / 2, n, fd, label_);
    if (::ftruncate(fd, off_t(n)) != 0) output_error(label_, "cannot truncate", errno);
    if (sync && ::fsync(fd) != 0) output_error(label_, "fsync failed", errno);
  } catch (const Error& e) {
    // Partly rewritten (an I/O error): the complete output stays where it is.
    temp_.release();
    throw Error(e.code(), e.message() + "; it was partly rewritten: the complete output is kept in " + kept +
                              " (`cp " + kept + " " + label_ + "` restores it)");
  }
  in_place_fd_ = UniqueFd();
  temp_.remove();
}  // a front end that waited for the rewrite (a signal came) ends the process now

void Output::prepare_commit(bool sync) {
  if (prepared_) return;
  // A mapped file that faulted was read as zeros: never commit what came of it.
  if (any_mapping_fault())
    throw Error(ExitCode::io, label_ + ": not written: a file gxsort had mapped changed or could not be read "
                                       "during the run (truncated, or an I/O error)");
  write_header();
  File& f = temp_.file();
  if (in_place_) {
    if (sync) f.sync();
    in_place_fd_ = UniqueFd(::open(target_.c_str(), O_WRONLY | O_CLOEXEC));
    if (in_place_fd_.get() < 0) output_error(label_, "cannot open for writing", errno);
    // Room for all of it first: a full disk fails here, with the file still as it was.
    const uint64_t n = f.raw_size();
    if (int err = ::posix_fallocate(in_place_fd_.get(), 0, off_t(std::max<uint64_t>(n, 1))))
      output_error(label_, "cannot reserve space", err);
  } else if (!stream_) {
    if (existed_) {
      // The replacement keeps what the user set on the file: its mode, and its owner
      // where we may give it (root).
      // (chown first: it clears set-user-ID bits that chmod then restores).
      if (::geteuid() == 0 && ::fchown(f.fd(), uid_, gid_) != 0) fail_errno(label_, "cannot set the owner", errno);
      if (::fchmod(f.fd(), mode_) != 0) fail_errno(label_, "cannot set the mode", errno);
    } else if (::fchmod(f.fd(), new_file_mode()) != 0) {
      // Written 0600 (temp_files.hpp); a new output gets the mode any new file would.
      fail_errno(label_, "cannot set the mode", errno);
    }
    if (sync) f.sync();
  }
  prepared_ = true;
}

void Output::finish_commit(bool sync) {
  prepare_commit(sync);
  if (stream_) return commit_stream();
  if (in_place_) return commit_in_place(sync);
  temp_.commit_rename(target_, false, context_);  // synced by prepare_commit
  if (sync) sync_directory(space_dir_);
}

void Output::commit(bool sync) { commit_all({this}, sync); }

uint64_t Output::synced_backlog(const Context& context) {
  return context.tuning.output_backlog.value_or(kSyncedBacklog);
}

void Output::start_write_behind(bool synced, const CancelToken* cancel) {
  if (stream_) return;
  file().start_write_behind(synced ? synced_backlog(context_) : 0, cancel);
}

void commit_all(const std::vector<Output*>& outputs, bool sync, const std::function<void()>& before_final) {
  for (Output* o : outputs) o->prepare_commit(sync);
  for (Output* o : outputs)
    if (o->streamed()) o->finish_commit(sync);
  if (before_final) before_final();
  // Renames before in-place rewrites: a rename does not fail once prepared.
  for (Output* o : outputs)
    if (!o->streamed() && !o->in_place()) o->finish_commit(sync);
  for (Output* o : outputs)
    if (o->in_place()) o->finish_commit(sync);
}

}  // namespace gxsort::io
