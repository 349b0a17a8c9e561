// Free-space preflight: before any work, the bytes a plan will write are checked
// against statvfs() of each directory they go to.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/context.hpp"

namespace gxsort::io {

uint64_t free_bytes(const std::string& dir);      // throws naming dir when statvfs fails
uint64_t device_id(const std::string& dir);       // st_dev, to add up needs per filesystem

struct SpaceNeed {
  std::string dir;
  uint64_t bytes;
  std::string what;  // "temporary runs", "output"
};

// Throws Error(io) "not enough free space in DIR for WHAT: need N, free M" for the
// first filesystem whose summed needs exceed its free space. The test hook
// context.test.skip_space_check (GXSORT_SKIP_SPACE_CHECK=1) skips it (tests use it to
// reach a real ENOSPC).
void check_space(const Context& context, const std::vector<SpaceNeed>& needs);

std::string directory_of(const std::string& path);  // "." for a bare file name
void require_writable_dir(const std::string& dir, const std::string& role);

}  // namespace gxsort::io
