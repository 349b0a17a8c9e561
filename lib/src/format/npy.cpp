#include "format/npy.hpp"

#include <cctype>
#include <cstring>

#include "gxsort/error.hpp"

namespace gxsort::npy {
namespace {

// The header dict is a Python literal; this reads the subset numpy writes: strings in
// quotes, integers, True/False, tuples, lists and dicts.
struct Value {
  enum Kind { str, integer, boolean, tuple, list, dict } kind = str;
  std::string text;
  uint64_t number = 0;
  std::vector<Value> items;                          // tuple, list
  std::vector<std::pair<std::string, Value>> keys;   // dict
};

// Bounds on what a header may say (numpy's own: an itemsize is a C int), so that no
// number read from a file can overflow a size or exhaust the stack or the memory.
constexpr uint64_t kMaxItemsize = (uint64_t(1) << 31) - 1;
constexpr uint64_t kMaxHeaderBytes = uint64_t(1) << 20;
constexpr int kMaxDepth = 16;  // brackets inside brackets

class Reader {
 public:
  Reader(const std::string& path, const std::string& s) : path_(path), s_(s) {}
  Value value() {
    if (depth_ >= kMaxDepth) bad("brackets nested more than " + std::to_string(kMaxDepth) + " deep");
    ++depth_;
    Value v = value_here();
    --depth_;
    return v;
  }
  [[noreturn]] void bad(const std::string& what) const { fail_usage(path_ + ": not a .npy file this gxsort reads: " + what); }

 private:
  Value value_here() {
    skip();
    if (i_ >= s_.size()) bad("the header ends early");
    const char c = s_[i_];
    if (c == '\'' || c == '"') return string_value();
    if (c == '(' || c == '[') return sequence(c == '(' ? ')' : ']');
    if (c == '{') return dict();
    if (std::isdigit(static_cast<unsigned char>(c))) return integer();
    if (s_.compare(i_, 4, "True") == 0) { i_ += 4; Value v; v.kind = Value::boolean; v.number = 1; return v; }
    if (s_.compare(i_, 5, "False") == 0) { i_ += 5; Value v; v.kind = Value::boolean; return v; }
    bad(std::string("unexpected '") + c + "' in the header");
  }
  void skip() { while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_; }
  bool take(char c) { skip(); if (i_ < s_.size() && s_[i_] == c) { ++i_; return true; } return false; }
  Value string_value() {
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string::npos) bad("an unterminated string");
    Value v;
    v.text = s_.substr(i_, end - i_);
    i_ = end + 1;
    return v;
  }
  Value integer() {
    Value v;
    v.kind = Value::integer;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      if (v.number > (UINT64_MAX - 9) / 10) bad("a number too large");
      v.number = v.number * 10 + uint64_t(s_[i_++] - '0');
    }
    take('L');  // Python 2 long
    return v;
  }
  Value sequence(char close) {
    Value v;
    v.kind = close == ')' ? Value::tuple : Value::list;
    ++i_;
    while (!take(close)) {
      v.items.push_back(value());
      if (!take(',')) { if (!take(close)) bad("expected ',' or a closing bracket"); break; }
    }
    return v;
  }
  Value dict() {
    Value v;
    v.kind = Value::dict;
    ++i_;
    while (!take('}')) {
      Value k = value();
      if (k.kind != Value::str || !take(':')) bad("a malformed dict");
      v.keys.emplace_back(k.text, value());
      if (!take(',')) { if (!take('}')) bad("expected ',' or '}'"); break; }
    }
    return v;
  }
  const std::string& path_;
  const std::string& s_;
  size_t i_ = 0;
  int depth_ = 0;
};

// "<u8" -> 8; refuses big-endian and non-numeric kinds.
size_t scalar_size(const Reader& r, const std::string& d) {
  if (d.size() < 3) r.bad("dtype '" + d + "'");
  if (d[0] == '>') r.bad("dtype '" + d + "' is big-endian (convert it with a.astype(a.dtype.newbyteorder('<')))");
  if (d[0] != '<' && d[0] != '|' && d[0] != '=') r.bad("dtype '" + d + "'");
  if (std::strchr("uifbV", d[1]) == nullptr) r.bad("dtype '" + d + "' is not numeric (object and string arrays are not sortable records)");
  const std::string n = d.substr(2);
  if (n.find_first_not_of("0123456789") != std::string::npos) r.bad("dtype '" + d + "'");
  uint64_t width = 0;
  for (const char c : n) {
    width = width * 10 + uint64_t(c - '0');
    if (width > kMaxItemsize) r.bad("dtype '" + d + "' is too wide (at most " + std::to_string(kMaxItemsize) + " bytes)");
  }
  return size_t(width);
}

