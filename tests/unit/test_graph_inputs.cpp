// graph build's inputs (lib/src/graph/edge_input.hpp): compressed edge lists named, quoted
// line text made printable, the fields of text lines; --renumber (graph/renumber.hpp) and
// the id map (graph/graph_files.hpp), through graph_build and bfs_file too.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "graph/edge_bytes.hpp"
#include "graph/edge_input.hpp"
#include "graph/graph.hpp"
#include "graph/graph_files.hpp"
#include "graph/renumber.hpp"
#include "gxsort/gxsort.hpp"

using namespace gxsort;

namespace {
std::string message_for(const std::string& head) {
  return graph::compressed_edges_message("e.txt", reinterpret_cast<const unsigned char*>(head.data()), head.size());
}
}  // namespace

TEST_CASE("graph inputs: compressed edge lists are named, with the tool that decompresses them") {
  // gzip is read (graph/edge_bytes.hpp) where gxsort has zlib, else refused as the others
  CHECK(message_for(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8)) ==
        (graph::reads_gzip() ? "" : "e.txt: a gzip-compressed file; decompress it first (zcat e.txt | gxsort graph build - ...)"));
  CHECK(message_for(std::string("\x28\xb5\x2f\xfd\x20\x10", 6)).find("a zstd-compressed file; decompress it first (zstdcat e.txt |") !=
        std::string::npos);
  CHECK(message_for(std::string("\xfd\x37\x7a\x58\x5a\x00\x00", 7)).find("an xz-compressed file") != std::string::npos);
  CHECK(message_for("BZh91AY&SY").find("(bzcat e.txt |") != std::string::npos);
  CHECK(graph::compressed_edges_message("stdin", reinterpret_cast<const unsigned char*>("\xfd\x37\x7a\x58\x5a\x00"), 6) ==
        "stdin: an xz-compressed file; decompress it first (xzcat | gxsort graph build - ...)");
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

TEST_CASE("graph renumber: first-seen and sorted numbering, edges relabelled") {
  graph::Renumbering r;
  r.ids = {3, 40, 10000000000ull, ~uint64_t(0)};  // ascending
  CHECK(r.of(3) == 0);
  CHECK(r.of(~uint64_t(0)) == 3);  // sorted: the rank
  // first seen: 10^10 at position 0, 2^64-1 at 1, 3 at 4, 40 at 7
  const std::vector<uint64_t> map = graph::number_first_seen(r, {4, 7, 0, 1});
  CHECK(map == std::vector<uint64_t>{10000000000ull, ~uint64_t(0), 3, 40});
  CHECK(r.new_id == std::vector<uint64_t>{2, 3, 0, 1});
  for (uint64_t k = 0; k < map.size(); ++k) CHECK(r.of(map[k]) == k);
  uint64_t records[4] = {__builtin_bswap64(10000000000ull), __builtin_bswap64(40), __builtin_bswap64(~uint64_t(0)),
                         __builtin_bswap64(3)};
  graph::relabel_edges(reinterpret_cast<unsigned char*>(records), 2, r);
  CHECK(__builtin_bswap64(records[0]) == 0);
  CHECK(__builtin_bswap64(records[1]) == 3);
  CHECK(__builtin_bswap64(records[2]) == 1);
  CHECK(__builtin_bswap64(records[3]) == 2);
  graph::Renumbering none;
  CHECK(graph::number_first_seen(none, {}).empty());
}

namespace {
std::string slurp_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

TEST_CASE("graph renumber: graph_build and bfs_file through the library; the map tied to its CSR") {
  gxsort_test::TempDir d;
  EngineOptions o;
  o.device = Device::cpu;
  o.tmp_dirs = {d.path};
  o.fsync = false;
  std::ofstream(d.file("e.txt")) << "900 7\n7 18446744073709551615\n5 5\n";
  GraphBuildOptions g;
  g.renumber = Renumber::first_seen;
  const GraphBuildResult res = graph_build(d.file("e.txt"), d.file("g.csr"), g, o);
  CHECK(res.vertices == 4);  // 5 only in a dropped self loop still counts, as without --renumber
  CHECK(res.edges == 2);
  CHECK(res.ids_output == d.file("g.csr.ids"));
  const std::string ids = slurp_file(d.file("g.csr.ids"));
  REQUIRE(ids.size() == 32);
  std::vector<uint64_t> map(4);
  std::memcpy(map.data(), ids.data(), 32);
  CHECK(map == std::vector<uint64_t>{900, 7, ~uint64_t(0), 5});
  const graph::CsrGraph csr = graph::read_csr(d.file("g.csr"));
  CHECK(csr.renumbered);
  CHECK(csr.ids_hash == graph::id_map_hash(map));
  CHECK(graph::read_id_map(d.file("g.csr.ids"), "g.csr", 4, csr.ids_hash) == map);
  CHECK_THROWS_AS(graph::read_id_map(d.file("g.csr.ids"), "g.csr", 4, csr.ids_hash + 1), Error);
  CHECK_THROWS_AS(graph::read_id_map(d.file("g.csr.ids"), "g.csr", 3, csr.ids_hash), Error);
  BfsOptions b;
  b.source = 900;
  b.levels_output = d.file("lv.npy");
  const BfsResult r = bfs_file(d.file("g.csr"), b, o);
  REQUIRE(r.searches.size() == 1);
  CHECK(r.searches[0].source == 900);
  CHECK(r.searches[0].reached == 3);
  const std::string lv = slurp_file(d.file("lv.npy"));
  REQUIRE(lv.size() == 128 + 16);
  CHECK(lv.compare(0, 6, "\x93NUMPY") == 0);
  std::vector<uint32_t> levels(4);
  std::memcpy(levels.data(), lv.data() + 128, 16);
  CHECK(levels == std::vector<uint32_t>{0, 1, 2, graph::kUnreached});
  b.source = 1;  // a CSR vertex number, not an original id
  CHECK_THROWS_AS(bfs_file(d.file("g.csr"), b, o), Error);
}
