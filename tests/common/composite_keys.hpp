// Composite keys for the tests: formats of several fields, random records whose fields
// tie often (and hold NaNs, signed zeros, infinities and extremes), and an oracle that
// decodes every field from its bytes with no code of gxsort's key transforms (integers
// as integers, floats as sign-magnitude for IEEE totalOrder or, in numpy's order, NaN
// above all and -0 as 0, bytes by memcmp), then std::stable_sort. Shared by the unit suite and the GPU suite.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "gxsort/format.hpp"
#include "oracle_sort.hpp"

namespace gxsort_test {

using gxsort::Format;
using gxsort::KeyField;
using gxsort::KeyType;

inline KeyField field(uint32_t offset, KeyType t, bool desc = false, bool big_endian = false, uint32_t bytes = 0) {
  KeyField k = Format::single_field(t, offset, big_endian);
  if (t == KeyType::bytes) k.bytes = bytes;
  k.desc = desc;
  return k;
}
inline KeyField bytes_field(uint32_t offset, uint32_t n, bool desc = false) {
  return field(offset, KeyType::bytes, desc, false, n);
}

// Formats whose keys pack into 64 bits, into 128 bits and into more, single fields of
// the new types, and --reverse.
inline std::vector<Format> composite_formats() {
  std::vector<Format> fs;
  auto add = [&](size_t rs, std::vector<KeyField> keys, bool reverse = false) {
    fs.push_back(Format::of_keys(rs, keys, reverse));
  };
  add(8, {field(0, KeyType::u8), field(1, KeyType::u16, true, true), field(3, KeyType::f32)});  // 7 bytes
  add(9, {field(4, KeyType::i32, true), field(0, KeyType::i8)});                                 // 5 bytes, unaligned
  add(16, {field(0, KeyType::u64), field(8, KeyType::u32)});                                     // 12 bytes
  add(24, {field(8, KeyType::f64, true), field(0, KeyType::i16), bytes_field(2, 3)});            // 13 bytes
  add(32, {field(0, KeyType::u32), bytes_field(4, 13), field(20, KeyType::f32, true, true), field(24, KeyType::i64)});
  add(24, {field(0, KeyType::u64), field(8, KeyType::i64, true), field(16, KeyType::f64, false, true)});  // 24 bytes
  add(2, {field(0, KeyType::i16)});                   // a flat file of i16 (plain .npy <i2)
  add(1, {field(0, KeyType::i8)});                    // signed bytes (plain .npy |i1)
  add(12, {field(4, KeyType::f64, false, true)});     // one big-endian field
  add(10, {field(2, KeyType::u16, true), bytes_field(5, 2, true)});       // a descending byte field
  add(16, {field(12, KeyType::f32), field(0, KeyType::u64, true)}, true);  // 12 bytes, --reverse over a desc field
  add(12, {bytes_field(0, 9), field(9, KeyType::i8, true)}, true);         // bytes across a segment, reversed
  return fs;
}

// The formats of composite_formats() with float fields, those in numpy's order, and
// single float keys (flat, in records, descending) that numpy's order makes composite.
// Not for set_normalized_key: numpy's order words are not a bijection.
inline std::vector<Format> numpy_float_formats() {
  std::vector<Format> fs;
  for (const Format& f : composite_formats()) {
    const Format g = with_float_order(f, gxsort::FloatOrder::numpy);
    if (g.key_text() != f.key_text()) fs.push_back(g);
  }
  for (const Format& f : {Format::typed(KeyType::f32), Format::typed(KeyType::f64),
                          Format::of_keys(16, {field(8, KeyType::f64, true)}, false),
                          Format::of_keys(12, {field(4, KeyType::f32)}, true)})
    fs.push_back(with_float_order(f, gxsort::FloatOrder::numpy));
  return fs;
}

// The field's bytes as an unsigned number (its byte order).
inline uint64_t field_raw(const KeyField& k, const unsigned char* rec) {
  uint64_t v = 0;
  for (uint32_t j = 0; j < k.bytes; ++j) v |= uint64_t(rec[k.offset + (k.big_endian ? k.bytes - 1 - j : j)]) << (8 * j);
  return v;
}

// A typed field's value as an integer in its ascending order.
inline __int128 field_value(const KeyField& k, const unsigned char* rec) {
  const uint64_t raw = field_raw(k, rec);
  const unsigned bits = 8 * k.bytes;
  const uint64_t sign = uint64_t(1) << (bits - 1);
  switch (k.type) {
    case KeyType::i8: case KeyType::i16: case KeyType::i32: case KeyType::i64:
      return (raw & sign) ? __int128(raw) - (__int128(1) << bits) : __int128(raw);
    case KeyType::f32: case KeyType::f64: {
      const __int128 mag = raw & (sign - 1);
      const uint64_t inf = k.type == KeyType::f32 ? 0x7f800000u : 0x7ff0000000000000ull;
      if (k.numpy_float && mag > __int128(inf)) return __int128(1) << 80;  // every NaN: one value above all
      if (k.numpy_float && mag == 0) return 0;                              // -0 == +0
      return (raw & sign) ? -mag - 1 : mag;
    }
    default: return __int128(raw);
  }
}

inline int field_compare(const KeyField& k, const unsigned char* a, const unsigned char* b) {
  int c;
  if (k.type == KeyType::bytes) {
    c = std::memcmp(a + k.offset, b + k.offset, k.bytes);
  } else {
    const __int128 x = field_value(k, a), y = field_value(k, b);
    c = x < y ? -1 : x > y ? 1 : 0;
  }
  c = c < 0 ? -1 : c > 0 ? 1 : 0;
  return k.desc ? -c : c;
}

// The order of f's key by its fields, in order; --reverse flips the whole key.
inline int oracle_compare(const Format& f, const unsigned char* a, const unsigned char* b) {
  for (const KeyField& k : f.key_fields()) {
    const int c = field_compare(k, a, b);
    if (c) return f.reverse ? -c : c;
  }
  return 0;
}

// std::stable_sort of the records by oracle_compare (on several threads); with `unique`,
// the first record of each group of equal keys.
inline std::vector<unsigned char> oracle_sorted(const Format& f, const unsigned char* in, size_t n, bool unique = false) {
  const size_t rs = f.record_size;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t(0));
  oracle_stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return oracle_compare(f, in + a * rs, in + b * rs) < 0; });
  std::vector<unsigned char> out;
  out.reserve(n * rs);
  for (size_t i = 0; i < n; ++i) {
    if (unique && i > 0 && oracle_compare(f, in + idx[i - 1] * rs, in + idx[i] * rs) == 0) continue;
    out.insert(out.end(), in + idx[i] * rs, in + (idx[i] + 1) * rs);
  }
  return out;
}

