// io_paths: the ways the GPU sort's data can leave the device for a file, and enter it
// from a cold file (issue 20: "the last copy" and "cold inputs"), each timed alone.
//   write (from device memory to DIR/out, page cache, not synced):
//     pwrite1   64 MiB slices: D2H into a pinned slot, one thread writes it (today's path)
//     mapcopy   the output mapped and pre-faulted on T threads (io::MappedFile::map_write),
//               then each slice D2H into a pinned slot and copied into the mapping on T threads
//     mapd2h    the same mapping, each slice copied D2H straight into it (pageable copy)
//     register  the mapping cudaHostRegister'ed, then D2H straight into it (if allowed)
//   read (DIR/in, caches dropped before each when root; a pinned 64 MiB slot, H2D after):
//     pread16   64 MiB slices, each read by T threads in 4 MiB pieces
//     willneed  the same, the next two slices asked for (POSIX_FADV_WILLNEED) first
//     direct    O_DIRECT, T threads each with its 4 MiB pieces in flight, 64 MiB slices
// usage: io_paths DIR [GiB=4] [threads=16]
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "cuda_check.cuh"
#include "io/file.hpp"
#include "io/mapped_file.hpp"
#include "parallel/parallel_for.hpp"

using namespace gxsort;
namespace {

constexpr size_t kSlice = size_t(64) << 20;
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Pinned {
  unsigned char* p = nullptr;
  explicit Pinned(size_t n) { GXSORT_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), n, cudaHostAllocPortable)); }
  ~Pinned() { cudaFreeHost(p); }
};

void drop_caches() {
  ::sync();
  if (FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) { std::fputs("3", f); std::fclose(f); }
}

void report(const char* name, double s, size_t bytes, const std::string& parts = "") {
  std::printf("| %s | %.3f | %.2f | %s |\n", name, s, bytes / s / 1e9, parts.c_str());
  std::fflush(stdout);
}

void write_paths(const std::string& dir, const unsigned char* dev, size_t bytes, unsigned threads) {
  const std::string path = dir + "/out";
  Pinned slot(kSlice);
  auto fresh = [&] { ::unlink(path.c_str()); ::sync(); return io::File::create_new(path); };
  {
    io::File f = fresh();
    const double t0 = now();
    for (size_t off = 0; off < bytes; off += kSlice) {
      const size_t n = std::min(kSlice, bytes - off);
      GXSORT_CUDA_CHECK(cudaMemcpy(slot.p, dev + off, n, cudaMemcpyDeviceToHost));
      f.write_at(slot.p, n, off);
    }
    report("pwrite1: D2H to pinned, one thread writes", now() - t0, bytes);
  }
  for (int direct = 0; direct < 3; ++direct) {
    io::File f = fresh();
    const double t0 = now();
    io::MappedFile m = io::MappedFile::map_write(f, bytes, threads);
    const double t1 = now();
    bool registered = direct != 2;
    if (direct == 2 && cudaHostRegister(m.data(), bytes, cudaHostRegisterDefault) == cudaSuccess) registered = true;
    cudaGetLastError();
    if (!registered) { std::printf("| register: cudaHostRegister of a shared file mapping refused | | | |\n"); continue; }
    for (size_t off = 0; off < bytes; off += kSlice) {
      const size_t n = std::min(kSlice, bytes - off);
      if (direct) {
        GXSORT_CUDA_CHECK(cudaMemcpy(m.data() + off, dev + off, n, cudaMemcpyDeviceToHost));
      } else {
        GXSORT_CUDA_CHECK(cudaMemcpy(slot.p, dev + off, n, cudaMemcpyDeviceToHost));
        io::parallel_copy(m.data() + off, slot.p, n, threads);
      }
    }
    const double t2 = now();
    if (direct == 2) cudaHostUnregister(m.data());
    m.unmap();
    const double t3 = now();
    const char* name = direct == 0 ? "mapcopy: map+populate, D2H pinned, T threads copy"
                       : direct == 1 ? "mapd2h: map+populate, D2H into the mapping"
                                     : "register: map+populate+register, D2H into it";
    char parts[128];
    std::snprintf(parts, sizeof parts, "map %.3f, copy %.3f, unmap %.3f", t1 - t0, t2 - t1, t3 - t2);
    report(name, t3 - t0, bytes, parts);
  }
  ::unlink(path.c_str());
}

void read_paths(const std::string& dir, unsigned char* dev, size_t bytes, unsigned threads) {
  const std::string path = dir + "/in";
  {
    io::File f = io::File::create_new(path);
    Pinned slot(kSlice);
    for (size_t off = 0; off < bytes; off += kSlice) {
      const size_t n = std::min(kSlice, bytes - off);
      for (size_t i = 0; i < n; i += 8) std::memcpy(slot.p + i, &off, 8);
      f.write_at(slot.p, n, off);
    }
    f.sync();
  }
  Pinned slot(kSlice);
  const char* names[] = {"pread16: T threads, 4 MiB pieces, page cache", "pread16 + WILLNEED of the next 2 slices",
                         "direct: O_DIRECT, T threads, 4 MiB pieces"};
  for (int way = 0; way < 3; ++way) {
    drop_caches();
    const int fd = ::open(path.c_str(), O_RDONLY | (way == 2 ? O_DIRECT : 0));
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (fd < 0) { std::printf("| %s: cannot open |\n", names[way]); continue; }
    const double t0 = now();
    for (size_t off = 0; off < bytes; off += kSlice) {
      const size_t n = std::min(kSlice, bytes - off);
      if (way == 1) ::posix_fadvise(fd, off_t(off + n), off_t(2 * kSlice), POSIX_FADV_WILLNEED);
      const size_t pieces = (n + (4 << 20) - 1) >> 22;
      parallel::parallel_for(pieces, threads, [&](size_t i) {
        const size_t b = i << 22, len = std::min<size_t>(4 << 20, n - b);
        if (::pread(fd, slot.p + b, len, off_t(off + b)) != ssize_t(len)) std::abort();
      });
      GXSORT_CUDA_CHECK(cudaMemcpy(dev + off, slot.p, n, cudaMemcpyHostToDevice));
    }
    report(names[way], now() - t0, bytes);
    ::close(fd);
  }
  drop_caches();
  const double t0 = now();
  if (std::system(("cat " + path + " > /dev/null").c_str()) != 0) std::abort();
  report("cat FILE > /dev/null (cold)", now() - t0, bytes);
  ::unlink(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: io_paths DIR [GiB=4] [threads=16]\n"); return 2; }
  const std::string dir = argv[1];
  const size_t bytes = size_t(argc > 2 ? std::atof(argv[2]) * (1 << 30) : 4.0 * (1 << 30)) / kSlice * kSlice;
  const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 16;
  unsigned char* dev = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&dev, bytes));
  GXSORT_CUDA_CHECK(cudaMemset(dev, 0x5a, bytes));
  std::printf("| %.1f GiB, %u threads | s | GB/s | parts |\n|---|---|---|---|\n", bytes / double(1 << 30), threads);
  write_paths(dir, dev, bytes, threads);
  read_paths(dir, dev, bytes, threads);
  cudaFree(dev);
  return 0;
}