void read_descr(const Reader& r, const Value& d, Header& h) {
  if (d.kind == Value::str) {
    h.descr = "'" + d.text + "'";
    h.itemsize = scalar_size(r, d.text);
    h.fields.push_back({"", d.text, 0, h.itemsize});
    return;
  }
  if (d.kind != Value::list) r.bad("a descr that is neither a dtype nor a list of fields");
  h.structured = true;
  h.descr = "[";
  for (const Value& f : d.items) {
    if (f.kind != Value::tuple || f.items.size() != 2 || f.items[0].kind != Value::str || f.items[1].kind != Value::str)
      r.bad("a structured dtype with nested or shaped fields");
    Field field{f.items[0].text, f.items[1].text, h.itemsize, scalar_size(r, f.items[1].text)};
    h.descr += std::string(h.fields.empty() ? "" : ", ") + "('" + field.name + "', '" + field.descr + "')";
    h.itemsize += field.size;
    if (h.itemsize > kMaxItemsize) r.bad("a structured dtype wider than " + std::to_string(kMaxItemsize) + " bytes");
    h.fields.push_back(field);
  }
  h.descr += "]";
}

// The key field a dtype field gives: "<u4" -> u32, "|i1" -> i8, "|b1" -> u8, "|V10" -> bytes:10.
KeyField key_of(const std::string& path, const Field& fl) {
  const char kind = fl.descr[1];
  KeyField k = Format::single_field(KeyType::bytes, fl.offset);
  k.bytes = uint32_t(fl.size);
  if (kind == 'V') return k;
  const size_t n = fl.size;
  const KeyType u[] = {KeyType::u8, KeyType::u16, KeyType::u32, KeyType::u64};
  const KeyType i[] = {KeyType::i8, KeyType::i16, KeyType::i32, KeyType::i64};
  const int log2 = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : -1;
  if (kind == 'b' && n == 1) return Format::single_field(KeyType::u8, fl.offset);
  if ((kind == 'u' || kind == 'i') && log2 >= 0) return Format::single_field((kind == 'u' ? u : i)[log2], fl.offset);
  if (kind == 'f' && (n == 4 || n == 8)) return Format::single_field(n == 4 ? KeyType::f32 : KeyType::f64, fl.offset);
  fail_usage(path + ": dtype " + fl.descr + " is not a key type gxsort orders (u1-u8, i1-i8, f4, f8, b1 or void bytes" +
             (kind == 'f' && n == 2 ? "; half floats, f2, are not" : "") + ")");
}

// "name" or "name:desc" / "name:asc".
KeyField named_key(const std::string& path, const Header& h, const std::string& text) {
  std::string name = text;
  bool desc = false;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos && (text.compare(colon + 1, std::string::npos, "desc") == 0 ||
                                     text.compare(colon + 1, std::string::npos, "asc") == 0)) {
    name = text.substr(0, colon);
    desc = text.compare(colon + 1, std::string::npos, "desc") == 0;
  }
  for (const Field& fl : h.fields)
    if (fl.name == name) {
      KeyField k = key_of(path, fl);
      k.desc = desc;
      return k;
    }
  std::string names;
  for (const Field& fl : h.fields) names += (names.empty() ? "" : ", ") + fl.name;
  fail_usage(path + ": --key " + text + ": the structured array has no field '" + name + "' (fields: " + names + ")");
}

}  // namespace

bool has_npy_name(const std::string& path) { return path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0; }