// Float bit patterns that sort in interesting places: signed zeros, infinities, NaNs of
// both signs with payloads, subnormals, one and minus one.
inline uint64_t special_float(KeyType t, uint64_t pick) {
  static const uint32_t f32s[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                  0x7f800001u, 0xffc00123u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
  static const uint64_t f64s[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                  0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                  0x7ff0000000000001ull, 0xfff8000000000123ull, 0x0000000000000001ull,
                                  0x8000000000000001ull, 0x3ff0000000000000ull, 0xbff0000000000000ull};
  return t == KeyType::f32 ? f32s[pick % 12] : f64s[pick % 12];
}

// n random records of f. Each key field draws from its own pool of `distinct` values
// (0: any value; floats then take special values a quarter of the time), so leading
// fields tie and later ones decide.
inline std::vector<unsigned char> composite_input(const Format& f, size_t n, uint64_t distinct, std::mt19937_64& rng) {
  const size_t rs = f.record_size;
  const std::vector<KeyField> keys = f.key_fields();
  auto value = [&](const KeyField& k, std::vector<unsigned char>& out) {
    out.resize(k.bytes);
    for (auto& c : out) c = uint8_t(rng());
    const bool is_float = k.type == KeyType::f32 || k.type == KeyType::f64;
    if (is_float && rng() % 4 == 0) {
      const uint64_t bits = special_float(k.type, rng());
      for (uint32_t j = 0; j < k.bytes; ++j) out[k.big_endian ? k.bytes - 1 - j : j] = uint8_t(bits >> (8 * j));
    }
  };
  std::vector<std::vector<std::vector<unsigned char>>> pools(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    for (uint64_t d = 0; d < distinct; ++d) {
      pools[i].emplace_back();
      value(keys[i], pools[i].back());
    }
  std::vector<unsigned char> v(n * rs), tmp;
  for (size_t r = 0; r < n; ++r) {
    unsigned char* rec = &v[r * rs];
    for (size_t b = 0; b < rs; ++b) rec[b] = uint8_t(rng());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (distinct) tmp = pools[i][rng() % distinct];
      else value(keys[i], tmp);
      std::memcpy(rec + keys[i].offset, tmp.data(), keys[i].bytes);
    }
  }
  return v;
}

}  // namespace gxsort_test
