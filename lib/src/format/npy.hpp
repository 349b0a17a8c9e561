// NumPy .npy files (format versions 1 to 3): the header of an input, read once, gives
// the record format (a plain dtype is a flat key file; a structured dtype is records,
// one field named as the key); an output gets a header of a fixed size written first
// and filled in with the final shape when it is committed. Numeric (either byte order),
// bool, S, U, V and datetime dtypes, structured ones of such fields (sub-array fields
// too), C order, 1-D arrays and 2-D arrays of a plain dtype (rows); anything else is
// refused with one line naming the file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/format.hpp"

namespace gxsort::npy {

struct Field {
  std::string name;   // "" for a plain dtype
  std::string descr;  // "<u8", "|V4", ">M8[ns]", "<U3" ...: one element's
  size_t offset = 0;
  size_t size = 0;       // bytes: its elements' (a sub-array field's, a row's), else elem_size
  size_t elem_size = 0;  // bytes of one element
  char order = '<';      // '<', '>', '|' or '='
  char kind = 'u';       // numpy's kind letter: u i f c b S U V M m
  std::string shape;     // a sub-array field's shape, "(3,)"; "" for a scalar field
};

struct Header {
  uint64_t data_offset = 0;  // bytes before the first record
  std::string descr;         // the dtype as the file gives it (a string, or a list); a 2-D
                             // array's row as a sub-array dtype, "('<u4', (3,))"
  size_t itemsize = 0;       // bytes of a record (a 2-D array: of a row)
  std::vector<Field> fields;
  bool structured = false;
  uint64_t count = 0;        // shape[0]
  uint64_t columns = 0;      // shape[1] of a 2-D array, else 0
};

constexpr char kMagic[] = "\x93NUMPY";
bool has_npy_name(const std::string& path);  // ends in .npy

// Parses the header at the start of `bytes` (the first bytes of the file; at least the
// whole header). Throws Error(usage) naming `path` for anything this reader refuses.
// `needed` receives the header length when `bytes` is too short (then returns false).
bool parse_header(const std::string& path, const std::string& bytes, Header& h, uint64_t* needed);

// The record format of a .npy file: its dtype gives the type of a flat file, or the
// record size and (by `keys`: names of fields, each with an optional ":desc", or
// OFFSET:TYPE fields) the key of a structured one, or the columns in order of a 2-D
// one; fields u1-u8, i1-i8 (signed), f4, f8 (either byte order), b1, M8/m8 (i64), S and
// V (bytes:N), U<n> (n u32 code points) and sub-arrays (their bytes) are keys, at most
// 16 key fields in all. `given`, when set, must agree with it (exit 2 otherwise).
// --reverse is the caller's.
Format format_of(const std::string& path, const Header& h, const Format* given, const std::vector<std::string>& keys);

// The dtype text for records of format f: a typed flat key ("<u8"), or opaque records
// ("|V24") when there is payload.
std::string descr_for(const Format& f);
// The dtype of dedupe --count's records: `descr`'s fields (a plain dtype: a field
// 'value') and a little-endian u64 field 'count' (named count_ ... when that is taken).
std::string with_count_field(const std::string& descr);
// The header size an output of this dtype gets (room for any count), and its bytes; a
// row's descr ("('<u4', (3,))") gives a 2-D shape (count, 3).
uint64_t header_bytes(const std::string& descr);
std::string header(const std::string& descr, uint64_t count, uint64_t size);

}  // namespace gxsort::npy
