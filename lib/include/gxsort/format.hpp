// Record formats and the order-preserving key transform.
//
// Every sort and merge in gxsort works on unsigned integers: a typed key is turned
// once into an unsigned word whose unsigned order is the key's order (sign flip for
// signed integers, the IEEE-754 totalOrder bit transform for floats, complement for
// --reverse). Byte keys are compared as big-endian words: the first 8 bytes form a
// 64-bit prefix and longer keys finish ties on the remaining bytes.
//
// A composite key (several --key OFFSET:TYPE[:desc] fields, or one field of a type the
// single-key paths do not know: u8, u16, i8, i16, the big-endian forms) is defined by its
// normalized key: the concatenation, field by field, of each field's order word written
// big-endian (its width in bytes; bytes:N fields as they are), complemented for a
// descending field. memcmp order of normalized keys is the composite order, and as every
// field's transform is a bijection, equal normalized keys are equal field bytes (but for
// float fields in numpy's order, numpy_float: there every NaN is one word and -0.0 is
// +0.0, so same_key compares their words, and such a key is always composite: no path
// turns its words back into values). It is then read exactly as a byte key of its width is: an 8-byte prefix and 8-byte segments
// (key_segment, here and in cuda/device_keys.cuh), so every sort, merge, check and
// unique handles it as it handles byte keys; single keys keep their own paths.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define GXSORT_HD __host__ __device__ __forceinline__
#else
#define GXSORT_HD inline
#endif

namespace gxsort {

// The first seven are the single-key types (their values are stable: tables index them).
enum class KeyType : uint8_t { u32, u64, i32, i64, f32, f64, bytes, u8, u16, i8, i16 };

const char* key_type_name(KeyType t);
// A type name of --type and --key-type: u8 .. f64, and with `big_endian` set the
// big-endian forms u16be .. f64be too. Throws usage Error.
KeyType parse_key_type(const std::string& s, bool* big_endian = nullptr);
GXSORT_HD size_t key_type_width(KeyType t) {
  switch (t) {
    case KeyType::u8: case KeyType::i8: return 1;
    case KeyType::u16: case KeyType::i16: return 2;
    case KeyType::u32: case KeyType::i32: case KeyType::f32: return 4;
    case KeyType::u64: case KeyType::i64: case KeyType::f64: return 8;
    default: return 0;
  }
}

// One field of a composite key. Plain data: it travels to the device as it is.
struct KeyField {
  uint32_t offset = 0;       // in the record
  uint32_t bytes = 0;        // its width (a typed field: its type's)
  KeyType type = KeyType::bytes;
  bool big_endian = false;   // a typed field stored most significant byte first (u16be ...)
  bool desc = false;         // descending (--reverse flips every field once more)
  bool numpy_float = false;  // f32/f64 in numpy's order (--float-order numpy): NaNs last and equal, -0.0 == +0.0
};
constexpr uint32_t kMaxKeyFields = 16;
struct KeyFields {
  uint32_t count = 0;        // 0: not a composite key
  uint32_t width = 0;        // bytes of the normalized key: the sum of the fields' widths
  KeyField field[kMaxKeyFields];
};

// "OFFSET:TYPE[:desc]" or "OFFSET:bytes:N[:desc]" (":asc" is accepted too), a float field
// in numpy's order with ":numpy" last; false when `text` does not start with a decimal
// offset and a colon (then it names a .npy field). Throws usage Error for a malformed one.
bool parse_key_field(const std::string& text, KeyField& out);
std::string key_field_text(const KeyField& k);  // the same text back

struct Format {
  size_t record_size = 8;
  // The single key (when !composite()).
  size_t key_offset = 0;
  KeyType key_type = KeyType::u64;
  size_t key_bytes = 8;  // width of the key in bytes (typed: 4 or 8); composite: the normalized key's
  bool reverse = false;
  // A composite key: its fields (count 0 otherwise). Then key_type is bytes, key_offset
  // 0 and key_bytes the normalized width, and the key is read only through
  // key_prefix, key_segment, compare_keys and same_key.
  KeyFields fields;
  // No format was given and this one (u64 keys) is assumed: an input whose first bytes
  // say it is another kind of file (compressed, Parquet, zip, text lines ...) is refused
  // where it is opened. Not part of the order; false unless a front end sets it.
  bool sniff_inputs = false;

