#include "io/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "gxsort/error.hpp"
#include "io/mapping_guard.hpp"
#include "io/output.hpp"
#include "parallel/own_thread.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort {
void fail_errno(const std::string& path, const std::string& what, int err) {
  if (err == ENOMEM) throw OutOfMemory(0, path + ": " + what);  // a mapping, a pipe buffer: the memory limit
  ExitCode code = ExitCode::io;
  // A missing or unreadable input is the user's input error; the rest is I/O.
  if (what.rfind("cannot open", 0) == 0 && (err == ENOENT || err == EACCES || err == EISDIR || err == ENOTDIR))
    code = ExitCode::usage;
  throw Error(code, path + ": " + what + ": " + std::strerror(err));
}
}  // namespace gxsort

namespace gxsort::io {

// One read or write system call moves at most this much: measured on Linux 6.x/ext4,
// single 1 GiB writes into the page cache ran at 0.4 GB/s where 64 MiB ones ran at
// 2.6 GB/s (dd, same file, same machine).
constexpr size_t kMaxSyscallBytes = size_t(64) << 20;

// The write-behind thread of one file: starts the writeback of written ranges, in the
// order they were written, coalescing neighbours. It never waits for the writeback:
// the final fsync does, and reports any error. Closing the file does not wait for the
// thread either: one of its calls blocks while the disk's queue is full, and joining it
// left 0.06-0.30 s between the end of a 4 GiB GPU sort and its output's rename on the
// H200 host (0.02-0.14 s on the 2-core VM). The thread finishes that call on a
// descriptor of its own (the file's number may be reused at once), stops and closes it.
class WriteBehind {
 public:
  WriteBehind(int fd, uint64_t backlog_limit, const CancelToken* cancel, File::HandOn hand_on)
      : s_(std::make_shared<State>(::fcntl(fd, F_DUPFD_CLOEXEC, 3))), cancel_(cancel) {
    s_->limit = s_->fd >= 0 ? backlog_limit : 0;  // no thread works the backlog off without one
    s_->hand_on = std::move(hand_on);
    parallel::start_detached([s = s_] { loop(*s); });
  }
  ~WriteBehind() {
    { std::lock_guard<std::mutex> l(s_->m); s_->stop = true; }
    s_->cv.notify_all();
    s_->room.notify_all();
  }
  // With a backlog limit, waits while more than the limit is written and not yet handed
  // to the disk: the writer goes at the disk's pace.
  void written(uint64_t offset, uint64_t n) {
    std::unique_lock<std::mutex> l(s_->m);
    s_->queue.emplace_back(offset, n);
    s_->backlog += n;
    s_->cv.notify_one();
    if (s_->limit) wait_for_room(l);
  }

 private:
  // How often a writer waiting for the backlog looks at its call's CancelToken: a slow
  // disk may take many seconds to work off a backlog, a cancelled call should not.
  static constexpr std::chrono::milliseconds kCancelPoll{50};

  void wait_for_room(std::unique_lock<std::mutex>& l) {
    const auto room = [&] { return s_->stop || s_->backlog <= s_->limit; };
    if (!cancel_) return s_->room.wait(l, room);
    while (!s_->room.wait_for(l, kCancelPoll, room)) throw_if_cancelled(cancel_);
  }

  // Writeback is started this many bytes at a time, so that the thread stops soon after
  // the file is closed, not after a whole backlog.
  static constexpr uint64_t kStep = uint64_t(64) << 20;

  // What the thread and the file share; the last of them to let go closes the descriptor.
  struct State {
    explicit State(int fd) : fd(fd) {}
    ~State() { if (fd >= 0) ::close(fd); }
    bool stopping() {
      std::lock_guard<std::mutex> l(m);
      return stop;
    }
    const int fd;  // -1 when dup failed (no descriptor left): nothing is started
    std::mutex m;
    std::condition_variable cv, room;  // room: the backlog went down
    std::deque<std::pair<uint64_t, uint64_t>> queue;
    uint64_t backlog = 0, limit = 0;   // bytes queued and not yet handed on; 0: no limit
    bool stop = false;
    File::HandOn hand_on;              // null: sync_file_range
    void start_writeback(uint64_t offset, uint64_t n) {
      if (hand_on) return hand_on(fd, offset, n);
      ::sync_file_range(fd, off_t(offset), off_t(n), SYNC_FILE_RANGE_WRITE);
    }
    void handed_on(uint64_t n) {
      { std::lock_guard<std::mutex> l(m); backlog -= std::min(backlog, n); }
      room.notify_all();
    }
  };

