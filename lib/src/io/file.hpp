// RAII file descriptors with whole-buffer positional reads and writes. Every
// failure throws gxsort::Error naming the file and the errno text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gxsort/cancel.hpp"

namespace gxsort::io {

class WriteBehind;
struct DirectDescriptor;

// O_DIRECT transfers start, end and sit in memory on multiples of this (the largest
// logical block size of common disks).
constexpr size_t kDirectBlock = 4096;

// The whole pages (of `page` bytes) inside [offset, offset + n): [begin, end), empty
// when begin >= end. Writeback, hole punching and unmapping act on these only, never
// on a page that a neighbouring range still shares.
struct PageRange {
  uint64_t begin, end;
  bool empty() const { return end <= begin; }
};
inline PageRange whole_pages(uint64_t offset, uint64_t n, uint64_t page = 4096) {
  return {(offset + page - 1) / page * page, (offset + n) / page * page};
}

class File {
 public:
  File();
  static File open_read(const std::string& path);
  // An input as a shell names it: "-" is standard input; a path that is not a regular
  // file (pipe, FIFO, character or block device), or a file of /proc, /sys or another
  // of the kernel's pseudo file systems, is a stream, whose size is unknown until it ends: it is
  // read in order (read_chunk, read_stream) and never sized by st_size. Standard input
  // that is a regular file at offset 0 is a regular file.
  static File open_input(const std::string& path);
  // Creates a new file that must not exist yet (O_EXCL, not even as a link), mode 0600.
  static File create_new(const std::string& path);
  // Opens an existing file for reading and writing (a resumed job's output).
  static File open_rw(const std::string& path);
  File(File&& o) noexcept;
  File& operator=(File&& o) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();
  // Takes over `fd`, a descriptor of the file `path` that the caller opened and checked
  // (a resumed job's piece: io/safe_dir.hpp's open_own_file_at).
  static File adopt_fd(int fd, const std::string& path);

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // The name error messages use (a temp output file is reported as its target).
  void set_label(const std::string& label) { path_ = label; }
  bool is_open() const { return fd_ >= 0; }
  // Bytes after the base (below): the data's size.
  uint64_t size() const;
  // A file whose data starts after a header (.npy): every offset of this class (reads,
  // writes, mappings, size, truncate) counts from `base` bytes into the file. The
  // header itself is read and written through raw_fd-level calls by its owner.
  // A stream's header, read with read_stream, is behind its base the same way: its
  // offsets (read_chunk) and stream_bytes() then count from there.
  void set_base(uint64_t base) {
    if (stream_) stream_read_ = stream_read_ > base ? stream_read_ - base : 0;
    else base_ = base;
  }
  uint64_t base() const { return base_; }
  uint64_t raw_size() const;
  void truncate(uint64_t n) const;
  bool is_stream() const { return stream_; }
  // Reads up to n of a stream's next bytes; fewer only where it ends.
  size_t read_stream(void* dst, size_t n) const;
  // A check of a stream's first bytes (those of its first read_stream: a whole chunk,
  // or fewer where it ends), run as they arrive: it throws to refuse the stream. Not a
  // read ahead at open: the command checks its outputs before it waits on its input.
  void check_first_bytes(std::function<void(const unsigned char* data, size_t n)> check) {
    first_bytes_check_ = std::move(check);
  }
  // A chunk of an input at `offset`: a regular file's n bytes there (on `threads`
  // threads; throws if it is shorter), a stream's next bytes (offset must be where the
  // last read ended; fewer than n only at its end). Returns the bytes read.
  size_t read_chunk(void* dst, size_t n, uint64_t offset, unsigned threads) const;
  // Bytes a stream has delivered so far (its length, once it ended).
  uint64_t stream_bytes() const { return stream_read_; }
  // A regular input's size and modification time (ns) when it was opened.
  uint64_t open_size() const { return open_size_; }
  int64_t open_mtime_ns() const { return open_mtime_ns_; }
  // Throws Error(io) "input changed during the run" when a regular input opened with
  // open_input/open_read now has another size or modification time than at its open,
  // or a mapping of it faulted past its end (io/mapping_guard.hpp).
  void check_unchanged() const;

