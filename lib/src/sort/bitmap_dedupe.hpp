// Dedupe pieces shared by the CPU and CUDA backends and dedupe_file.cpp:
//  - the key bitmap: one bit per possible 32-bit key (2^32 bits = 512 MiB). Keys are set
//    as they stream in (any order, any number), and the set bits read in index order are
//    the sorted distinct keys: no sort, no temp files. Bit index = order32(key), so i32,
//    f32 (totalOrder bits) and --reverse come out in the file's sort order.
//  - the streamed group pass (adjacent unique of a sorted stream, keep first or last,
//    optional counts), used by --assume-sorted and by the sort strategy's --count/--keep last.
//  - the pure strategy rule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/progress.hpp"

namespace gxsort {

namespace io { class File; }
class Backend;

constexpr uint64_t kBitmapKeys = uint64_t(1) << 32;
constexpr uint64_t kBitmapBytes = kBitmapKeys / 8;  // 512 MiB

// Flat files of 4-byte typed keys (u32, i32, f32): the formats the bitmap serves.
inline bool bitmap_format_ok(const Format& f) { return f.flat() && f.key_bytes == 4 && f.key_type != KeyType::bytes; }

class KeyBitmap {
 public:
  virtual ~KeyBitmap() = default;
  // Sets the bits of n raw keys (n * 4 bytes; host memory from the backend's allocate_host).
  virtual void add(const unsigned char* keys, size_t n) = 0;
  // Calls sink(bytes, size) with the distinct raw keys in sort order, in pieces (each
  // valid only during the call); returns the number of distinct keys.
  virtual uint64_t extract(const std::function<void(const unsigned char*, size_t)>& sink) = 0;
};

// The host bitmap: a std::vector<uint64_t> of 2^26 words, set with atomic fetch_or by
// `threads` threads (0: all cores), read back word by word.
std::unique_ptr<KeyBitmap> make_cpu_key_bitmap(const Format& f, unsigned threads);

// How dedupe runs: the sort engine, the bitmap, or the group pass over a sorted input.
enum class DedupePath { sort, bitmap, stream };
inline const char* dedupe_path_name(DedupePath p) {
  return p == DedupePath::sort ? "sort" : p == DedupePath::bitmap ? "bitmap" : "stream";
}

// sort | bitmap | stream (--assume-sorted). `requested` is --strategy.
// Throws Error(usage) for combinations the bitmap cannot serve.
//   auto = bitmap when the format is a flat 4-byte key, no --count, not --assume-sorted,
//          and the input has more than 2^26 keys or the sort would not run in memory
//          (`sort_in_memory` false); the caller falls back to sort when the bitmap does
//          not fit its device or host budget.
DedupePath choose_dedupe_strategy(DedupeStrategy requested, const Format& f, bool count, bool assume_sorted,
                                  uint64_t records, bool sort_in_memory);
constexpr uint64_t kBitmapAutoMinKeys = uint64_t(1) << 26;

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
