// The machine's sizes: memory and threads. (Sizes as users write them:
// gxsort/options.hpp, parse_size_option and format_bytes.)
#pragma once
#include <cstdint>
#include <string>

#include "gxsort/context.hpp"
#include "gxsort/options.hpp"

namespace gxsort {

uint64_t physical_memory_bytes();

// The memory this process may use: physical RAM, or less where a cgroup limits it
// (v2 memory.max, v1 memory.limit_in_bytes, the smallest on the way up from the
// process's cgroup to the root: containers and batch schedulers set them). `source`
// says which it is, for `gxsort info`. With a Context it reads /proc/self/cgroup and
// /sys/fs/cgroup, or, where its test hook cgroup_dir (GXSORT_TEST_CGROUP_DIR) is set,
// DIR/cgroup and DIR/root (the CLI tests' fake limit: a real cgroup needs root and a
// cgroup tree the test may not touch); unit tests pass their own files.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;
};
MemoryLimit memory_limit(const std::string& proc_cgroup, const std::string& cgroup_root);
MemoryLimit memory_limit(const Context& context);

// What the kernel says is available for new data without swapping (MemAvailable:
// free memory and the page cache it could reclaim); half the RAM where not known.
uint64_t available_memory_bytes();

// What the page cache may hold dirty before the kernel's flusher starts writing it back:
// vm.dirty_background_bytes, or vm.dirty_background_ratio of `available` (the kernel
// takes it of the memory it could fill: free memory and the page cache, about
// MemAvailable). The files are read from `vm_dir` (/proc/sys/vm; unit tests pass their own).
uint64_t dirty_background_bytes(uint64_t available, const std::string& vm_dir = "/proc/sys/vm");

}  // namespace gxsort
