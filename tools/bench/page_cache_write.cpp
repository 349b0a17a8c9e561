// page_cache_write: how fast one job can fill the page cache with a new file (issues 19
// and 20: the one-process sort's output write, the out-of-core merge's windows). Writes
// GiB of a touched buffer, again and again, to DIR/out, each way timed alone
// (the file fresh, the page cache synced before, not after):
//   map T      io::MappedRange on T threads, 64 MiB puts (the sort's output path)
//   nopop T    the file reserved and mapped once, T threads copy their own parts in
//              without pre-faulting (every page a write fault in the copy)
//   popw T     the same, each part pre-faulted for writing first (MADV_POPULATE_WRITE)
//   pwrite T   T threads pwrite their own parts, 64 MiB at a time
//   files T    T threads pwrite a file each (DIR/out.N), 1/T of the bytes, 64 MiB at a time:
//              one file's write() calls are serialized by the kernel, T files' are not
//   sparse T   the file sized by ftruncate (no blocks reserved: a hole, as run files are)
//              and mapped once, T threads copy their own parts in without pre-faulting
//   win W      io::write_mapped of each W MiB window on every thread (a mapping each: the
//              out-of-core merge's windows before session 14, and still with -u)
//   winnp W    each W MiB window reserved and mapped once, copied in by every thread
//              without pre-faulting, its pages dropped from the mapping, unmapped
//   range W    one io::MappedRange over the file, not pre-faulted, W MiB windows put on
//              every thread (the out-of-core merge since session 14)
//   rangep W   the same range pre-faulted first (on every thread)
//   procs P    P processes (this program again), each `map` on its 1/P of the file with
//              cores/P threads: the ranks' way (bench/mpi_page_cache, G = P)
//   parts T    the in-memory GPU sort's output since session 17: write-behind on, one
//              io::MappedRange, T threads each put_here their own part in 16 MiB pieces,
//              then the file closed (timed: the close waited for the write-behind thread)
// usage: page_cache_write DIR [GiB=16] [ways...]   (default: every way at a few T)
// Prints "| way | s | GB/s | dirty after MiB |".
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "io/file.hpp"
#include "io/mapped_file.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

extern char** environ;
using namespace gxsort;

namespace {

constexpr size_t kSlot = size_t(64) << 20;
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::vector<unsigned char>& source() {
  // Up to 1 GiB windows; touched, so no first-touch faults in the timing.
  static std::vector<unsigned char> buffer(size_t(1) << 30, 1);
  return buffer;
}

long meminfo_mib(const char* key) {
  std::ifstream f("/proc/meminfo");
  std::string k;
  long kib = 0;
  while (f >> k >> kib) {
    if (k == std::string(key) + ":") return kib / 1024;
    f.ignore(64, '\n');
  }
  return -1;
}

// T threads, thread t over its contiguous part of [0, bytes): fn(t, begin, end).
template <class Fn>
void on_parts(unsigned threads, uint64_t bytes, Fn fn) {
  const uint64_t part = (bytes / threads + kSlot - 1) / kSlot * kSlot;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([=] { fn(t, std::min(bytes, t * part), std::min(bytes, (t + 1) * part)); });
  for (auto& th : pool) th.join();
}

void copy_part(unsigned char* dst, uint64_t begin, uint64_t end) {
  for (uint64_t at = begin; at < end; at += kSlot) std::memcpy(dst + at, source().data(), std::min(kSlot, end - at));
}

// Bytes [at, at + n) of out mapped shared, not pre-faulted (exits on errors): reserved
// first (posix_fallocate), or else only sized (ftruncate: a hole, as run files are).
unsigned char* map_part(const io::File& out, uint64_t at, uint64_t n, bool reserve = true) {
  int err = 0;
  if (reserve) err = ::posix_fallocate(out.fd(), off_t(at), off_t(n));
  else if (::ftruncate(out.fd(), off_t(at + n)) != 0) err = errno;
  if (err) {
    std::fprintf(stderr, "%s: %s\n", reserve ? "fallocate" : "ftruncate", std::strerror(err));
    std::exit(1);
  }
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, out.fd(), off_t(at));
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  return static_cast<unsigned char*>(p);
}

