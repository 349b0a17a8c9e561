// The key bitmap of dedupe: one bit per possible 32-bit key (2^32 bits = 512 MiB). Keys
// are set as they stream in (any order, any number), and the set bits read in index
// order are the sorted distinct keys: no sort, no temp files. Bit index = order32(key),
// so i32, f32 (totalOrder bits) and --reverse come out in the file's sort order. The
// CPU's bitmap is here; the CUDA backend has its own (cuda/bitmap_dedupe.*).
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

}  // namespace gxsort
