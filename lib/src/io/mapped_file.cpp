#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "gxsort/error.hpp"
#include "io/file.hpp"
#include "io/mapping_guard.hpp"
#include "parallel/parallel_for.hpp"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL
#endif

namespace gxsort::io {

MappedFile MappedFile::map_read(const File& f, size_t bytes, uint64_t offset, bool populate) {
  MappedFile m;
  if (bytes == 0) return m;
  offset += f.base();
  const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  const size_t lead = size_t(offset % page);
  void* p = ::mmap(nullptr, bytes + lead, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), f.fd(), off_t(offset - lead));
  if (p == MAP_FAILED) fail_errno(f.path(), "cannot map for reading", errno);
  m.p_ = static_cast<unsigned char*>(p);
  m.n_ = bytes + lead;
  m.lead_ = lead;
  struct stat st{};
  ::fstat(f.fd(), &st);
  guard_mapping(p, m.n_, uint64_t(st.st_dev), uint64_t(st.st_ino));  // a file that shrinks under it: an error, not SIGBUS
  m.guarded_ = true;
  ::madvise(p, m.n_, MADV_SEQUENTIAL);
  return m;
}

MappedFile MappedFile::map_write(const File& f, size_t bytes, unsigned threads, uint64_t offset, bool populate) {
  MappedFile m;
  if (bytes == 0) return m;
  // The data from `offset` after the file's base (a header) on, mapped from the page
  // that holds it, with what comes before it in that page in front of data().
  const uint64_t start = f.base() + offset;
  const uint64_t at_page = start / uint64_t(::sysconf(_SC_PAGESIZE)) * uint64_t(::sysconf(_SC_PAGESIZE));
  const size_t lead = size_t(start - at_page);
  bytes += lead;
  // posix_fallocate returns the error number instead of setting errno.
  if (int err = ::posix_fallocate(f.fd(), off_t(at_page), off_t(bytes))) fail_errno(f.path(), "cannot reserve space", err);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd(), off_t(at_page));
  if (p == MAP_FAILED) fail_errno(f.path(), "cannot map for writing", errno);
  m.p_ = static_cast<unsigned char*>(p);
  m.n_ = bytes;
  m.lead_ = lead;
  if (!populate) return m;
  // Pre-faulted (measured about twice as fast as faulting every page in the sort), on
  // every thread: each fault zeroes a fresh page-cache page, and on a VM whose fresh
  // memory is expensive to touch one thread took 4.3-6.4 s for 2 GiB, two 1.7-2.5 s.
  // Each thread faults its own contiguous part through its own open file, so that each
  // part has its own readahead state: faults of two threads interleaved in one state
  // look random, readahead then drops to single pages instead of large folios, and the
  // write-behind cleans page by page (a TLB shootdown each; the sort ran 2x slower).
  // Read faults: the pages stay clean until the sort stores to them (a cheap write
  // fault), so no zeros are queued for writeback.
  constexpr size_t kMinPart = size_t(16) << 20, kAlign = size_t(2) << 20;
  threads = unsigned(std::max<size_t>(1, std::min<size_t>(threads, bytes / kMinPart)));
  const size_t part = (bytes / threads + kAlign - 1) / kAlign * kAlign;
  const std::string self = "/proc/self/fd/" + std::to_string(f.fd());
  parallel::parallel_for(threads, threads, [&](size_t t) {
    const size_t b = std::min(bytes, t * part), len = std::min(part, bytes - b);
    if (len == 0) return;
    unsigned char* at = m.p_ + b;
    if (t > 0) {
      // Best effort: without a second open file the part shares the first one's state.
      const int fd = ::open(self.c_str(), O_RDWR | O_CLOEXEC);
      if (fd >= 0) {
        void* q = ::mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off_t(at_page + b));
        const int err = errno;
        ::close(fd);
        if (q == MAP_FAILED) fail_errno(f.path(), "cannot map for writing", err);
      }
    }
    if (::madvise(at, len, MADV_POPULATE_READ) == 0) return;
    // Kernels before 5.14 lack MADV_POPULATE_READ: fault the pages in by reading them.
    for (size_t o = 0; o < len; o += 4096) static_cast<void>(*static_cast<volatile unsigned char*>(at + o));
  });
  return m;
}

void MappedFile::unmap() {
  if (p_ && guarded_) unguard_mapping(p_);
  if (p_) ::munmap(p_, n_);
  guarded_ = false;
  p_ = nullptr;
  n_ = 0;
  lead_ = 0;
}

void MappedFile::release(size_t offset, size_t n) const {
  const PageRange r = whole_pages(lead_ + offset, n, uint64_t(::sysconf(_SC_PAGESIZE)));
  if (p_ && !r.empty()) ::madvise(p_ + r.begin, size_t(r.end - r.begin), MADV_DONTNEED);
}

void MappedFile::swap(MappedFile& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
  std::swap(lead_, o.lead_);
  std::swap(guarded_, o.guarded_);
}

// Many threads: one thread filled the page cache at 2-3 GB/s on the H100 host; a rank of
// the distributed sort that wrote its 16 GiB range with pwrite on 16 threads took 10 s on
// the H200 host (the kernel serializes one file's writes), and a mapping per 64 MiB slice
// 9 s for 8 GiB with two ranks mapping at once.
MappedRange::MappedRange(const File& out, uint64_t offset, uint64_t bytes, unsigned threads, bool populate)
    : out_(out), offset_(offset), threads_(threads), m_(MappedFile::map_write(out, size_t(bytes), threads, offset, populate)) {}

void MappedRange::put(const unsigned char* src, uint64_t at, uint64_t n) {
  parallel_copy(m_.data() + at, src, size_t(n), threads_);
  m_.release(size_t(at), size_t(n));
  out_.written_elsewhere(offset_ + at, n);
}

void MappedRange::put_here(const unsigned char* src, uint64_t at, uint64_t n) {
  std::memcpy(m_.data() + at, src, size_t(n));
  m_.release(size_t(at), size_t(n));
  out_.written_elsewhere(offset_ + at, n);
}

void write_mapped(const File& out, uint64_t offset, const unsigned char* data, size_t n, unsigned threads) {
  if (n) MappedRange(out, offset, n, threads).put(data, 0, n);
}

}  // namespace gxsort::io
