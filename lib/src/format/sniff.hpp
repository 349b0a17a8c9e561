// What an input's first bytes say it is. With no format option, gxsort would take any
// file as u64 keys; a file that starts with a known container signature, or that reads
// as text lines, is refused instead (open_input), naming what it looks like and what to
// use. Pure: no I/O, no text for users but the two descriptions below.
#pragma once
#include <cstddef>
#include <string>

namespace gxsort {

enum class FileKind { records, npy, parquet, zip, gzip, zstd, xz, bzip2, hdf5, arrow, text };

// The bytes the text rule looks at: a file's first 4 KiB, or a stream's first block.
constexpr size_t kSniffBytes = 4096;

// The kind of file whose first n bytes these are (records: nothing recognized).
// Signatures, each checked where its bytes are whole:
//   .npy   \x93NUMPY, major version 1 to 3, minor 0
//   Parquet "PAR1"; zip/npz "PK\3\4" or an empty zip's "PK\5\6"
//   gzip   1f 8b 08 with the flag byte's reserved bits clear (1f 8b alone is 1 in 65536
//          of random keys)
//   zstd   28 b5 2f fd; xz fd 37 7a 58 5a 00; HDF5 89 48 44 46 0d 0a 1a 0a; Arrow "ARROW1"
//   bzip2  "BZh", a block size digit 1 to 9, then a block's or the end's 6-byte magic
// Text lines: the first kSniffBytes (at least 16 bytes: fewer are never text) hold no
// byte but printable ASCII, tab, CR, LF and well-formed UTF-8 sequences (one cut by the
// window's end allowed), at least two LFs, and a byte that is not white space. Binary
// keys fail it at their first NUL, control byte or stray byte >= 0x80: all of gen's
// distributions and types do (tests/cli/test_sniff.sh). Lines longer than the window
// (no two LFs in it) are not recognized: they are sorted as told, as before.
FileKind what_file_looks_like(const unsigned char* head, size_t n);

const char* file_kind_name(FileKind kind);    // "a gzip-compressed file"
// The command that decompresses a compressed kind to stdout ("zcat"); nullptr for the
// other kinds.
const char* decompressor(FileKind kind);
// What to use instead, one clause (naming `path` in its example command; "": stdin).
std::string file_kind_advice(FileKind kind, const std::string& path);

}  // namespace gxsort
