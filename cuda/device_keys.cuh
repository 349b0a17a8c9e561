// The device's view of a record's key, the twin of gxsort::key_prefix and
// gxsort::compare_keys (format.hpp): the same order words from record bytes. One KeySpec
// serves the sort's key words (a typed key, or one 8-byte segment of a byte key or of a
// composite key's normalized key, per radix pass), the merge's 64-bit prefixes and
// check's comparisons. Composite keys are read through gxsort::key_segment, the very
// function the host uses.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gxsort/format.hpp"

namespace gxsort::cuda {

struct KeySpec {
  KeyType type;
  bool reverse;
  bool aligned;  // a typed key lies on its natural alignment in every record: one load
  uint32_t record_size, key_offset, key_bytes;
  KeyFields fields;      // a composite key's fields (count 0: the single key above)
  uint32_t segment = 0;  // composite keys: the 8-byte segment of the normalized key key_word reads

  // The whole key of f, loaded byte by byte (records may start anywhere).
  static KeySpec of(const Format& f) {
    return KeySpec{f.key_type, f.reverse, false, uint32_t(f.record_size), uint32_t(f.key_offset), uint32_t(f.key_bytes),
                   f.fields, 0};
  }
  // Bytes [start, start + len) of f's key (a typed key: all of it), loaded in one word
  // where every record keeps a typed key aligned (device buffers are 256-byte aligned).
  // A composite key's bytes are those of its normalized key (start: a multiple of 8).
  static KeySpec segment_of(const Format& f, size_t start, size_t len) {
    KeySpec s = of(f);
    s.key_bytes = uint32_t(len);
    if (f.composite()) {
      s.segment = uint32_t(start / 8);
      return s;
    }
    s.key_offset = uint32_t(f.key_offset + start);
    const size_t w = len > 4 ? 8 : 4;
    s.aligned = f.key_type != KeyType::bytes && f.record_size % w == 0 && f.key_offset % w == 0;
    return s;
  }
};

template <class T>
__device__ __forceinline__ T load_le(const unsigned char* p, bool aligned) {
  if (aligned) return *reinterpret_cast<const T*>(p);
  T v = 0;
  for (int i = int(sizeof(T)) - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The order word of a record's key: K = uint32_t for 4-byte typed keys and byte segments
// of at most 4 bytes, uint64_t otherwise. Byte segments follow key_prefix in format.hpp
// exactly: big-endian, zero padded on the right, and for --reverse only the segment's own
// bytes are complemented (the padding stays zero).
template <class K>
__device__ __forceinline__ K key_word(const unsigned char* rec, const KeySpec& s) {
  if (s.fields.count) {  // a segment of the normalized key; one of at most 4 bytes sits in its top half
    const uint64_t v = key_segment(s.fields, s.reverse, rec, s.segment);
    if constexpr (sizeof(K) == 4) return K(v >> 32);
    else return v;
  }
  const unsigned char* p = rec + s.key_offset;
  if (s.type != KeyType::bytes) {
    if constexpr (sizeof(K) == 4) return order32(s.type, load_le<uint32_t>(p, s.aligned), s.reverse);
    else return order64(s.type, load_le<uint64_t>(p, s.aligned), s.reverse);
  }
  uint64_t v = load_be_prefix(p, s.key_bytes);
  if (s.reverse) v = ~v & (s.key_bytes >= 8 ? ~uint64_t(0) : ~uint64_t(0) << (64 - 8 * s.key_bytes));
  if constexpr (sizeof(K) == 4) return K(v >> 32);
  else return v;
}

// key_prefix: the 64-bit order word of the whole key (of its first 8 bytes for byte keys).
__device__ __forceinline__ uint64_t device_key_prefix(const unsigned char* rec, const KeySpec& s) {
  if (s.fields.count) return key_segment(s.fields, s.reverse, rec, 0);
  if (s.type != KeyType::bytes && s.key_bytes == 4) return key_word<uint32_t>(rec, s);
  return key_word<uint64_t>(rec, s);
}

// <0, 0, >0 like compare_keys: the prefix, then the bytes past it for wide byte keys.
__device__ __forceinline__ int device_compare_keys(const unsigned char* a, const unsigned char* b, const KeySpec& s) {
  const uint64_t ka = device_key_prefix(a, s), kb = device_key_prefix(b, s);
  if (ka != kb) return ka < kb ? -1 : 1;
  if (s.fields.count) {  // the normalized key's later segments
    for (uint32_t g = 1; g < (s.fields.width + 7) / 8; ++g) {
      const uint64_t x = key_segment(s.fields, s.reverse, a, g), y = key_segment(s.fields, s.reverse, b, g);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
  for (uint32_t i = 8; i < s.key_bytes; ++i) {
    const int x = a[s.key_offset + i], y = b[s.key_offset + i];
    if (x != y) return (x < y) != s.reverse ? -1 : 1;
  }
  return 0;
}

}  // namespace gxsort::cuda