  static void loop(State& s) {
    std::unique_lock<std::mutex> l(s.m);
    while (true) {
      s.cv.wait(l, [&] { return s.stop || !s.queue.empty(); });
      if (s.stop || s.fd < 0) return;  // what is left is the final fsync's
      std::vector<std::pair<uint64_t, uint64_t>> ranges(s.queue.begin(), s.queue.end());
      s.queue.clear();
      l.unlock();
      std::sort(ranges.begin(), ranges.end());
      uint64_t left = 0;  // of the backlog these ranges hold (overlaps counted as given)
      for (const auto& r : ranges) left += r.second;
      for (size_t i = 0; i < ranges.size();) {
        uint64_t b = ranges[i].first, e = b + ranges[i].second;
        for (++i; i < ranges.size() && ranges[i].first <= e; ++i) e = std::max(e, ranges[i].first + ranges[i].second);
        // May block while the device queue is full: that is why it runs here and not
        // in the writer. Errors surface at the fsync.
        for (; b < e && !s.stopping(); b += kStep) {
          const uint64_t step = std::min(kStep, e - b);
          s.start_writeback(b, step);
          s.handed_on(step);
          left -= std::min(left, step);
        }
      }
      s.handed_on(left);
      l.lock();
    }
  }

  std::shared_ptr<State> s_;
  const CancelToken* cancel_;  // the call's, whose writes these are; null: not cancellable
};

struct DirectDescriptor {
  std::once_flag opened;
  int fd = -1;
  std::atomic<bool> refused{false};  // EINVAL: this file system takes no O_DIRECT transfers
  ~DirectDescriptor() { if (fd >= 0) ::close(fd); }
};

File::File() : direct_(std::make_unique<DirectDescriptor>()) {}

File::File(File&& o) noexcept
    : fd_(o.fd_),
      path_(std::move(o.path_)),
      base_(o.base_),
      stream_(o.stream_),
      stream_read_(o.stream_read_),
      first_bytes_check_(std::move(o.first_bytes_check_)),
      open_size_(o.open_size_),
      open_mtime_ns_(o.open_mtime_ns_),
      write_behind_(std::move(o.write_behind_)),
      direct_(std::move(o.direct_)) {
  o.fd_ = -1;
}

File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    write_behind_.reset();
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    base_ = o.base_;
    stream_ = o.stream_;
    stream_read_ = o.stream_read_;
    first_bytes_check_ = std::move(o.first_bytes_check_);
    open_size_ = o.open_size_;
    open_mtime_ns_ = o.open_mtime_ns_;
    write_behind_ = std::move(o.write_behind_);
    direct_ = std::move(o.direct_);
    o.fd_ = -1;
  }
  return *this;
}

File::~File() {
  write_behind_.reset();  // its thread stops after its current call (on a descriptor of its own)
  if (fd_ >= 0) ::close(fd_);
}

int File::direct_fd() const {
  if (!direct_ || fd_ < 0) return -1;
  std::call_once(direct_->opened, [&] {
    const int access = ::fcntl(fd_, F_GETFL) & O_ACCMODE;
    direct_->fd = ::open(("/proc/self/fd/" + std::to_string(fd_)).c_str(), access | O_DIRECT | O_CLOEXEC);
  });
  return direct_->refused ? -1 : direct_->fd;
}

void File::refuse_direct() const { direct_->refused = true; }

void File::start_write_behind(uint64_t backlog_limit, const CancelToken* cancel, HandOn hand_on) {
  if (!write_behind_ && fd_ >= 0)
    write_behind_ = std::make_unique<WriteBehind>(fd_, backlog_limit, cancel, std::move(hand_on));
}

void File::written_elsewhere(uint64_t offset, uint64_t n) const {
  // Whole pages only: a page shared with a range still being written would be written
  // back now and again later. The final fsync covers the edges.
  const PageRange r = whole_pages(base_ + offset, n);
  if (write_behind_ && !r.empty()) write_behind_->written(r.begin, r.end - r.begin);
}

