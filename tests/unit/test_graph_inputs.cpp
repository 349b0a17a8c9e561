// graph build's input checks (lib/src/graph/edge_input.hpp): compressed edge lists named,
// quoted line text made printable.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

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

namespace {
std::vector<std::string> fields_of(std::string_view line) {
  std::string_view tok[4];
  const size_t k = graph::edge_line_fields(line, tok, 4);
  std::vector<std::string> out(tok, tok + std::min<size_t>(k, 4));
  if (k > 4) out.push_back("+" + std::to_string(k - 4));
  return out;
}
using Fields = std::vector<std::string>;
}  // namespace

TEST_CASE("graph inputs: the fields of SNAP, TSV and CSV lines; comments and blank lines") {
  CHECK(fields_of("0 1") == Fields{"0", "1"});
  CHECK(fields_of("  0\t 1  ") == Fields{"0", "1"});
  CHECK(fields_of("0,1") == Fields{"0", "1"});
  CHECK(fields_of(" 0 , 1 ") == Fields{"0", "1"});
  CHECK(fields_of("0,,1") == Fields{"0", "", "1"});
  CHECK(fields_of("0,1,") == Fields{"0", "1", ""});
  CHECK(fields_of("src,dst") == Fields{"src", "dst"});
  CHECK(fields_of("1 2 3 4 5 6") == Fields{"1", "2", "3", "4", "+2"});
  CHECK(fields_of("").empty());
  CHECK(fields_of(" \t ").empty());
  CHECK(fields_of("# FromNodeId, ToNodeId").empty());
  CHECK(fields_of("  % comment").empty());
  CHECK(graph::is_edge_line("0 1"));
  CHECK(graph::is_edge_line("12,345"));
  CHECK_FALSE(graph::is_edge_line("src,dst"));
  CHECK_FALSE(graph::is_edge_line("0 1 2"));
  CHECK_FALSE(graph::is_edge_line("0,"));
  CHECK_FALSE(graph::is_edge_line("# 0 1"));
  std::string_view header[2] = {"FromNodeId", "ToNodeId"}, ids[2] = {"0", ""};
  CHECK(graph::has_non_id_field(header, 2));
  CHECK_FALSE(graph::has_non_id_field(ids, 2));
}
