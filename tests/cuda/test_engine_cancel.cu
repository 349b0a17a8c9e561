// A GPU file sort cancelled through its CancelToken gives back every pinned byte it took
// (run formation's chunk buffers, the runs held in memory for the merge, the merge's
// windows) and writes no output; the same sort uncancelled then gives the oracle's bytes
// and leaves no file. (A cancelled file sort keeps its job's pieces for --resume.)
#include <doctest/doctest.h>
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "gpu_test_util.hpp"
#include "gxsort/gxsort.hpp"
#include "pinned_pool.cuh"

using namespace gxsort;

namespace {

size_t entries(const std::string& dir) {
  size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) n += std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
    ::closedir(d);
  }
  return n;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// 24 MiB of u64 in an 8 MiB budget on the GPU: runs, some held in memory, device windows.
EngineOptions options(const std::string& tmp) {
  EngineOptions o;
  o.format = Format::typed(KeyType::u64);
  o.device = Device::cuda;
  o.memory = parse_size_option("8M", "--memory");
  o.ooc = OocMethod::merge;  // runs and a merge (on the CPU: 12 runs, the last 2 held)
  o.device_memory = parse_size_option("64M", "--device-memory");
  o.threads = 2;
  o.tmp_dirs = {tmp};
  return o;
}

}  // namespace

TEST_CASE("a cancelled GPU sort gives back its pinned memory and writes no output") {
  GPU_TEST_REQUIRE_DEVICE();
  gxsort_test::TempDir d;
  const std::string in = d.file("in.bin"), out = d.file("out.bin"), tmp = d.file("tmp");
  REQUIRE(::mkdir(tmp.c_str(), 0700) == 0);
  std::vector<uint64_t> keys(size_t(3) << 20);
  std::mt19937_64 rng(40);
  for (auto& k : keys) k = rng();
  gxsort_test::Bytes bytes(keys.size() * 8);
  std::memcpy(bytes.data(), keys.data(), bytes.size());
  gxsort_test::write_file(in, bytes);
  const PlanReport plan = plan_sort(in, out, options(tmp));
  REQUIRE(plan.sort.held_runs >= 1);  // the case the cancellation must free too
  REQUIRE(plan.window_memory > 0);    // a device merge

  const size_t before = gxsort::cuda::pinned_bytes_in_use();
  for (const char* phase : {"sort runs", "merge"}) {
    CAPTURE(phase);
    CancelToken token;
    int reports = 0;
    EngineOptions o = options(tmp);
    o.cancel = &token;
    o.progress = [&](const Progress& p) {
      if (std::strcmp(p.phase, phase) != 0) return;
      ++reports;
      token.cancel();
    };
    CHECK_THROWS_AS(sort_file(in, out, o), Cancelled);
    CHECK(reports >= 1);
    CHECK(gxsort::cuda::pinned_bytes_in_use() == before);
    CHECK_FALSE(exists(out));
  }

  sort_file(in, out, options(tmp));
  CHECK(gxsort::cuda::pinned_bytes_in_use() == before);
  std::sort(keys.begin(), keys.end());
  std::memcpy(bytes.data(), keys.data(), bytes.size());
  CHECK(gxsort_test::read_file(out) == bytes);
  CHECK(entries(tmp) == 0);
  CHECK(entries(d.path) == 3);  // in.bin, tmp and out.bin: no job state left beside the output
}
