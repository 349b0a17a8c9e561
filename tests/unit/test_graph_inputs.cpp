// graph build's input checks (lib/src/graph/edge_input.hpp): compressed edge lists named,
// quoted line text made printable.
#include <doctest/doctest.h>

#include <string>

#include "graph/edge_input.hpp"

using namespace gxsort;

namespace {
std::string message_for(const std::string& head) {
  return graph::compressed_edges_message("e.txt", reinterpret_cast<const unsigned char*>(head.data()), head.size());
}
}  // namespace

TEST_CASE("graph inputs: compressed edge lists are named, with the tool that decompresses them") {
  CHECK(message_for(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8)) ==
        "e.txt: a gzip-compressed file; decompress it first (zcat e.txt | gxsort graph build - ...)");
  CHECK(message_for(std::string("\x28\xb5\x2f\xfd\x20\x10", 6)).find("a zstd-compressed file; decompress it first (zstdcat e.txt |") !=
        std::string::npos);
  CHECK(message_for(std::string("\xfd\x37\x7a\x58\x5a\x00\x00", 7)).find("an xz-compressed file") != std::string::npos);
  CHECK(message_for("BZh91AY&SY").find("(bzcat e.txt |") != std::string::npos);
  CHECK(graph::compressed_edges_message("stdin", reinterpret_cast<const unsigned char*>("\x1f\x8b\x08\x00"), 4) ==
        "stdin: a gzip-compressed file; decompress it first (zcat | gxsort graph build - ...)");
  // Text, binary ids, a .npy, a zip, too few bytes: not refused here.
  CHECK(message_for("0 1\n1 2\n2 3\n3 4\n4 5\n").empty());
  CHECK(message_for(std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8)).empty());
  CHECK(message_for("PK\x03\x04").empty());
  CHECK(message_for("\x1f\x8b").empty());
  CHECK(message_for("").empty());
}

TEST_CASE("graph inputs: quoted line text is printable ASCII, cut at its limit") {
  CHECK(graph::quoted_bytes("1 two") == "1 two");
  CHECK(graph::quoted_bytes(std::string("\x1f\x8b\x08\x00 \t\x7f\xff", 8)) == "\\x1f\\x8b\\x08\\x00 \\x09\\x7f\\xff");
  CHECK(graph::quoted_bytes("abcdef", 3) == "abc...");
  CHECK(graph::quoted_bytes("abc", 3) == "abc");
}