void File::discard(uint64_t offset, uint64_t n) const {
  const PageRange r = whole_pages(base_ + offset, n);
  if (!r.empty()) ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(r.begin), off_t(r.end - r.begin));
}

namespace {
int64_t mtime_ns(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec; }
}  // namespace

File File::open_read(const std::string& path) {
  File f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd_ < 0) fail_errno(path, "cannot open for reading", errno);
  struct stat st;
  if (::fstat(f.fd_, &st) != 0) fail_errno(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) fail_errno(path, "cannot open for reading", EISDIR);
  f.open_size_ = uint64_t(st.st_size);
  f.open_mtime_ns_ = mtime_ns(st);
  forget_mapping_faults(uint64_t(st.st_dev), uint64_t(st.st_ino));
  ::posix_fadvise(f.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return f;
}

namespace {
// Files whose st_size is not their length: anything but a regular file, and the files
// of the kernel's pseudo file systems, which say 0 (or a page) whatever they hold.
bool size_untrusted(int fd, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return true;
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x9fa0:      // proc
    case 0x62656572:  // sysfs
    case 0x64626720:  // debugfs
    case 0x74726163:  // tracefs
    case 0x62656570:  // configfs
    case 0x73636673:  // securityfs
    case 0x27e0eb:    // cgroup
    case 0x63677270:  // cgroup2
      return true;
    default:
      return false;
  }
}
}  // namespace

File File::open_input(const std::string& path) {
  if (path != "-") {
    File f = open_read(path);
    struct stat st;
    if (::fstat(f.fd_, &st) != 0) fail_errno(path, "cannot stat", errno);
    f.stream_ = size_untrusted(f.fd_, st);
    if (S_ISREG(st.st_mode)) refuse_half_rewritten(path);  // never sorted as if it were the input
    return f;
  }
  File f;
  f.path_ = "stdin";
  f.fd_ = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (f.fd_ < 0) fail_errno("stdin", "cannot open for reading", errno);
  struct stat st;
  if (::fstat(f.fd_, &st) != 0) fail_errno("stdin", "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) fail_errno("stdin", "cannot open for reading", EISDIR);
  // `gxsort sort - < file` reads a regular file: sized and read in place, as by name
  // (unless the shell left it part-read: then what is left is read as a stream).
  f.stream_ = size_untrusted(f.fd_, st) || ::lseek(f.fd_, 0, SEEK_CUR) != 0;
  f.open_size_ = uint64_t(st.st_size);
  f.open_mtime_ns_ = mtime_ns(st);
  return f;
}

size_t File::read_stream(void* dst, size_t n) const {
  auto* p = static_cast<unsigned char*>(dst);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd_, p + got, std::min(n - got, kMaxSyscallBytes));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_errno(path_, "read failed after " + std::to_string(stream_read_ + got) + " bytes", errno);
    }
    if (r == 0) break;
    got += size_t(r);
  }
  if (stream_read_ == 0 && first_bytes_check_) first_bytes_check_(p, got);
  stream_read_ += got;
  return got;
}

size_t File::read_chunk(void* dst, size_t n, uint64_t offset, unsigned threads) const {
  if (!stream_) {
    read_at_parallel(dst, n, offset, threads);
    return n;
  }
  if (offset != stream_read_)
    throw Error(ExitCode::io, path_ + ": internal: a stream read out of order (at " + std::to_string(offset) +
                                  ", the stream is at " + std::to_string(stream_read_) + ")");
  return read_stream(dst, n);
}

void File::prefetch(uint64_t offset, uint64_t n) const {
  if (!stream_ && n > 0) ::posix_fadvise(fd_, off_t(base_ + offset), off_t(n), POSIX_FADV_WILLNEED);
}

void File::check_unchanged() const {
  if (stream_ || open_mtime_ns_ < 0) return;
  struct stat st;
  if (::fstat(fd_, &st) != 0) fail_errno(path_, "cannot stat", errno);
  const bool shrank = mapping_fault_seen(uint64_t(st.st_dev), uint64_t(st.st_ino)) || uint64_t(st.st_size) < open_size_;
  if (shrank || uint64_t(st.st_size) != open_size_ || mtime_ns(st) != open_mtime_ns_)
    throw Error(ExitCode::io, path_ + ": input changed during the run (" +
                                  (shrank ? "it shrank" : uint64_t(st.st_size) > open_size_ ? "it grew" : "it was modified") +
                                  " after gxsort opened it); nothing was written, run it again on a stable file");
}

