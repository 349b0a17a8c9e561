#include "gxsort/format.hpp"

#include "gxsort/error.hpp"

namespace gxsort {

const char* key_type_name(KeyType t) {
  switch (t) {
    case KeyType::u32: return "u32";
    case KeyType::u64: return "u64";
    case KeyType::i32: return "i32";
    case KeyType::i64: return "i64";
    case KeyType::f32: return "f32";
    case KeyType::f64: return "f64";
    case KeyType::bytes: return "bytes";
    case KeyType::u8: return "u8";
    case KeyType::u16: return "u16";
    case KeyType::i8: return "i8";
    case KeyType::i16: return "i16";
  }
  return "?";
}

namespace {

constexpr KeyType kTypedKeys[] = {KeyType::u8,  KeyType::u16, KeyType::u32, KeyType::u64, KeyType::i8, KeyType::i16,
                                  KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64};
constexpr const char* kTypeList = "u8, u16, u32, u64, i8, i16, i32, i64, f32, f64 or a big-endian form u16be .. f64be";

// "u32" -> u32, "f64be" -> f64 big-endian; false when it is neither.
bool lookup_type(const std::string& s, KeyType& t, bool& big_endian) {
  const bool be = s.size() > 2 && s.compare(s.size() - 2, 2, "be") == 0;
  const std::string base = be ? s.substr(0, s.size() - 2) : s;
  for (KeyType k : kTypedKeys)
    if (base == key_type_name(k) && (!be || key_type_width(k) > 1)) {
      t = k;
      big_endian = be;
      return true;
    }
  return false;
}

bool all_digits(const std::string& s) { return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos; }

// A numpy-order float field is never a single key: the single-key paths turn order
// words back into values, and its words are not a bijection (format.hpp).
bool single_key_type(const KeyField& k) {
  if (k.type == KeyType::bytes) return true;
  return !k.big_endian && !k.numpy_float && (k.bytes == 4 || k.bytes == 8);
}

bool float_type(KeyType t) { return t == KeyType::f32 || t == KeyType::f64; }

}  // namespace

KeyType parse_key_type(const std::string& s, bool* big_endian) {
  KeyType t;
  bool be = false;
  if (!lookup_type(s, t, be) || (be && !big_endian))
    fail_usage("unknown key type '" + s + "' (expected " + std::string(big_endian ? kTypeList : "u8, u16, u32, u64, i8, i16, i32, i64, f32 or f64") + ")");
  if (big_endian) *big_endian = be;
  return t;
}

bool parse_key_field(const std::string& text, KeyField& out) {
  std::vector<std::string> parts;
  for (size_t b = 0;;) {
    const size_t e = text.find(':', b);
    parts.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (parts.size() < 2 || parts[0].empty() || parts[0].find_first_not_of("0123456789") != std::string::npos) return false;
  const std::string bad = option_ref("key", text) + ": ";
  if (!all_digits(parts[0])) fail_usage(bad + "the offset is too large");
  KeyField k;
  k.offset = uint32_t(std::stoul(parts[0]));
  size_t next = 2;
  if (parts[1] == "bytes") {
    if (parts.size() < 3 || !all_digits(parts[2]) || std::stoul(parts[2]) == 0)
      fail_usage(bad + "a byte field is OFFSET:bytes:N with N at least 1");
    k.type = KeyType::bytes;
    k.bytes = uint32_t(std::stoul(parts[2]));
    next = 3;
  } else {
    if (!lookup_type(parts[1], k.type, k.big_endian))
      fail_usage(bad + "unknown key type '" + parts[1] + "' (expected " + kTypeList + ", or bytes:N)");
    k.bytes = uint32_t(key_type_width(k.type));
  }
  k.numpy_float = parts.size() > next && parts.back() == "numpy";
  if (k.numpy_float && !float_type(k.type)) fail_usage(bad + "numpy's order is for f32 and f64 fields");
  const size_t end = parts.size() - (k.numpy_float ? 1 : 0);
  if (end > next + 1 || (end == next + 1 && parts[next] != "desc" && parts[next] != "asc"))
    fail_usage(bad + "expected OFFSET:TYPE[:desc] (a field's order is asc or desc)");
  k.desc = end == next + 1 && parts[next] == "desc";
  out = k;
  return true;
}

std::string key_field_text(const KeyField& k) {
  std::string s = std::to_string(k.offset) + ":" + key_type_name(k.type);
  if (k.type == KeyType::bytes) s += ":" + std::to_string(k.bytes);
  else if (k.big_endian) s += "be";
  if (k.desc) s += ":desc";
  return k.numpy_float ? s + ":numpy" : s;
}

Format Format::of_keys(size_t record_size, const std::vector<KeyField>& keys, bool reverse) {
  Format f;
  f.record_size = record_size;
  f.reverse = reverse;
  if (keys.size() == 1 && single_key_type(keys[0])) {
    f.key_offset = keys[0].offset;
    f.key_type = keys[0].type;
    f.key_bytes = keys[0].bytes;
    f.reverse = reverse != keys[0].desc;
    return f;
  }
  f.key_offset = 0;
  f.key_type = KeyType::bytes;
  f.key_bytes = 0;
  if (keys.size() > kMaxKeyFields)
    fail_usage(option_ref("key") + ": at most " + std::to_string(kMaxKeyFields) + " key fields, got " + std::to_string(keys.size()));
  for (const KeyField& k : keys) {
    f.fields.field[f.fields.count++] = k;
    f.key_bytes += k.bytes;
  }
  f.fields.width = uint32_t(f.key_bytes);
  return f;
}

Format with_float_order(const Format& f, FloatOrder order) {
  std::vector<KeyField> keys = f.key_fields();
  bool changed = false;
  for (KeyField& k : keys)
    if (float_type(k.type) && k.numpy_float != (order == FloatOrder::numpy)) {
      changed = true;
      k.numpy_float = !k.numpy_float;
    }
  if (!changed) return f;
  // of_keys folds a single descending field into reverse; key_fields gave the single
  // key's reverse apart, so it is applied on top again here.
  const bool single = !f.composite();
  Format g = Format::of_keys(f.record_size, keys, single ? false : f.reverse);
  if (single) g.reverse = g.reverse != f.reverse;
  return g;
}

std::vector<KeyField> Format::key_fields() const {
  if (composite()) return std::vector<KeyField>(fields.field, fields.field + fields.count);
  KeyField k = single_field(key_type, key_offset);
  k.bytes = uint32_t(key_bytes);
  return {k};
}

std::string Format::key_text() const {
  std::string s;
  for (const KeyField& k : key_fields()) s += (s.empty() ? "" : ",") + key_field_text(k);
  return s;
}

std::string Format::describe() const {
  std::string s;
  if (flat()) s = std::string(key_type_name(key_type)) + " keys";
  else if (composite())
    s = std::to_string(record_size) + "-byte records, key " + key_text();
  else if (key_type == KeyType::bytes)
    s = std::to_string(record_size) + "-byte records, " + std::to_string(key_bytes) + "-byte key at offset " +
        std::to_string(key_offset);
  else
    s = std::to_string(record_size) + "-byte records, " + key_type_name(key_type) + " key at offset " +
        std::to_string(key_offset);
  if (reverse) s += ", reversed";
  return s;
}

void set_normalized_key(const Format& f, const unsigned char* norm, unsigned char* rec) {
  uint32_t pos = 0;
  for (uint32_t i = 0; i < f.fields.count; pos += f.fields.field[i].bytes, ++i) {
    const KeyField& k = f.fields.field[i];
    unsigned char* p = rec + k.offset;
    const uint32_t w = k.bytes;
    if (k.type == KeyType::bytes) {
      for (uint32_t j = 0; j < w; ++j) p[j] = k.desc ? uint8_t(~norm[pos + j]) : norm[pos + j];
      continue;
    }
    uint64_t v = 0;
    for (uint32_t j = 0; j < w; ++j) v = (v << 8) | norm[pos + j];
    if (k.desc) v = ~v;
    uint64_t raw = v;  // field_order_word undone
    if (k.type == KeyType::i8 || k.type == KeyType::i16 || k.type == KeyType::i32 || k.type == KeyType::i64)
      raw = v ^ (uint64_t(1) << (8 * w - 1));
    else if (k.type == KeyType::f32) raw = f32_unorder(uint32_t(v));
    else if (k.type == KeyType::f64) raw = f64_unorder(v);
    for (uint32_t j = 0; j < w; ++j) p[k.big_endian ? w - 1 - j : j] = uint8_t(raw >> (8 * j));
  }
}

void Format::validate() const {
  if (record_size == 0) fail_usage(option_ref("record-size") + " must be at least 1");
  if (!composite()) {
    if (key_bytes == 0) fail_usage(option_ref("key-bytes") + " must be at least 1");
    if (key_offset + key_bytes > record_size || key_offset >= record_size)
      fail_usage("the key (" + std::to_string(key_bytes) + " bytes at offset " + std::to_string(key_offset) +
                 ") does not lie inside the " + std::to_string(record_size) + "-byte record");
    return;
  }
  if (key_bytes != fields.width) fail_usage(option_ref("key") + ": the key fields are wider than 4 GiB together");
  for (uint32_t i = 0; i < fields.count; ++i) {
    const KeyField& k = fields.field[i];
    if (k.bytes == 0) fail_usage(option_ref("key", key_field_text(k)) + ": a key field of no bytes");
    if (uint64_t(k.offset) + k.bytes > record_size)
      fail_usage(option_ref("key", key_field_text(k)) + ": the field (" + std::to_string(k.bytes) + " bytes at offset " +
                 std::to_string(k.offset) + ") does not lie inside the " + std::to_string(record_size) + "-byte record");
  }
}

}  // namespace gxsort
