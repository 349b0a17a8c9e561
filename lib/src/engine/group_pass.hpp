// The dedupe engine's pieces beside the key bitmap (kernels/key_bitmap.hpp): the
// streamed group pass (adjacent unique of a sorted stream, keep first or last, optional
// counts), used by --assume-sorted and by the sort strategy's --count/--keep last. The
// strategy rule is the planner's (plan/dedupe_strategy.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/progress.hpp"
#include "kernels/key_bitmap.hpp"
#include "plan/dedupe_strategy.hpp"

namespace gxsort {

namespace io { class File; }
class Backend;


struct GroupPass {
  const Format* format = nullptr;
  bool count = false;       // append each group's size as a little-endian u64
  bool keep_last = false;   // keep the group's last record (input order) instead of its first
  bool verify = false;      // the input comes from the user: throw Error(check_failed) at the first unsorted record
  std::string name;         // for the message
  unsigned threads = 1;
  size_t chunk_bytes = size_t(32) << 20;
  ProgressFn progress;
};

// Streams records [0, records) of `in` through the chunk scheduler (read, group, write)
// into `out` from byte 0; groups of equal keys may straddle chunks. Returns the output
// records (groups).
uint64_t group_pass(const GroupPass& g, Backend& backend, const io::File& in, uint64_t records, const io::File& out);

// In memory: the same group pass over sorted records (tests and small inputs). Returns
// the output bytes (record_size or record_size + 8 per group).
std::string group_records(const Format& f, const unsigned char* records, size_t n, bool count, bool keep_last);

}  // namespace gxsort
