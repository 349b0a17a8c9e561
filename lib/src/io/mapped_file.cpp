#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>

#include <cerrno>
#include <utility>

#include "gxsort/error.hpp"

namespace gxsort::io {

MappedFile MappedFile::map_read(const File& f, size_t bytes) {
  MappedFile m;
  if (bytes == 0) return m;
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd(), 0);
  if (p == MAP_FAILED) fail_errno(f.path(), "cannot map for reading", errno);
  m.p_ = static_cast<unsigned char*>(p);
  m.n_ = bytes;
  ::madvise(p, bytes, MADV_SEQUENTIAL);
  return m;
}

MappedFile MappedFile::map_write(const File& f, size_t bytes) {
  MappedFile m;
  if (bytes == 0) return m;
  // posix_fallocate returns the error number instead of setting errno.
  if (int err = ::posix_fallocate(f.fd(), 0, off_t(bytes))) fail_errno(f.path(), "cannot reserve space", err);
  // Pre-faulted in one call (read faults: a shared page still takes a cheap write fault
  // on its first store), measured about twice as fast as faulting every page in the sort.
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f.fd(), 0);
  if (p == MAP_FAILED) fail_errno(f.path(), "cannot map for writing", errno);
  m.p_ = static_cast<unsigned char*>(p);
  m.n_ = bytes;
  return m;
}

void MappedFile::unmap() {
  if (p_) ::munmap(p_, n_);
  p_ = nullptr;
  n_ = 0;
}

void MappedFile::swap(MappedFile& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
}

}  // namespace gxsort::io