File File::create_new(const std::string& path) {
  File f;
  f.path_ = path;
  // 0600: what is written here is another user's business only once it is committed
  // (Output::prepare_commit gives it its final mode). O_EXCL never opens what exists,
  // a link included.
  f.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (f.fd_ < 0) fail_errno(path, "cannot create", errno);
  return f;
}

File File::open_rw(const std::string& path) {
  File f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (f.fd_ < 0) fail_errno(path, "cannot open for writing", errno);
  return f;
}

uint64_t File::raw_size() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) fail_errno(path_, "cannot stat", errno);
  return uint64_t(st.st_size);
}

uint64_t File::size() const {
  const uint64_t raw = raw_size();
  return raw > base_ ? raw - base_ : 0;
}

void File::truncate(uint64_t n) const {
  if (::ftruncate(fd_, off_t(base_ + n)) != 0) fail_errno(path_, "cannot truncate", errno);
}

File File::adopt_fd(int fd, const std::string& path) {
  File f;
  f.path_ = path;
  f.fd_ = fd;
  return f;
}

void File::read_at(void* dst, size_t n, uint64_t offset) const {
  offset += base_;
  auto* p = static_cast<unsigned char*>(dst);
  while (n > 0) {
    ssize_t r = ::pread(fd_, p, std::min(n, kMaxSyscallBytes), off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_errno(path_, "read failed at offset " + std::to_string(offset), errno);
    }
    if (r == 0)
      throw Error(ExitCode::io, path_ + ": unexpected end of file at offset " + std::to_string(offset) +
                                    ": input changed during the run (it is shorter than when gxsort opened it)");
    p += r;
    n -= size_t(r);
    offset += uint64_t(r);
  }
}

void File::write_at(const void* src, size_t n, uint64_t offset) const {
  offset += base_;
  auto* p = static_cast<const unsigned char*>(src);
  const uint64_t first = offset, total = n;
  while (n > 0) {
    ssize_t r = ::pwrite(fd_, p, std::min(n, kMaxSyscallBytes), off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_errno(path_, "write failed at offset " + std::to_string(offset), errno);
    }
    p += r;
    n -= size_t(r);
    offset += uint64_t(r);
  }
  if (write_behind_ && total) write_behind_->written(first, total);
}

AlignedBuffer::AlignedBuffer(size_t bytes) : size_(bytes) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + kDirectBlock - 1) / kDirectBlock * kDirectBlock;
  p_.reset(static_cast<unsigned char*>(std::aligned_alloc(kDirectBlock, rounded)));
  if (!p_) throw OutOfMemory(bytes);
}

void AlignedBuffer::Free::operator()(unsigned char* p) const { std::free(p); }

namespace {
// Runs io(begin, size) over `threads` page-aligned pieces of [0, n).
template <class F>
void split_io(size_t n, unsigned threads, F&& io) {
  // Small enough that a 64 MiB slot is read by 16 threads: page-cache copies scale
  // with threads well past the 4 a 16 MiB piece allowed.
  const size_t min_piece = size_t(4) << 20;
  threads = unsigned(std::max<size_t>(1, std::min<size_t>(threads, n / min_piece)));
  if (threads == 1) { io(size_t(0), n); return; }
  const size_t piece = (n / threads + 4095) / 4096 * 4096;
  parallel::parallel_for(threads, threads, [&](size_t t) {
    const size_t b = std::min(n, t * piece), e = t + 1 == threads ? n : std::min(n, b + piece);
    if (e > b) io(b, e - b);
  });
}
}  // namespace

void parallel_copy(void* dst, const void* src, size_t bytes, unsigned threads) {
  split_io(bytes, threads, [&](size_t b, size_t len) {
    std::memcpy(static_cast<unsigned char*>(dst) + b, static_cast<const unsigned char*>(src) + b, len);
  });
}

void File::read_at_parallel(void* dst, size_t n, uint64_t offset, unsigned threads) const {
  split_io(n, threads, [&](size_t b, size_t len) { read_at(static_cast<unsigned char*>(dst) + b, len, offset + b); });
}

