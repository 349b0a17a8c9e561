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

bool one_of(char c, const char* set) { return c != '\0' && std::strchr(set, c) != nullptr; }

// One dtype string: "<u8" -> 8, ">M8[ns]" -> 8, "<U3" -> 12 (UCS4). Refuses objects and
// anything numpy would not write for an array of plain records.
Field scalar_field(const Reader& r, const std::string& name, const std::string& d) {
  if (d.size() < 3 || !one_of(d[0], "<>|=")) r.bad("dtype '" + d + "'");
  if (!one_of(d[1], "uifcbVSUMm")) r.bad("dtype '" + d + "' is not a kind gxsort reads (objects are not sortable records)");
  std::string n = d.substr(2);
  const size_t unit = n.find('[');  // datetime64 and timedelta64: "8[ns]"
  if ((d[1] == 'M' || d[1] == 'm') && unit != std::string::npos && n.back() == ']') n.resize(unit);
  if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) r.bad("dtype '" + d + "'");
  const uint64_t per_unit = d[1] == 'U' ? 4 : 1;  // U<n>: n UCS4 code points
  uint64_t width = 0;
  for (const char c : n) {
    width = width * 10 + uint64_t(c - '0');
    if (width * per_unit > kMaxItemsize) r.bad("dtype '" + d + "' is too wide (at most " + std::to_string(kMaxItemsize) + " bytes)");
  }
  Field f;
  f.name = name;
  f.descr = d;
  f.order = d[0];
  f.kind = d[1];
  f.elem_size = f.size = size_t(width * per_unit);
  return f;
}

// A structured field's sub-array shape, (3,) or (2, 3): its elements multiply its size.
void read_subarray(const Reader& r, const Value& shape, Field& f) {
  if (shape.kind != Value::tuple || shape.items.empty()) r.bad("field '" + f.name + "' has a malformed shape");
  f.shape = "(";
  for (const Value& dim : shape.items) {
    if (dim.kind != Value::integer) r.bad("field '" + f.name + "' has a malformed shape");
    if (dim.number && f.size > kMaxItemsize / dim.number) r.bad("field '" + f.name + "' is too wide");
    f.size *= size_t(dim.number);
    f.shape += (f.shape.size() > 1 ? ", " : "") + std::to_string(dim.number);
  }
  f.shape += shape.items.size() == 1 ? ",)" : ")";
}

void read_descr(const Reader& r, const Value& d, Header& h) {
  if (d.kind == Value::str) {
    h.descr = "'" + d.text + "'";
    h.fields.push_back(scalar_field(r, "", d.text));
    h.itemsize = h.fields[0].size;
    return;
  }
  if (d.kind != Value::list) r.bad("a descr that is neither a dtype nor a list of fields");
  h.structured = true;
  h.descr = "[";
  for (const Value& f : d.items) {
    if (f.kind != Value::tuple || f.items.size() < 2 || f.items.size() > 3 || f.items[0].kind != Value::str ||
        f.items[1].kind != Value::str)
      r.bad("a structured dtype with nested fields or titles");
    if (f.items[0].text.find_first_of("'\\") != std::string::npos)
      r.bad("a field name with a quote or a backslash");  // written back in quotes: numpy's text of it differs
    Field field = scalar_field(r, f.items[0].text, f.items[1].text);
    if (f.items.size() == 3) read_subarray(r, f.items[2], field);
    field.offset = h.itemsize;
    h.descr += std::string(h.fields.empty() ? "" : ", ") + "('" + field.name + "', '" + field.descr + "'" +
               (field.shape.empty() ? "" : ", " + field.shape) + ")";
    h.itemsize += field.size;
    if (h.itemsize > kMaxItemsize) r.bad("a structured dtype wider than " + std::to_string(kMaxItemsize) + " bytes");
    h.fields.push_back(field);
  }
  h.descr += "]";
}

// shape (n,) or, for a plain dtype, (n, m): rows of m elements, each row a record.
void read_shape(const Reader& r, const Value& v, Header& h) {
  const size_t dims = v.kind == Value::tuple ? v.items.size() : 0;
  for (size_t i = 0; i < dims; ++i)
    if (v.items[i].kind != Value::integer) r.bad("a malformed shape");
  if (dims != 1 && dims != 2) r.bad("a shape of " + std::to_string(dims) + " dimensions (1-D arrays and 2-D arrays of rows only)");
  h.count = v.items[0].number;
  if (dims == 1) return;
  if (h.structured) r.bad("a 2-D array of a structured dtype (1-D structured arrays only)");
  const uint64_t m = v.items[1].number;
  if (m == 0) r.bad("rows of no columns");
  if (h.itemsize > kMaxItemsize / m) r.bad("rows wider than " + std::to_string(kMaxItemsize) + " bytes");
  h.columns = m;
  h.itemsize *= size_t(m);
  h.fields[0].size = h.itemsize;
  h.descr = "(" + h.descr + ", (" + std::to_string(m) + ",))";  // numpy's text of a row: a sub-array dtype
}