void way_map(const io::File& out, uint64_t offset, uint64_t bytes, unsigned threads) {
  io::MappedRange range(out, offset, bytes, threads);
  for (uint64_t at = 0; at < bytes; at += kSlot) range.put(source().data(), at, std::min<uint64_t>(kSlot, bytes - at));
}

void way_mapped_parts(const io::File& out, uint64_t bytes, unsigned threads, bool populate, bool reserve = true) {
  unsigned char* p = map_part(out, 0, bytes, reserve);
  on_parts(threads, bytes, [&](unsigned, uint64_t b, uint64_t e) {
    if (populate && e > b) ::madvise(p + b, e - b, MADV_POPULATE_WRITE);
    copy_part(p, b, e);
  });
  ::munmap(p, bytes);
}

// `library`: each window through io::write_mapped (pre-faulted); else mapped here, not.
void way_windows(const io::File& out, uint64_t bytes, uint64_t window, unsigned threads, bool library) {
  for (uint64_t at = 0; at < bytes; at += window) {
    const uint64_t n = std::min(window, bytes - at);
    if (library) {
      io::write_mapped(out, at, source().data(), size_t(n), threads);
      continue;
    }
    unsigned char* p = map_part(out, at, n);
    on_parts(threads, n, [&](unsigned, uint64_t b, uint64_t e) { copy_part(p, b, e); });
    ::madvise(p, n, MADV_DONTNEED);
    ::munmap(p, n);
  }
}

void way_range(const io::File& out, uint64_t bytes, uint64_t window, unsigned threads, bool populate) {
  io::MappedRange range(out, 0, bytes, threads, populate);
  for (uint64_t at = 0; at < bytes; at += window) range.put(source().data(), at, std::min(window, bytes - at));
}

void way_parts(io::File& out, uint64_t bytes, unsigned threads) {
  constexpr uint64_t kPiece = uint64_t(16) << 20;
  out.start_write_behind();
  {
    io::MappedRange range(out, 0, bytes, threads);
    on_parts(threads, bytes, [&](unsigned, uint64_t b, uint64_t e) {
      for (uint64_t at = b; at < e; at += kPiece) range.put_here(source().data(), at, std::min(kPiece, e - at));
    });
  }
  out.close();
}

void way_pwrite(const io::File& out, uint64_t bytes, unsigned threads) {
  on_parts(threads, bytes, [&](unsigned, uint64_t b, uint64_t e) {
    for (uint64_t at = b; at < e; at += kSlot) out.write_at(source().data(), size_t(std::min(kSlot, e - at)), at);
  });
}

std::string part_name(const std::string& path, unsigned t) { return path + "." + std::to_string(t); }

void remove_files(const std::string& path, unsigned n) {  // way_files' first n files: its own
  for (unsigned t = 0; t < n; ++t) ::unlink(part_name(path, t).c_str());
}

// way_files' files DIR/out.0 .. out.(n-1): created new (O_EXCL: a file left there, a killed
// run's or anyone's, stops the run and is never replaced), or none (exits, removing its own).
std::vector<io::File> create_files(const std::string& path, unsigned n) {
  std::vector<io::File> files;
  for (unsigned t = 0; t < n; ++t) {
    try {
      files.push_back(io::File::create_new(part_name(path, t)));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      remove_files(path, t);
      ::unlink(path.c_str());  // DIR/out, which main created for this way
      std::exit(1);
    }
  }
  return files;
}

void way_files(const std::vector<io::File>& files, uint64_t bytes) {
  on_parts(unsigned(files.size()), bytes, [&](unsigned t, uint64_t b, uint64_t e) {
    for (uint64_t at = b; at < e; at += kSlot) files[t].write_at(source().data(), size_t(std::min(kSlot, e - at)), at - b);
  });
}

