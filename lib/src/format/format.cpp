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
  }
  return "?";
}

KeyType parse_key_type(const std::string& s) {
  for (KeyType t : {KeyType::u32, KeyType::u64, KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64})
    if (s == key_type_name(t)) return t;
  fail_usage("unknown key type '" + s + "' (expected u32, u64, i32, i64, f32 or f64)");
}

std::string Format::describe() const {
  std::string s;
  if (flat()) s = std::string(key_type_name(key_type)) + " keys";
  else if (key_type == KeyType::bytes)
    s = std::to_string(record_size) + "-byte records, " + std::to_string(key_bytes) + "-byte key at offset " +
        std::to_string(key_offset);
  else
    s = std::to_string(record_size) + "-byte records, " + key_type_name(key_type) + " key at offset " +
        std::to_string(key_offset);
  if (reverse) s += ", reversed";
  return s;
}

void Format::validate() const {
  if (record_size == 0) fail_usage("--record-size must be at least 1");
  if (key_bytes == 0) fail_usage("--key-bytes must be at least 1");
  if (key_offset + key_bytes > record_size || key_offset >= record_size)
    fail_usage("the key (" + std::to_string(key_bytes) + " bytes at offset " + std::to_string(key_offset) +
               ") does not lie inside the " + std::to_string(record_size) + "-byte record");
}

}  // namespace gxsort
