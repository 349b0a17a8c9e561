// what_file_looks_like: each signature, the text rule's edges, and random keys.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "format/sniff.hpp"

using namespace gxsort;

namespace {
FileKind kind_of(const std::string& bytes) {
  return what_file_looks_like(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}
// The signature, then 56 bytes that are not text.
std::string signed_file(const std::string& magic) { return magic + std::string(56, '\0'); }
}  // namespace

TEST_CASE("sniff: each container signature") {
  CHECK(kind_of(signed_file(std::string("\x93NUMPY\x01\x00", 8))) == FileKind::npy);
  CHECK(kind_of(signed_file(std::string("\x93NUMPY\x04\x00", 8))) == FileKind::records);  // no such version
  CHECK(kind_of(signed_file("PAR1")) == FileKind::parquet);
  CHECK(kind_of(signed_file("PK\x03\x04")) == FileKind::zip);
  CHECK(kind_of(signed_file("PK\x05\x06")) == FileKind::zip);
  CHECK(kind_of(signed_file(std::string("\x1f\x8b\x08\x00", 4))) == FileKind::gzip);
  CHECK(kind_of(signed_file("\x1f\x8b\x08\xe0")) == FileKind::records);  // reserved flag bits
  CHECK(kind_of(signed_file(std::string("\x1f\x8b\x07\x00", 4))) == FileKind::records);  // not deflate
  CHECK(kind_of(signed_file("\x28\xb5\x2f\xfd")) == FileKind::zstd);
  CHECK(kind_of(signed_file(std::string("\xfd" "7zXZ\x00", 6))) == FileKind::xz);
  CHECK(kind_of(signed_file("BZh91AY&SY")) == FileKind::bzip2);
  CHECK(kind_of(signed_file("BZh1\x17\x72\x45\x38\x50\x90")) == FileKind::bzip2);  // empty stream
  CHECK(kind_of(signed_file("BZh01AY&SY")) == FileKind::records);
  CHECK(kind_of(signed_file("BZh9 not a block")) != FileKind::bzip2);
  CHECK(kind_of(signed_file("\x89HDF\r\n\x1a\n")) == FileKind::hdf5);
  CHECK(kind_of(signed_file("ARROW1")) == FileKind::arrow);
  CHECK(kind_of("PAR") == FileKind::records);  // cut short: no signature
  CHECK(kind_of("") == FileKind::records);
}

TEST_CASE("sniff: text lines") {
  CHECK(kind_of("b,2\na,1\nc,3\nd,4\n") == FileKind::text);
  CHECK(kind_of("Z\xc3\xbcrich,1\r\nna\xc3\xafve,2\r\n") == FileKind::text);  // UTF-8, CRLF
  CHECK(kind_of("one line only, no two breaks\n") == FileKind::records);
  CHECK(kind_of("a\nb\nc\nd\n") == FileKind::records);               // under 16 bytes
  CHECK(kind_of(std::string(32, '\n')) == FileKind::records);         // nothing visible
  CHECK(kind_of("b,2\na,1\nc,3\nd,4\n" + std::string(1, '\0')) == FileKind::records);
  CHECK(kind_of("b,2\na,1\nc,3\x01\nd,4\n") == FileKind::records);   // a control byte
  CHECK(kind_of("b,2\na,1\nc,3\xa9\nd,4\n") == FileKind::records);   // a stray continuation byte
  CHECK(kind_of("b,2\na,1\nc,3\xc3(\nd,4\n") == FileKind::records);  // a lead without its continuation
  // A sequence cut by the window's end is allowed; past the window nothing is looked at.
  std::string lines;
  while (lines.size() < kSniffBytes - 1) lines += "line\n";
  lines.resize(kSniffBytes - 1);
  CHECK(kind_of(lines + "\xc3") == FileKind::text);
  CHECK(kind_of(lines.substr(0, kSniffBytes - 1) + "x" + std::string(8, '\0')) == FileKind::text);
}

TEST_CASE("sniff: random keys are records") {
  std::mt19937_64 rng(7);
  for (size_t bytes : {16, 24, 64, 4096, 65536}) {
    for (int i = 0; i < 200; ++i) {
      std::vector<unsigned char> keys(bytes);
      for (unsigned char& b : keys) b = static_cast<unsigned char>(rng());
      const FileKind k = what_file_looks_like(keys.data(), keys.size());
      CHECK(k == FileKind::records);
    }
  }
}

TEST_CASE("sniff: names and advice") {
  CHECK(std::string(file_kind_name(FileKind::gzip)) == "a gzip-compressed file");
  CHECK(file_kind_advice(FileKind::gzip, "f.gz").find("zcat f.gz | gxsort sort -") != std::string::npos);
  CHECK(file_kind_advice(FileKind::gzip, "").find("zcat | gxsort sort -") != std::string::npos);
  CHECK(file_kind_advice(FileKind::text, "t.csv").find("gxsort sort --lines t.csv") != std::string::npos);
  CHECK(file_kind_advice(FileKind::text, "").find("gxsort sort --lines`") != std::string::npos);
  CHECK(file_kind_advice(FileKind::records, "x").empty());
}