void way_procs(const std::string& self, const std::string& path, uint64_t bytes, unsigned procs, unsigned cores) {
  const uint64_t share = (bytes / procs + 4095) / 4096 * 4096;
  std::vector<pid_t> kids;
  for (unsigned i = 0; i < procs; ++i) {
    const uint64_t b = std::min(bytes, i * share), n = std::min(bytes, b + share) - b;
    std::vector<std::string> args = {self, "--child", path, std::to_string(b), std::to_string(n), std::to_string(std::max(1u, cores / procs))};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) { std::perror("spawn"); std::exit(1); }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    ::waitpid(k, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) { std::fprintf(stderr, "a child failed\n"); std::exit(1); }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::string(argv[1]) == "--child") {
    const io::File out = io::File::open_rw(argv[2]);
    way_map(out, std::stoull(argv[3]), std::stoull(argv[4]), unsigned(std::stoul(argv[5])));
    return 0;
  }
  if (argc < 2) { std::fprintf(stderr, "usage: page_cache_write DIR [GiB=16] [way T]...\n"); return 2; }
  const std::string path = std::string(argv[1]) + "/out", self = "/proc/self/exe";
  const uint64_t bytes = uint64_t(argc > 2 ? std::stod(argv[2]) * double(1ull << 30) : double(16ull << 30)) / 4096 * 4096;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::pair<std::string, unsigned>> ways;
  for (int i = 3; i + 1 < argc; i += 2) ways.emplace_back(argv[i], unsigned(std::stoul(argv[i + 1])));
  if (ways.empty()) {
    for (unsigned t : {4u, 16u, cores}) ways.emplace_back("map", t);
    ways.insert(ways.end(), {{"nopop", cores}, {"popw", cores}, {"pwrite", 4}, {"procs", 2}, {"procs", 4}, {"map", cores}});
  }
  auto vm = [](const char* name) {
    std::string v = "?";
    std::ifstream(std::string("/proc/sys/vm/") + name) >> v;
    return v;
  };
  std::printf("page_cache_write: %.1f GiB, %u cores, memory %ld MiB, dirty_background_ratio %s, dirty_ratio %s",
              bytes / double(1ull << 30), cores, meminfo_mib("MemTotal"), vm("dirty_background_ratio").c_str(),
              vm("dirty_ratio").c_str());
  std::printf("\n| way | s | GB/s | dirty after MiB |\n|---|---|---|---|\n");
  source();
  for (auto& [way, n] : ways)
    if ((way.rfind("win", 0) == 0 || way.rfind("range", 0) == 0) && (n == 0 || n > 1024)) {
      std::fprintf(stderr, "windows of 1..1024 MiB\n");
      return 2;
    } else if (n == 0 || n > 4096) {
      std::fprintf(stderr, "%s: 1..4096 threads, files or processes\n", way.c_str());
      return 2;
    }
  for (auto& [way, n] : ways) {
    ::unlink(path.c_str());
    ::sync();
    { io::File::create_new(path); }
    io::File out = io::File::open_rw(path);
    const std::vector<io::File> files = way == "files" ? create_files(path, n) : std::vector<io::File>();
    const double t0 = now();
    if (way == "map") way_map(out, 0, bytes, n);
    else if (way == "nopop") way_mapped_parts(out, bytes, n, false);
    else if (way == "popw") way_mapped_parts(out, bytes, n, true);
    else if (way == "pwrite") way_pwrite(out, bytes, n);
    else if (way == "files") way_files(files, bytes);
    else if (way == "sparse") way_mapped_parts(out, bytes, n, false, false);
    else if (way == "win") way_windows(out, bytes, uint64_t(n) << 20, cores, true);
    else if (way == "winnp") way_windows(out, bytes, uint64_t(n) << 20, cores, false);
    else if (way == "range") way_range(out, bytes, uint64_t(n) << 20, cores, false);
    else if (way == "rangep") way_range(out, bytes, uint64_t(n) << 20, cores, true);
    else if (way == "procs") way_procs(self, path, bytes, n, cores);
    else if (way == "parts") way_parts(out, bytes, n);
    else { std::fprintf(stderr, "unknown way %s\n", way.c_str()); return 2; }
    const double s = now() - t0;
    std::printf("| %s %u | %.3f | %.2f | %ld |\n", way.c_str(), n, s, bytes / s / 1e9, meminfo_mib("Dirty"));
    if (way == "files") remove_files(path, n);
    std::fflush(stdout);
  }
  ::unlink(path.c_str());
  return 0;
}