void File::write_at_parallel(const void* src, size_t n, uint64_t offset, unsigned threads) const {
  split_io(n, threads, [&](size_t b, size_t len) { write_at(static_cast<const unsigned char*>(src) + b, len, offset + b); });
}

bool File::write_direct_at(const void* src, size_t n, uint64_t offset, unsigned threads) const {
  const auto* p = static_cast<const unsigned char*>(src);
  const size_t whole = n / kDirectBlock * kDirectBlock;
  bool direct = false;
  // (A file with a header goes through the cache: its data is not block-aligned.)
  const int dfd = whole > 0 && base_ == 0 && reinterpret_cast<uintptr_t>(p) % kDirectBlock == 0 &&
                          offset % kDirectBlock == 0
                      ? direct_fd() : -1;
  if (dfd >= 0) {
    std::atomic<bool> refused{false};
    split_io(whole, threads, [&](size_t b, size_t len) {
      for (size_t d = 0; d < len && !refused;) {
        const ssize_t r = ::pwrite(dfd, p + b + d, std::min(len - d, kMaxSyscallBytes), off_t(offset + b + d));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EINVAL) { refused = true; break; }
        if (r < 0) fail_errno(path_, "write failed at offset " + std::to_string(offset + b + d), errno);
        d += size_t(r);
      }
    });
    if (refused) refuse_direct();
    direct = !refused;
  }
  // The rest (or all of it where O_DIRECT was refused: what went direct is rewritten,
  // the same bytes) through the page cache.
  const size_t done = direct ? whole : 0;
  if (done < n) write_at_parallel(p + done, n - done, offset + done, threads);
  return direct;
}

bool File::read_direct_at(void* dst, size_t n, uint64_t offset) const {
  auto* p = static_cast<unsigned char*>(dst);
  const int dfd = n > 0 && base_ == 0 && reinterpret_cast<uintptr_t>(p) % kDirectBlock == 0 && offset % kDirectBlock == 0
                      ? direct_fd() : -1;
  if (dfd >= 0) {
    const size_t whole = (n + kDirectBlock - 1) / kDirectBlock * kDirectBlock;
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(dfd, p + got, std::min(whole - got, kMaxSyscallBytes), off_t(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && errno == EINVAL) { refuse_direct(); break; }
      if (r < 0) fail_errno(path_, "read failed at offset " + std::to_string(offset + got), errno);
      if (r == 0)
        throw Error(ExitCode::io, path_ + ": unexpected end of file at offset " + std::to_string(offset + got) +
                                      ": input changed during the run (it is shorter than when gxsort opened it)");
      got += size_t(r);
    }
    if (got >= n) return true;
  }
  read_at(p, n, offset);
  return false;
}

void File::sync() const {
  if (::fsync(fd_) != 0) fail_errno(path_, "fsync failed", errno);
}

void File::close() {
  write_behind_.reset();
  direct_ = std::make_unique<DirectDescriptor>();  // closes the O_DIRECT descriptor, if one was opened
  if (fd_ >= 0) {
    int r = ::close(fd_);
    fd_ = -1;
    if (r != 0) fail_errno(path_, "close failed", errno);
  }
}

BufferedWriter::BufferedWriter(const File& f, uint64_t start_offset, size_t buffer_bytes)
    : file_(&f), offset_(start_offset), buf_(buffer_bytes ? buffer_bytes : 1, '\0') {}

void BufferedWriter::write(const void* src, size_t n) {
  auto* p = static_cast<const char*>(src);
  if (used_ + n > buf_.size()) {
    flush();
    if (n >= buf_.size()) {  // large writes go straight to the file
      file_->write_at(p, n, offset_);
      offset_ += n;
      return;
    }
  }
  std::memcpy(&buf_[used_], p, n);
  used_ += n;
}

void BufferedWriter::flush() {
  if (used_ == 0) return;
  file_->write_at(buf_.data(), used_, offset_);
  offset_ += used_;
  used_ = 0;
}

uint64_t file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) fail_errno(path, "cannot open for reading", errno);
  if (S_ISDIR(st.st_mode)) fail_errno(path, "cannot open for reading", EISDIR);
  return uint64_t(st.st_size);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace gxsort::io