// The key fields a dtype field gives: "<u4" -> u32, ">i2" -> i16be, "|b1" -> u8, "|S10"
// and "|V10" -> bytes:10, "<M8[ns]" -> i64, "<U3" -> three u32 (code points), and a
// sub-array field its raw bytes (as numpy compares one).
std::vector<KeyField> key_of(const std::string& path, const Field& fl) {
  const char kind = fl.kind;
  const size_t n = fl.elem_size;
  const bool be = fl.order == '>' && n > 1;
  KeyField raw = Format::single_field(KeyType::bytes, fl.offset);
  raw.bytes = uint32_t(fl.size);
  if (!fl.shape.empty() || kind == 'V' || kind == 'S') return {raw};
  const KeyType u[] = {KeyType::u8, KeyType::u16, KeyType::u32, KeyType::u64};
  const KeyType i[] = {KeyType::i8, KeyType::i16, KeyType::i32, KeyType::i64};
  const int log2 = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : -1;
  if (kind == 'b' && n == 1) return {Format::single_field(KeyType::u8, fl.offset)};
  if ((kind == 'u' || kind == 'i') && log2 >= 0) return {Format::single_field((kind == 'u' ? u : i)[log2], fl.offset, be)};
  if (kind == 'f' && (n == 4 || n == 8)) return {Format::single_field(n == 4 ? KeyType::f32 : KeyType::f64, fl.offset, be)};
  if ((kind == 'M' || kind == 'm') && n == 8) return {Format::single_field(KeyType::i64, fl.offset, be)};
  if (kind == 'U' && n / 4 <= kMaxKeyFields) {
    std::vector<KeyField> points;
    for (size_t p = 0; p < n / 4; ++p) points.push_back(Format::single_field(KeyType::u32, fl.offset + 4 * p, be));
    return points;
  }
  if (kind == 'U')
    fail_usage(path + ": dtype " + fl.descr + " is " + std::to_string(n / 4) + " code points, each a u32 key field: more than the " +
               std::to_string(kMaxKeyFields) + " key fields gxsort compares (at most U" + std::to_string(kMaxKeyFields) + " as a key)");
  fail_usage(path + ": dtype " + fl.descr + " is not a key type gxsort orders (u1-u8, i1-i8, f4, f8, b1, S, U, V, M8, m8" +
             (kind == 'f' && n == 2 ? "; half floats, f2, are not" : kind == 'c' ? "; complex numbers are not" : "") + ")");
}

// A plain dtype's key: the element, or a row's elements in order (2-D).
std::vector<KeyField> plain_key(const std::string& path, const Header& h) {
  Field element = h.fields[0];
  element.size = element.elem_size;
  std::vector<KeyField> keys;
  for (uint64_t c = 0; c < std::max<uint64_t>(h.columns, 1); ++c, element.offset += element.elem_size) {
    for (const KeyField& k : key_of(path, element)) keys.push_back(k);
    if (keys.size() > kMaxKeyFields)
      fail_usage(path + ": rows of " + std::to_string(h.columns) + " columns of " + element.descr + " are more than the " +
                 std::to_string(kMaxKeyFields) + " key fields gxsort compares");
  }
  return keys;
}

// "name" or "name:desc" / "name:asc".
std::vector<KeyField> named_key(const std::string& path, const Header& h, const std::string& text) {
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
      std::vector<KeyField> keys = key_of(path, fl);
      for (KeyField& k : keys) k.desc = desc;
      return keys;
    }
  std::string names;
  for (const Field& fl : h.fields) names += (names.empty() ? "" : ", ") + fl.name;
  fail_usage(path + ": " + option_ref("key", text) + ": the structured array has no field '" + name + "' (fields: " + names + ")");
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
  bool have_descr = false;
  const Value* shape = nullptr;  // read after the descr, which it may precede
  for (const auto& [key, v] : d.keys) {
    if (key == "descr") { read_descr(r, v, h); have_descr = true; }
    if (key == "fortran_order" && v.number) r.bad("Fortran order (write it with np.ascontiguousarray)");
    if (key == "shape") shape = &v;
  }
  if (!have_descr || !shape) r.bad("a header without descr or shape");
  read_shape(r, *shape, h);
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
      fail_usage(path + ": " + option_ref("key", text) + " names a field, but the array has a plain dtype " + h.fields[0].descr);
    } else {
      for (const KeyField& k : named_key(path, h, text)) fields.push_back(k);
    }
  }
  if (keys.empty() && h.structured) {
    std::string names;
    for (const Field& fl : h.fields) names += (names.empty() ? "" : ", ") + fl.name;
    fail_usage(path + ": a structured array: name its key field(s) with " + option_ref("key", "FIELD") + " (fields: " + names + ")");
  }
  if (keys.empty()) fields = plain_key(path, h);
  if (fields.size() > kMaxKeyFields)
    fail_usage(path + ": the key is " + std::to_string(fields.size()) + " fields (a U<n> field is n), more than the " +
               std::to_string(kMaxKeyFields) + " key fields gxsort compares");
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

std::string with_count_field(const std::string& descr) {
  const std::string what = "the output's dtype";
  Reader literal(what, descr);  // a descr this file wrote (read_descr, read_shape) or descr_for's
  const Value d = literal.value();
  if (d.kind == Value::str) return "[('value', '" + d.text + "'), ('count', '<u8')]";
  if (d.kind == Value::tuple)
    return "[('value', '" + d.items[0].text + "', (" + std::to_string(d.items[1].items[0].number) + ",)), ('count', '<u8')]";
  auto taken = [&d](const std::string& name) {
    for (const Value& field : d.items)
      if (field.items[0].text == name) return true;
    return false;
  };
  std::string name = "count";  // or count_, count__ ...: a name the record's fields leave free
  while (taken(name)) name += '_';
  return descr.substr(0, descr.size() - 1) + ", ('" + name + "', '<u8')]";
}

std::string header(const std::string& descr, uint64_t count, uint64_t size) {
  // A row's descr, "('<u4', (3,))", is written as the element's with a 2-D shape.
  const size_t row = descr[0] == '(' ? descr.rfind(", (") : std::string::npos;
  const std::string dtype = row == std::string::npos ? descr : descr.substr(1, row - 1);
  const std::string shape = std::to_string(count) + (row == std::string::npos ? "," : ", " + descr.substr(row + 3, descr.size() - row - 6));
  std::string dict = "{'descr': " + dtype + ", 'fortran_order': False, 'shape': (" + shape + "), }";
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
