#include "io/output.hpp"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "gxsort/error.hpp"
#include "io/space.hpp"

namespace gxsort::io {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

std::string resolve_symlinks(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
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

void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself succeeded
  const int r = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (r != 0 && err != EINVAL && err != EROFS) fail_errno(dir, "cannot sync the directory after the rename", err);
}

Output Output::open(const std::string& path, const std::string& spool_dir, const std::string& kind) {
  if (path.empty()) fail_usage("an output file is required (-o FILE)");
  Output o;
  o.label_ = path == "-" ? "stdout" : path;
  struct stat st;
  if (path == "-") {
    o.stream_ = true;
    o.stdout_ = UniqueFd(::fcntl(1, F_DUPFD_CLOEXEC, 3));
    if (o.stdout_.get() < 0) fail_errno("stdout", "cannot write", errno);
  } else {
    o.target_ = resolve_symlinks(path);
    if (::stat(o.target_.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) fail_usage(path + ": is a directory; -o names the output file");
      if (S_ISREG(st.st_mode)) {
        o.existed_ = true;
        o.mode_ = st.st_mode & 07777;
        o.uid_ = st.st_uid;
        o.gid_ = st.st_gid;
        o.in_place_ = st.st_nlink > 1;
      } else {
        o.stream_ = true;  // a device, FIFO or socket: written through at commit
        if (::access(o.target_.c_str(), W_OK) != 0) fail_errno(path, "cannot open for writing", errno);
      }
    }
  }
  try {
    if (o.stream_) {
      o.target_.clear();
      o.space_dir_ = spool_dir;
      require_writable_dir(spool_dir, "temporary");
      o.temp_ = TempFile::create(spool_dir, kind);
    } else {
      o.space_dir_ = directory_of(o.target_);
      require_writable_dir(o.space_dir_, "output");
      o.temp_ = TempFile::beside(o.target_, kind);
    }
  } catch (const Error& e) {
    throw Error(e.code(), o.label_ + ": cannot write it: " + e.what());
  }
  o.temp_.file().set_label(o.label_);
  return o;
}

void copy_to_fd(const File& src, uint64_t n, int fd, const std::string& label) {
  off_t off = 0;
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
      src.read_at(buf.data(), len, uint64_t(off));
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
  const uint64_t n = temp_.file().size();
  UniqueFd opened;
  int fd = stdout_.get();
  if (fd < 0) {
    // Opened only now: a FIFO's open waits for its reader, which may start after us.
    opened = UniqueFd(::open(label_.c_str(), O_WRONLY | O_CLOEXEC));
    if (opened.get() < 0) fail_errno(label_, "cannot open for writing", errno);
    fd = opened.get();
  }
  copy_to_fd(temp_.file(), n, fd, label_);
  temp_.remove();
}

void Output::commit_in_place(bool sync) {
  if (sync) temp_.file().sync();
  const int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_errno(label_, "cannot open for writing", errno);
  UniqueFd holder(fd);
  const uint64_t n = temp_.file().size();
  try {
    copy_to_fd(temp_.file(), n, fd, label_);
    if (::ftruncate(fd, off_t(n)) != 0) fail_errno(label_, "cannot truncate", errno);
    if (sync && ::fsync(fd) != 0) fail_errno(label_, "fsync failed", errno);
  } catch (const Error& e) {
    // The target is partly rewritten: the complete output stays where it is.
    const std::string kept = temp_.release();
    throw Error(e.code(), std::string(e.what()) + "; it was partly rewritten, the complete output is kept in " + kept);
  }
  temp_.remove();
}

void Output::commit(bool sync) {
  if (stream_) return commit_stream();
  if (in_place_) return commit_in_place(sync);
  File& f = temp_.file();
  if (existed_) {
    // The replacement keeps what the user set on the file: its mode, and its owner
    // where we may give it (root).
    // (chown first: it clears set-user-ID bits that chmod then restores).
    if (::geteuid() == 0 && ::fchown(f.fd(), uid_, gid_) != 0) fail_errno(label_, "cannot set the owner", errno);
    if (::fchmod(f.fd(), mode_) != 0) fail_errno(label_, "cannot set the mode", errno);
  }
  temp_.commit_rename(target_, sync);
  if (sync) sync_directory(space_dir_);
}

}  // namespace gxsort::io
