#include "format/sniff.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace gxsort {
namespace {

bool starts_with(const unsigned char* head, size_t n, const char* magic, size_t magic_bytes) {
  return n >= magic_bytes && std::memcmp(head, magic, magic_bytes) == 0;
}

bool looks_like_npy(const unsigned char* head, size_t n) {
  return starts_with(head, n, "\x93NUMPY", 6) && n >= 8 && head[6] >= 1 && head[6] <= 3 && head[7] == 0;
}

bool looks_like_gzip(const unsigned char* head, size_t n) {
  return starts_with(head, n, "\x1f\x8b\x08", 3) && n >= 4 && (head[3] & 0xe0) == 0;
}

// "BZh1".."BZh9", then the first block's magic (the digits of pi) or, for an empty
// stream, the end-of-stream magic (those of sqrt(pi)).
bool looks_like_bzip2(const unsigned char* head, size_t n) {
  if (!starts_with(head, n, "BZh", 3) || n < 10 || head[3] < '1' || head[3] > '9') return false;
  return std::memcmp(head + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 ||
         std::memcmp(head + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0;
}

// Bytes of the UTF-8 sequence that starts with `lead` (0: not a lead byte). Overlong
// two-byte forms (c0, c1) and leads past U+10FFFF (f5..ff) are not UTF-8.
size_t utf8_length(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// Fewer bytes are never text: two u64 records (fewer are never reordered). Random
// bytes pass the rule below at 16 bytes about once in 10^8 files, at 24 once in 10^11.
constexpr size_t kTextLeast = 16;

bool looks_like_text(const unsigned char* head, size_t n) {
  n = std::min(n, kSniffBytes);
  if (n < kTextLeast) return false;
  size_t line_breaks = 0;
  bool visible = false;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = head[i];
    if (c == '\n') ++line_breaks;
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') continue;
    visible = true;
    if (c > ' ' && c < 0x7f) continue;
    const size_t len = utf8_length(c);
    if (len == 0) return false;  // NUL, another control byte, DEL or a stray byte >= 0x80
    for (size_t k = 1; k < len && i + k < n; ++k)
      if ((head[i + k] & 0xc0) != 0x80) return false;
    i += len - 1;
  }
  return line_breaks >= 2 && visible;
}

}  // namespace

FileKind what_file_looks_like(const unsigned char* head, size_t n) {
  if (looks_like_npy(head, n)) return FileKind::npy;
  if (starts_with(head, n, "PAR1", 4)) return FileKind::parquet;
  if (starts_with(head, n, "PK\x03\x04", 4) || starts_with(head, n, "PK\x05\x06", 4)) return FileKind::zip;
  if (looks_like_gzip(head, n)) return FileKind::gzip;
  if (starts_with(head, n, "\x28\xb5\x2f\xfd", 4)) return FileKind::zstd;
  if (starts_with(head, n, "\xfd\x37\x7a\x58\x5a\x00", 6)) return FileKind::xz;
  if (looks_like_bzip2(head, n)) return FileKind::bzip2;
  if (starts_with(head, n, "\x89HDF\r\n\x1a\n", 8)) return FileKind::hdf5;
  if (starts_with(head, n, "ARROW1", 6)) return FileKind::arrow;
  if (looks_like_text(head, n)) return FileKind::text;
  return FileKind::records;
}

const char* file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::records: return "raw records";
    case FileKind::npy: return "a .npy file";
    case FileKind::parquet: return "a Parquet file";
    case FileKind::zip: return "a zip archive (an .npz?)";
    case FileKind::gzip: return "a gzip-compressed file";
    case FileKind::zstd: return "a zstd-compressed file";
    case FileKind::xz: return "an xz-compressed file";
    case FileKind::bzip2: return "a bzip2-compressed file";
    case FileKind::hdf5: return "an HDF5 file";
    case FileKind::arrow: return "an Arrow IPC file";
    case FileKind::text: return "text lines";
  }
  return "";
}

const char* decompressor(FileKind kind) {
  switch (kind) {
    case FileKind::gzip: return "zcat";
    case FileKind::zstd: return "zstdcat";
    case FileKind::xz: return "xzcat";
    case FileKind::bzip2: return "bzcat";
    default: return nullptr;
  }
}

std::string file_kind_advice(FileKind kind, const std::string& path) {
  const std::string file = path.empty() ? "" : " " + path;  // no path: the input is stdin
  switch (kind) {
    case FileKind::records: case FileKind::npy: return "";
    case FileKind::zip: return "unzip it and give gxsort the .npy files inside";
    case FileKind::gzip: case FileKind::zstd: case FileKind::xz: case FileKind::bzip2:
      return std::string("decompress it first, e.g. `") + decompressor(kind) + file + " | gxsort sort - --type u64 ...`";
    case FileKind::parquet: case FileKind::hdf5: case FileKind::arrow:
      return "convert its column to .npy (numpy's save) and give gxsort that";
    case FileKind::text:
      return "sort its lines with `gxsort sort --lines" + file + "` (GNU sort's -k, -t, -n, ... imply --lines)";
  }
  return "";
}

}  // namespace gxsort
