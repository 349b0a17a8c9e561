// The process's limits: a cgroup memory limit (v1 and v2, found up the cgroup path)
// lowers the default budget; threads follow the affinity mask.
#include <doctest/doctest.h>

#include <sched.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "../common/test_files.hpp"
#include "platform/sizes.hpp"

using namespace gxsort;
using gxsort_test::TempDir;

namespace {
void put(const std::string& path, const std::string& text) {
  std::string dir = path.substr(0, path.find_last_of('/'));
  std::system(("mkdir -p '" + dir + "'").c_str());
  std::ofstream(path) << text;
}
}  // namespace

TEST_CASE("memory_limit: cgroup v2 memory.max, the smallest up the path") {
  TempDir d;
  put(d.file("cgroup"), "0::/jobs/job7\n");
  put(d.file("root/jobs/job7/memory.max"), "max\n");
  put(d.file("root/jobs/memory.max"), "1073741824\n");
  const MemoryLimit m = memory_limit(d.file("cgroup"), d.file("root"));
  CHECK(m.bytes == 1073741824ULL);
  CHECK(m.source.find("jobs/memory.max") != std::string::npos);
}

TEST_CASE("memory_limit: cgroup v1 memory.limit_in_bytes; no limit means RAM") {
  TempDir d;
  put(d.file("cgroup"), "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n");
  put(d.file("root/memory/docker/abc/memory.limit_in_bytes"), "536870912\n");
  put(d.file("root/memory/memory.limit_in_bytes"), "9223372036854771712\n");  // v1's "no limit"
  CHECK(memory_limit(d.file("cgroup"), d.file("root")).bytes == 536870912ULL);
  put(d.file("none"), "4:memory:/\n");
  const MemoryLimit m = memory_limit(d.file("none"), d.file("root"));
  CHECK(m.bytes == physical_memory_bytes());
  CHECK(m.source == "physical RAM");
  // A limit above the RAM changes nothing.
  put(d.file("big"), "0::/\n");
  put(d.file("root2/memory.max"), std::to_string(physical_memory_bytes() * 2) + "\n");
  CHECK(memory_limit(d.file("big"), d.file("root2")).bytes == physical_memory_bytes());
}

TEST_CASE("dirty_background_bytes: vm.dirty_background_bytes, else its ratio of the available memory") {
  TempDir d;
  const uint64_t avail = uint64_t(100) << 30;
  put(d.file("vm/dirty_background_bytes"), "0\n");
  put(d.file("vm/dirty_background_ratio"), "10\n");
  CHECK(dirty_background_bytes(avail, d.file("vm")) == avail / 100 * 10);
  put(d.file("vm/dirty_background_ratio"), "5\n");
  CHECK(dirty_background_bytes(avail, d.file("vm")) == avail / 100 * 5);
  put(d.file("vm/dirty_background_bytes"), "268435456\n");  // bytes, when set, win
  CHECK(dirty_background_bytes(avail, d.file("vm")) == 268435456ULL);
  CHECK(dirty_background_bytes(avail, d.file("none")) == avail / 100 * 10);  // unreadable: the kernel's default
}

TEST_CASE("default_threads: the CPUs of the affinity mask") {
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(default_threads() == unsigned(CPU_COUNT(&set)));
}