  // Asks the kernel to start reading [offset, offset + n) into the page cache now
  // (POSIX_FADV_WILLNEED; best effort, nothing for a stream): for a file read in slices,
  // so that a cold disk reads the next slices while this one is copied.
  void prefetch(uint64_t offset, uint64_t n) const;
  // Reads exactly n bytes at offset (throws on a short read: the file changed under us).
  void read_at(void* dst, size_t n, uint64_t offset) const;
  void write_at(const void* src, size_t n, uint64_t offset) const;
  // The same, split over `threads` threads for large transfers: page-cache copies and
  // first-touch page faults of fresh buffers then use every core.
  void read_at_parallel(void* dst, size_t n, uint64_t offset, unsigned threads) const;
  void write_at_parallel(const void* src, size_t n, uint64_t offset, unsigned threads) const;
  // The same around the page cache (O_DIRECT, a second descriptor) where it can: the
  // whole 4 KiB blocks of a source, offset and size aligned to 4 KiB go straight from
  // src to the disk, the rest through write_at_parallel. Returns false where nothing
  // went direct (unaligned, no /proc, or a file system that refuses O_DIRECT: then all
  // of it went through the page cache). For data that would only pass through the cache
  // (temp runs larger than it, a synced output): no cache pages to fill, no copy.
  // Write-behind is not told about the direct part: it is on the disk already.
  bool write_direct_at(const void* src, size_t n, uint64_t offset, unsigned threads) const;
  // Reads exactly n bytes at offset around the page cache where it can: dst and offset
  // aligned to kDirectBlock, and dst with room for n rounded up to it (the last block is
  // read whole). Else, or where the file system refuses O_DIRECT, through the cache like
  // read_at. Returns whether it went direct. For our own temp runs written direct: reading
  // them back fills no cache pages either.
  bool read_direct_at(void* dst, size_t n, uint64_t offset) const;
  // Write-behind for an output file: every write_at from now on hands its
  // range to a background thread that starts the range's writeback at once
  // (sync_file_range WRITE), so the disk works while later ranges are written and the
  // final sync() has little left to do, and a large unsynced output is not throttled
  // for its dirty pages all at once. Not for files that should stay in the page cache
  // (temp runs). backlog_limit > 0: a write waits while more than that is written and
  // not yet handed to the disk, so that the writer goes at the disk's pace and the dirty
  // pages it leaves stay few (a synced output: see engine/sort.cpp). `cancel`: such a
  // wait throws Cancelled once the token is set (a cancelled call does not wait for a
  // slow disk). `hand_on` stands in for the writeback call (sync_file_range) where set:
  // the unit tests' stalled disk.
  using HandOn = std::function<void(int fd, uint64_t offset, uint64_t n)>;
  void start_write_behind(uint64_t backlog_limit = 0, const CancelToken* cancel = nullptr, HandOn hand_on = nullptr);
  // Hands the whole pages of [offset, offset + n) to the write-behind thread (if
  // started): for ranges written through a memory mapping, which write_at does not see.
  void written_elsewhere(uint64_t offset, uint64_t n) const;
  // Drops [offset, offset + n) (shrunk inward to whole pages) from the page cache and
  // the disk, keeping the size (a hole reads as zeros): consumed parts of our own temp
  // runs, whose pages are then free for reuse and not written back later (ext4 and XFS
  // write a still-dirty range before punching it). Best effort: a file system without
  // hole punching keeps the data.
  void discard(uint64_t offset, uint64_t n) const;
  void sync() const;
  void close();

 private:
  // The O_DIRECT descriptor of the same file (a second open of /proc/self/fd/N, so this
  // one stays buffered), opened on first use; -1 where it cannot be or was refused.
  int direct_fd() const;
  void refuse_direct() const;

  int fd_ = -1;
  std::string path_;
  uint64_t base_ = 0;
  bool stream_ = false;
  mutable uint64_t stream_read_ = 0;
  std::function<void(const unsigned char*, size_t)> first_bytes_check_;  // check_first_bytes
  uint64_t open_size_ = 0;        // regular inputs: size and mtime at open (check_unchanged)
  int64_t open_mtime_ns_ = -1;
  std::unique_ptr<WriteBehind> write_behind_;
  std::unique_ptr<DirectDescriptor> direct_;
};

// Heap bytes aligned to kDirectBlock, as O_DIRECT transfers need (not zero-filled).
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  unsigned char* data() const { return p_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free { void operator()(unsigned char* p) const; };
  std::unique_ptr<unsigned char, Free> p_;
  size_t size_ = 0;
};

// memcpy split over up to `threads` threads, in pieces of at least 4 MiB (copies into
// page-cache or fresh pages are not bandwidth-bound on one thread: a 64 MiB slice is
// copied by 16 threads).
void parallel_copy(void* dst, const void* src, size_t bytes, unsigned threads);

// Sequential writer with a buffer, appending from a start offset (several writers
// may fill disjoint ranges of one file).
class BufferedWriter {
 public:
  BufferedWriter(const File& f, uint64_t start_offset, size_t buffer_bytes);
  void write(const void* src, size_t n);
  void flush();
  uint64_t offset() const { return offset_ + used_; }

 private:
  const File* file_;
  uint64_t offset_;
  std::string buf_;
  size_t used_ = 0;
};

uint64_t file_size(const std::string& path);  // throws with the path
bool same_file(const std::string& a, const std::string& b);  // same inode (false if either is missing)

}  // namespace gxsort::io
