// Device twins of gxsort::key_prefix and gxsort::compare_keys (format.hpp): the same
// order words from unaligned record bytes.
#pragma once
#include <cstdint>

#include "gxsort/format.hpp"

namespace gxsort::cuda {

struct KeySpec {
  KeyType type;
  uint32_t record_size, key_offset, key_bytes;
  bool reverse;
  static KeySpec of(const Format& f) {
    return KeySpec{f.key_type, uint32_t(f.record_size), uint32_t(f.key_offset), uint32_t(f.key_bytes), f.reverse};
  }
};

__device__ __forceinline__ uint64_t device_key_prefix(const unsigned char* rec, const KeySpec& s) {
  const unsigned char* k = rec + s.key_offset;
  switch (s.type) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32: {
      uint32_t raw = uint32_t(k[0]) | uint32_t(k[1]) << 8 | uint32_t(k[2]) << 16 | uint32_t(k[3]) << 24;
      return order32(s.type, raw, s.reverse);
    }
    case KeyType::u64: case KeyType::i64: case KeyType::f64: {
      uint64_t raw = 0;
      for (int b = 7; b >= 0; --b) raw = raw << 8 | k[b];
      return order64(s.type, raw, s.reverse);
    }
    default: {
      uint64_t v = load_be_prefix(k, s.key_bytes);
      if (s.reverse) v = s.key_bytes >= 8 ? ~v : (~v & (~uint64_t(0) << (64 - 8 * s.key_bytes)));
      return v;
    }
  }
}

// <0, 0, >0 like compare_keys: the prefix, then the bytes past it for wide byte keys.
__device__ __forceinline__ int device_compare_keys(const unsigned char* a, const unsigned char* b, const KeySpec& s) {
  const uint64_t ka = device_key_prefix(a, s), kb = device_key_prefix(b, s);
  if (ka != kb) return ka < kb ? -1 : 1;
  for (uint32_t i = 8; i < s.key_bytes; ++i) {
    const int x = a[s.key_offset + i], y = b[s.key_offset + i];
    if (x != y) return (x < y) != s.reverse ? -1 : 1;
  }
  return 0;
}

}  // namespace gxsort::cuda
