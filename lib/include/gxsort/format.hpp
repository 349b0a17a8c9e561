// Record formats and the order-preserving key transform.
//
// Every sort and merge in gxsort works on unsigned integers: a typed key is turned
// once into an unsigned word whose unsigned order is the key's order (sign flip for
// signed integers, the IEEE-754 totalOrder bit transform for floats, complement for
// --reverse). Byte keys are compared as big-endian words: the first 8 bytes form a
// 64-bit prefix and longer keys finish ties on the remaining bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__CUDACC__)
#define GXSORT_HD __host__ __device__ __forceinline__
#else
#define GXSORT_HD inline
#endif

namespace gxsort {

enum class KeyType : uint8_t { u32, u64, i32, i64, f32, f64, bytes };

const char* key_type_name(KeyType t);
KeyType parse_key_type(const std::string& s);  // throws usage Error
inline size_t key_type_width(KeyType t) {
  switch (t) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32: return 4;
    case KeyType::u64: case KeyType::i64: case KeyType::f64: return 8;
    default: return 0;
  }
}

struct Format {
  size_t record_size = 8;
  size_t key_offset = 0;
  KeyType key_type = KeyType::u64;
  size_t key_bytes = 8;  // width of the key in bytes (typed: 4 or 8)
  bool reverse = false;

  // The file is a flat array of typed keys: sort the keys themselves.
  bool flat() const { return key_type != KeyType::bytes && record_size == key_bytes; }
  // The key fits in one 64-bit word: no tie finishing past the prefix.
  bool key_fits_prefix() const { return key_bytes <= 8; }
  std::string describe() const;

  static Format typed(KeyType t) { Format f; f.key_type = t; f.key_bytes = key_type_width(t); f.record_size = f.key_bytes; return f; }
  static Format gensort() { Format f; f.record_size = 100; f.key_offset = 0; f.key_type = KeyType::bytes; f.key_bytes = 10; return f; }
  void validate() const;  // throws usage Error when the key does not lie inside the record
};

// ---- the key transform (host and device) ----

GXSORT_HD uint32_t f32_order(uint32_t b) { return (b & 0x80000000u) ? ~b : (b | 0x80000000u); }
GXSORT_HD uint32_t f32_unorder(uint32_t u) { return (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u; }
GXSORT_HD uint64_t f64_order(uint64_t b) { return (b >> 63) ? ~b : (b | (uint64_t(1) << 63)); }
GXSORT_HD uint64_t f64_unorder(uint64_t u) { return (u >> 63) ? (u & ~(uint64_t(1) << 63)) : ~u; }

// Transform a 32-bit key word (raw little-endian bits) to its order word.
GXSORT_HD uint32_t order32(KeyType t, uint32_t raw, bool reverse) {
  uint32_t u = raw;
  if (t == KeyType::i32) u = raw ^ 0x80000000u;
  else if (t == KeyType::f32) u = f32_order(raw);
  return reverse ? ~u : u;
}
GXSORT_HD uint32_t unorder32(KeyType t, uint32_t u, bool reverse) {
  if (reverse) u = ~u;
  if (t == KeyType::i32) return u ^ 0x80000000u;
  if (t == KeyType::f32) return f32_unorder(u);
  return u;
}
GXSORT_HD uint64_t order64(KeyType t, uint64_t raw, bool reverse) {
  uint64_t u = raw;
  if (t == KeyType::i64) u = raw ^ (uint64_t(1) << 63);
  else if (t == KeyType::f64) u = f64_order(raw);
  return reverse ? ~u : u;
}
GXSORT_HD uint64_t unorder64(KeyType t, uint64_t u, bool reverse) {
  if (reverse) u = ~u;
  if (t == KeyType::i64) return u ^ (uint64_t(1) << 63);
  if (t == KeyType::f64) return f64_unorder(u);
  return u;
}

// Big-endian load of up to 8 bytes, zero padded on the right.
GXSORT_HD uint64_t load_be_prefix(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | (i < n ? p[i] : 0u);
  return v;
}

// The 64-bit order prefix of a record's key. For keys of at most 8 bytes the
// prefix is the whole key; equal prefixes of wider keys tie-break on the rest.
inline uint64_t key_prefix(const Format& f, const unsigned char* rec) {
  const unsigned char* k = rec + f.key_offset;
  switch (f.key_type) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32: {
      uint32_t raw; std::memcpy(&raw, k, 4);
      return order32(f.key_type, raw, f.reverse);
    }
    case KeyType::u64: case KeyType::i64: case KeyType::f64: {
      uint64_t raw; std::memcpy(&raw, k, 8);
      return order64(f.key_type, raw, f.reverse);
    }
    default: {
      uint64_t v = load_be_prefix(k, f.key_bytes);
      if (f.reverse) v = f.key_bytes >= 8 ? ~v : (~v & (~uint64_t(0) << (64 - 8 * f.key_bytes)));
      return v;
    }
  }
}

// Three-way comparison of the key bytes past the 8-byte prefix (wide byte keys only).
inline int compare_key_tail(const Format& f, const unsigned char* a, const unsigned char* b) {
  if (f.key_bytes <= 8) return 0;
  int c = std::memcmp(a + f.key_offset + 8, b + f.key_offset + 8, f.key_bytes - 8);
  return f.reverse ? -c : c;
}

// Full key comparison of two records: <0, 0, >0.
inline int compare_keys(const Format& f, const unsigned char* a, const unsigned char* b) {
  uint64_t ka = key_prefix(f, a), kb = key_prefix(f, b);
  if (ka != kb) return ka < kb ? -1 : 1;
  return compare_key_tail(f, a, b);
}

}  // namespace gxsort
