// Whole-file memory mappings for the in-memory sort. On a machine whose fresh memory
// is expensive to touch (first-touch faults dominate a page-cache-speed sort), mapping
// the input reuses its page-cache pages instead of copying them into a new buffer, and
// mapping the output lets the sort scatter straight into the pages `write` would fill.
#pragma once
#include <cstddef>
#include <cstdint>

#include "io/file.hpp"

namespace gxsort::io {

class MappedFile {
 public:
  MappedFile() = default;
  // `bytes` of `f` from byte `offset` (any), read-only, guarded against the file
  // shrinking under it (io/mapping_guard.hpp: zeros and a recorded fault, no SIGBUS); pre-faulted on this thread
  // (the input is normally cached) unless `populate` is false: then the reader's first
  // touches fault the pages in, 16 at a time (for the in-memory sort, whose first pass
  // reads on every thread: 0.1 s less on 2 GiB, 2 cores).
  static MappedFile map_read(const File& f, size_t bytes, uint64_t offset = 0, bool populate = true);
  // Bytes [offset, offset + bytes) of `f`, with their blocks reserved (posix_fallocate,
  // so a full disk is an error here, never a SIGBUS later; the file grows to hold them),
  // mapped shared and writable; pre-faulted on `threads` threads unless `populate` is
  // false (then each page faults in when it is first written).
  static MappedFile map_write(const File& f, size_t bytes, unsigned threads = 1, uint64_t offset = 0,
                              bool populate = true);
  MappedFile(MappedFile&& o) noexcept { swap(o); }
  MappedFile& operator=(MappedFile&& o) noexcept { MappedFile t(std::move(o)); swap(t); return *this; }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { unmap(); }

  unsigned char* data() const { return p_ ? p_ + lead_ : nullptr; }
  size_t size() const { return n_ - lead_; }
  // Unmaps now; written pages stay in the page cache for a later fsync.
  void unmap();
  // Drops this mapping's page-table entries for the whole pages inside data()[offset,
  // offset + n) (MADV_DONTNEED; the page cache keeps the pages and their data). For a
  // range that is final: its writeback then has no mapped page to write-protect, each
  // of which cost a TLB shootdown of the other threads.
  void release(size_t offset, size_t n) const;

 private:
  void swap(MappedFile& o) noexcept;
  unsigned char* p_ = nullptr;  // the mapping, from a page boundary
  size_t n_ = 0;
  size_t lead_ = 0;             // bytes of p_ before the requested offset
  bool guarded_ = false;        // registered with the SIGBUS guard (read mappings)
};

// Bytes [offset, offset + bytes) of an output file, mapped once (MappedFile::map_write)
// and filled piece by piece, each piece copied in by `threads` threads (one file's write()
// calls are serialized by the kernel). A piece put is final: its pages leave the mapping
// and their writeback starts at once where the file has write-behind. `populate`: as
// map_write's (false for a range filled in order from its start, whose first pieces
// should not wait for the whole range's faults).
class MappedRange {
 public:
  MappedRange(const File& out, uint64_t offset, uint64_t bytes, unsigned threads, bool populate = true);
  // n bytes of src at byte `at` of the range.
  void put(const unsigned char* src, uint64_t at, uint64_t n);
  // The same, copied on the calling thread alone (callers that split the work themselves).
  void put_here(const unsigned char* src, uint64_t at, uint64_t n);

 private:
  const File& out_;
  uint64_t offset_;
  unsigned threads_;
  MappedFile m_;
};

// One piece: n bytes of data at `offset` of out, through a mapping of that range.
void write_mapped(const File& out, uint64_t offset, const unsigned char* data, size_t n, unsigned threads);

}  // namespace gxsort::io