  bool composite() const { return fields.count > 0; }
  // The file is a flat array of typed keys: sort the keys themselves.
  bool flat() const { return !composite() && key_type != KeyType::bytes && record_size == key_bytes; }
  // The key fits in one 64-bit word: no tie finishing past the prefix.
  bool key_fits_prefix() const { return key_bytes <= 8; }
  // 8-byte segments of the (normalized) key: 1 for typed single keys.
  size_t key_segments() const { return key_type == KeyType::bytes ? (key_bytes + 7) / 8 : 1; }
  std::string describe() const;
  // The key as --key fields ("8:i64", "0:u32,4:f64be:desc"; --reverse not included).
  std::string key_text() const;
  // Every key, single or composite, as its fields (a single key: one field; reverse apart).
  std::vector<KeyField> key_fields() const;

  static Format typed(KeyType t) { return of_keys(key_type_width(t), {single_field(t, 0)}, false); }
  static Format gensort() { Format f; f.record_size = 100; f.key_offset = 0; f.key_type = KeyType::bytes; f.key_bytes = 10; return f; }
  // Records of `record_size` bytes ordered by `keys`, most significant first. One
  // ascending or descending field of a single-key type (u32 .. f64 little-endian, or
  // bytes) is a single key (a descending one sets reverse), so it keeps the single-key
  // paths; anything else is composite. Checks nothing: validate() does.
  static Format of_keys(size_t record_size, const std::vector<KeyField>& keys, bool reverse);
  static KeyField single_field(KeyType t, size_t offset, bool big_endian = false) {
    KeyField k;
    k.offset = uint32_t(offset);
    k.type = t;
    k.bytes = uint32_t(key_type_width(t));
    k.big_endian = big_endian;
    return k;
  }
  void validate() const;  // throws usage Error when the key does not lie inside the record
};

// How float keys are ordered: IEEE totalOrder (-NaN first, -0.0 < +0.0, NaNs by their
// bits; equal keys are equal bits), or numpy's (np.sort, np.unique): every NaN after every
// number and all NaNs equal, -0.0 equal to +0.0.
enum class FloatOrder { total, numpy };
// f with every f32/f64 key field in `order` (rebuilt through of_keys: a key with a field
// in numpy's order is composite). A key already in that order comes back as it was.
Format with_float_order(const Format& f, FloatOrder order);

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

// ---- composite keys: the normalized key (see the top of this file) ----

// The order word of a typed field at p, in its low 8 * k.bytes bits: its bytes read in
// their byte order, the sign bit flipped for integers, totalOrder for floats (ascending);
// in numpy's order every NaN is the all-ones word and -0.0 the word of +0.0.
GXSORT_HD uint64_t field_order_word(const KeyField& k, const unsigned char* p) {
  const uint32_t w = k.bytes;
  uint64_t raw = 0;
  if (k.big_endian) for (uint32_t i = 0; i < w; ++i) raw = (raw << 8) | p[i];
  else for (uint32_t i = w; i-- > 0;) raw = (raw << 8) | p[i];
  switch (k.type) {
    case KeyType::i8: case KeyType::i16: case KeyType::i32: case KeyType::i64: return raw ^ (uint64_t(1) << (8 * w - 1));
    case KeyType::f32:
      if (k.numpy_float && (raw & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
      return f32_order(k.numpy_float && (raw & 0x7fffffffu) == 0 ? 0u : uint32_t(raw));
    case KeyType::f64: {
      const uint64_t mag = raw & ~(uint64_t(1) << 63);
      if (k.numpy_float && mag > 0x7ff0000000000000ull) return ~uint64_t(0);
      return f64_order(k.numpy_float && mag == 0 ? 0 : raw);
    }
    default: return raw;
  }
}

// Segment s of a record's normalized key: its bytes [8s, 8s + 8) as a big-endian word,
// zero padded past the key's end. `reverse` flips every field (--reverse).
GXSORT_HD uint64_t key_segment(const KeyFields& kf, bool reverse, const unsigned char* rec, uint32_t s) {
  const uint32_t lo = 8 * s, hi = lo + 8;
  uint64_t seg = 0;
  uint32_t pos = 0;  // where field i starts in the normalized key
  for (uint32_t i = 0; i < kf.count && pos < hi; pos += kf.field[i].bytes, ++i) {
    const KeyField& k = kf.field[i];
    if (pos + k.bytes <= lo) continue;
    const bool desc = k.desc != reverse;
    const unsigned char* p = rec + k.offset;
    if (k.type != KeyType::bytes) {
      uint64_t v = field_order_word(k, p);
      if (desc) v = ~v;
      const uint64_t left = v << (64 - 8 * k.bytes);  // the field's first byte on top
      seg |= pos >= lo ? left >> (8 * (pos - lo)) : left << (8 * (lo - pos));
    } else {
      const uint32_t b = pos > lo ? pos : lo, e = pos + k.bytes < hi ? pos + k.bytes : hi;
      for (uint32_t j = b; j < e; ++j) {
        const uint64_t c = desc ? uint8_t(~p[j - pos]) : p[j - pos];
        seg |= c << (8 * (7 - (j - lo)));
      }
    }
  }
  return seg;
}

// Segment s of a single byte key (the same word the device's KeySpec::segment reads).
GXSORT_HD uint64_t bytes_segment(const unsigned char* key, size_t key_bytes, bool reverse, size_t s) {
  const size_t len = key_bytes - 8 * s < 8 ? key_bytes - 8 * s : 8;
  uint64_t v = load_be_prefix(key + 8 * s, len);
  if (reverse) v = ~v & (len >= 8 ? ~uint64_t(0) : ~uint64_t(0) << (64 - 8 * len));
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
    default:
      if (f.composite()) return key_segment(f.fields, f.reverse, rec, 0);
      return bytes_segment(k, f.key_bytes, f.reverse, 0);
  }
}

// Segment s < f.key_segments() of a record's key; segment 0 is key_prefix.
inline uint64_t key_segment(const Format& f, const unsigned char* rec, size_t s) {
  if (s == 0) return key_prefix(f, rec);
  if (f.composite()) return key_segment(f.fields, f.reverse, rec, uint32_t(s));
  return bytes_segment(rec + f.key_offset, f.key_bytes, f.reverse, s);
}

// Three-way comparison of the key past its 8-byte prefix (wide keys only).
inline int compare_key_tail(const Format& f, const unsigned char* a, const unsigned char* b) {
  if (f.key_bytes <= 8) return 0;
  if (f.composite()) {
    for (uint32_t s = 1, n = uint32_t(f.key_segments()); s < n; ++s) {
      const uint64_t x = key_segment(f.fields, f.reverse, a, s), y = key_segment(f.fields, f.reverse, b, s);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
  int c = std::memcmp(a + f.key_offset + 8, b + f.key_offset + 8, f.key_bytes - 8);
  return f.reverse ? -c : c;
}

// Full key comparison of two records: <0, 0, >0.
inline int compare_keys(const Format& f, const unsigned char* a, const unsigned char* b) {
  uint64_t ka = key_prefix(f, a), kb = key_prefix(f, b);
  if (ka != kb) return ka < kb ? -1 : 1;
  return compare_key_tail(f, a, b);
}

// The inverse of the normalized key (composite keys): writes the key fields of `rec` so
// that its normalized key, without --reverse, is `norm` (f.key_bytes bytes). For gen.
void set_normalized_key(const Format& f, const unsigned char* norm, unsigned char* rec);

// Equal keys: equal key bytes, field by field (the transforms are bijections), but equal
// order words for a float field in numpy's order (NaNs are equal, and so are +-0.0).
inline bool same_key(const Format& f, const unsigned char* a, const unsigned char* b) {
  if (!f.composite()) return std::memcmp(a + f.key_offset, b + f.key_offset, f.key_bytes) == 0;
  for (uint32_t i = 0; i < f.fields.count; ++i) {
    const KeyField& k = f.fields.field[i];
    if (k.numpy_float ? field_order_word(k, a + k.offset) != field_order_word(k, b + k.offset)
                      : std::memcmp(a + k.offset, b + k.offset, k.bytes) != 0)
      return false;
  }
  return true;
}

}  // namespace gxsort