bool parse_header(const std::string& path, const std::string& bytes, Header& h, uint64_t* needed) {
  const Reader r(path, bytes);
  if (bytes.size() < 10) { *needed = 10; return false; }
  if (bytes.compare(0, 6, kMagic) != 0) r.bad("no \\x93NUMPY magic");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) r.bad("format version " + std::to_string(major));
  uint64_t len = 0, start = 10;
  if (major == 1) {
    len = uint64_t(static_cast<unsigned char>(bytes[8])) | uint64_t(static_cast<unsigned char>(bytes[9])) << 8;
  } else {
    if (bytes.size() < 12) { *needed = 12; return false; }
    for (int i = 3; i >= 0; --i) len = len << 8 | static_cast<unsigned char>(bytes[8 + i]);
    start = 12;
  }
  if (len > kMaxHeaderBytes)
    r.bad("a header of " + std::to_string(len) + " bytes (at most " + std::to_string(kMaxHeaderBytes) + ")");
  if (bytes.size() < start + len) { *needed = start + len; return false; }
  const std::string text = bytes.substr(start, len);
  Reader dict_reader(path, text);
  const Value d = dict_reader.value();
  if (d.kind != Value::dict) r.bad("the header is not a dict");
  h = Header();
  h.data_offset = start + len;
  bool have_descr = false, have_shape = false;
  for (const auto& [key, v] : d.keys) {
    if (key == "descr") { read_descr(r, v, h); have_descr = true; }
    if (key == "fortran_order" && v.number) r.bad("Fortran order (write it with np.ascontiguousarray)");
    if (key == "shape") {
      if (v.kind != Value::tuple || v.items.size() != 1 || v.items[0].kind != Value::integer)
        r.bad("a shape that is not one-dimensional (flatten it, or use a structured dtype for rows)");
      h.count = v.items[0].number;
      have_shape = true;
    }
  }
  if (!have_descr || !have_shape) r.bad("a header without descr or shape");
  if (h.itemsize == 0) r.bad("a zero-size dtype");
  return true;
}

Format format_of(const std::string& path, const Header& h, const Format* given, const std::vector<std::string>& keys) {
  std::vector<KeyField> fields;
  for (const std::string& text : keys) {
    KeyField k;
    if (parse_key_field(text, k)) {
      fields.push_back(k);
    } else if (!h.structured) {
      fail_usage(path + ": --key " + text + " names a field, but the array has a plain dtype " + h.fields[0].descr);
    } else {
      fields.push_back(named_key(path, h, text));
    }
  }
  if (keys.empty() && h.structured) {
    std::string names;
    for (const Field& fl : h.fields) names += (names.empty() ? "" : ", ") + fl.name;
    fail_usage(path + ": a structured array: name its key field(s) with --key FIELD (fields: " + names + ")");
  }
  if (keys.empty()) fields.push_back(key_of(path, h.fields[0]));
  Format f = Format::of_keys(h.itemsize, fields, false);
  f.validate();
  if (given && (given->record_size != f.record_size || given->key_text() != f.key_text()))
    fail_usage(path + ": its dtype " + h.descr + " gives " + f.describe() + ", the options say " + given->describe() +
               " (leave the format options out for .npy files)");
  return f;
}

std::string descr_for(const Format& f) {
  const std::vector<KeyField> keys = f.key_fields();
  const KeyField& k = keys[0];
  if (keys.size() == 1 && k.type != KeyType::bytes && k.bytes == f.record_size) {
    const std::string name = key_type_name(k.type);
    return std::string("'") + (k.bytes == 1 ? '|' : k.big_endian ? '>' : '<') + name[0] + std::to_string(k.bytes) + "'";
  }
  return "'|V" + std::to_string(f.record_size) + "'";
}

uint64_t header_bytes(const std::string& descr) {
  // Room for a 20-digit count; a multiple of 64 bytes, as numpy aligns the data.
  const size_t text = std::string("{'descr': , 'fortran_order': False, 'shape': (18446744073709551615,), }").size() + descr.size();
  const uint64_t total = 10 + text + 1;
  return total <= 65535 + 10 ? (total + 63) / 64 * 64 : (total + 2 + 63) / 64 * 64;
}

std::string header(const std::string& descr, uint64_t count, uint64_t size) {
  std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  const bool v2 = size > 65535 + 10;
  const size_t prefix = v2 ? 12 : 10;
  dict.append(size - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string h(kMagic, 6);
  h += char(v2 ? 2 : 1);
  h += char(0);
  const uint64_t len = dict.size();
  for (size_t i = 0; i < (v2 ? 4 : 2); ++i) h += char((len >> (8 * i)) & 0xff);
  return h + dict;
}

}  // namespace gxsort::npy
