// The graph module on the CPU: CSR building, the parallel BFS against the sequential
// one, BFS tree validation, generators and ingest of every input format.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "../common/test_files.hpp"
#include "../common/graph_fixtures.hpp"
#include "backend/backend.hpp"
#include "graph/graph.hpp"
#include "gxsort/gxsort.hpp"
#include "kernels/record_hash.hpp"

using namespace gxsort;
using namespace gxsort::graph;
using namespace gxsort::graph::test;

namespace {


using gxsort_test::TempDir;

void write_text(const std::string& p, const std::string& s) { std::ofstream(p) << s; }
template <class T>
void write_bin(const std::string& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
EngineOptions cpu_opts(const TempDir& d) {
  EngineOptions o;
  o.device = Device::cpu;
  o.tmp_dirs = {d.path};
  o.fsync = false;
  return o;
}
}  // namespace

TEST_CASE("graph: PMPP example levels, sequential and parallel") {
  CsrGraph g = csr_from_edges(pmpp_edges(), false, false, false);
  CHECK(g.n == 9);
  CHECK(g.m == 15);
  for (unsigned threads : {1u, 4u}) {
    BfsRun r0 = bfs_cpu(g, 0, threads);
    CHECK(r0.levels == std::vector<uint32_t>{0, 1, 1, 2, 2, 2, 2, 2, 3});
    CHECK(validate_bfs(g, 0, r0.levels, r0.parents) == "");
    CHECK(r0.depth == 4);
    CHECK(r0.reached == 9);
    CHECK(r0.edges_traversed == 15);
    BfsRun r2 = bfs_cpu(g, 2, threads);
    CHECK(r2.levels == std::vector<uint32_t>{2, 3, 0, 4, 4, 1, 1, 1, 2});
    CHECK(validate_bfs(g, 2, r2.levels, r2.parents) == "");
  }
  CHECK(bfs_sequential(g, 0).levels == std::vector<uint32_t>{0, 1, 1, 2, 2, 2, 2, 2, 3});
}

TEST_CASE("graph: disconnected graphs, self loops, isolated source") {
  CsrGraph g = csr_from_edges({{0, 1}, {1, 2}, {2, 2}, {5, 6}, {6, 5}}, false, true, false, 10);
  CHECK(g.m == 5);
  BfsRun r = bfs_cpu(g, 0, 4);
  CHECK(r.levels == std::vector<uint32_t>{0, 1, 2, kUnreached, kUnreached, kUnreached, kUnreached, kUnreached, kUnreached, kUnreached});
  CHECK(validate_bfs(g, 0, r.levels, r.parents) == "");
  BfsRun iso = bfs_cpu(g, 9, 4);
  CHECK(iso.reached == 1);
  CHECK(iso.depth == 1);
  CHECK(iso.parents[9] == 9);
  CHECK(validate_bfs(g, 9, iso.levels, iso.parents) == "");
  CsrGraph noloop = csr_from_edges({{0, 1}, {1, 2}, {2, 2}}, false, false, false);
  CHECK(noloop.m == 2);
  CsrGraph dup = csr_from_edges({{0, 1}, {0, 1}, {1, 0}}, false, false, true);
  CHECK(dup.m == 3);
  CHECK(csr_from_edges({{0, 1}, {0, 1}, {1, 0}}, true, false, false).m == 2);
}

TEST_CASE("graph: random graphs: parallel BFS equals sequential; parents valid (Graph500 rules)") {
  for (unsigned scale : {4u, 9u, 13u, 16u}) {
    for (bool rmat : {true, false}) {
      for (bool sym : {false, true}) {
        CsrGraph g = random_graph(rmat, scale, 8, scale + 3 * rmat, sym);
        for (uint64_t k = 0; k < 3; ++k) {
          const uint64_t s = mix64(k * 77 + scale) % g.n;
          BfsRun want = bfs_sequential(g, s);
          BfsRun got = bfs_cpu(g, s, 4);
          INFO("scale " << scale << " rmat " << rmat << " sym " << sym << " source " << s);
          CHECK(got.levels == want.levels);
          CHECK(validate_bfs(g, s, got.levels, got.parents) == "");
          CHECK(got.edges_traversed == want.edges_traversed);
        }
      }
    }
  }
}

TEST_CASE("graph: direction-optimizing CPU BFS takes bottom-up steps and equals the sequential BFS") {
  for (bool rmat : {true, false}) {
    CsrGraph g = random_graph(rmat, 16, 16, 11 + rmat, true);
    uint32_t bottom_up = 0;
    for (uint64_t k = 0; k < 3; ++k) {
      const uint64_t s = mix64(k * 31 + rmat) % g.n;
      BfsRun want = bfs_sequential(g, s);
      for (unsigned threads : {1u, 4u}) {
        BfsRun got = bfs_cpu(g, s, threads);
        INFO("rmat " << rmat << " source " << s << " threads " << threads);
        CHECK(got.levels == want.levels);
        CHECK(validate_bfs(g, s, got.levels, got.parents) == "");
        CHECK(got.edges_traversed == want.edges_traversed);
        bottom_up += got.bottom_up_levels;
      }
      BfsRun td = bfs_cpu(g, s, 4, false);
      CHECK(td.bottom_up_levels == 0);
      CHECK(td.levels == want.levels);
    }
    CHECK(bottom_up > 0);  // the big middle levels went bottom-up
  }
  // Directed graphs stay top-down (bottom-up would need the transpose).
  CsrGraph d = random_graph(true, 14, 16, 5, false);
  BfsRun r = bfs_cpu(d, 1, 4);
  CHECK(r.bottom_up_levels == 0);
  CHECK(r.levels == bfs_sequential(d, 1).levels);
}

namespace {
// The CPU search from `s` on `threads` threads against the sequential one: levels,
// Graph500 validity of the parents, and the summary. Returns its bottom-up levels.
uint32_t check_cpu_bfs(const CsrGraph& g, uint64_t s, unsigned threads, const Context& context = Context()) {
  const BfsRun want = bfs_sequential(g, s);
  const BfsRun got = bfs_cpu(g, s, threads, true, context);
  INFO("n " << g.n << " symmetric " << g.symmetric << " source " << s << " threads " << threads);
  CHECK(got.levels == want.levels);
  CHECK(validate_bfs(g, s, got.levels, got.parents) == "");
  CHECK(got.reached == want.reached);
  CHECK(got.edges_traversed == want.edges_traversed);
  return got.bottom_up_levels;
}

// Sources worth searching from: the highest-degree vertex, a vertex without edges (if
// any), and a few others.
std::vector<uint64_t> test_sources(const CsrGraph& g) {
  std::vector<uint64_t> s{0, g.n / 2, g.n - 1, mix64(g.n) % g.n};
  uint64_t hub = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    if (g.degree(v) > g.degree(hub)) hub = v;
    if (g.degree(v) == 0 && s.size() == 4) s.push_back(v);
  }
  s.push_back(hub);
  return s;
}

// A context with the switch points of both searches overridden (Context::tuning, as the
// CLI fills it from GXSORT_BFS_ALPHA, _BETA and _MINBU).
Context switch_points(const char* alpha, const char* beta, const char* min_bottom_up) {
  Context c;
  c.tuning.bfs_alpha = std::atof(alpha);
  c.tuning.bfs_beta = std::atof(beta);
  c.tuning.bfs_min_bottom_up = std::strtoull(min_bottom_up, nullptr, 10);
  return c;
}
}  // namespace

TEST_CASE("graph: CPU BFS on 1 and 2 threads, directed and symmetric, several sizes, equals the sequential BFS") {
  // n = 1000: a partial last bitmap word and 100 vertices without edges
  std::vector<std::pair<uint64_t, uint64_t>> small;
  for (uint64_t i = 0; i < 4000; ++i) small.push_back({mix64(i) % 900, mix64(i + 12345) % 900});
  for (bool sym : {false, true}) {
    std::vector<CsrGraph> graphs;
    graphs.push_back(csr_from_edges(small, sym, false, false, 1000));
    // 2^15 vertices: one range of claims; 2^17: four, and R-MAT hubs of thousands of
    // edges, expanded in chunks
    for (unsigned scale : {10u, 15u, 17u})
      for (bool rmat : {true, false}) graphs.push_back(random_graph(rmat, scale, 16, scale + 5 * rmat, sym));
    for (const CsrGraph& g : graphs) {
      uint32_t bottom_up = 0;
      for (uint64_t s : test_sources(g))
        for (unsigned threads : {1u, 2u}) bottom_up += check_cpu_bfs(g, s, threads);
      if (!sym) CHECK(bottom_up == 0);
      if (sym && g.n >= (1u << 15)) CHECK(bottom_up > 0);
    }
  }
}

TEST_CASE("graph: CPU BFS with extreme switch points equals the sequential BFS") {
  struct Setting { const char *alpha, *beta, *min_bottom_up; int bottom_up; };  // 1: some bottom-up levels; -1: any
  const Setting settings[] = {
      {"1e9", "1e9", "0", 1},    // bottom-up from the first level to the last
      {"14", "2", "0", -1},      // bottom-up and back to top-down, maybe more than once
      {"14", "1e-9", "0", -1},   // back to top-down as soon as alpha allows
      {"1e-9", "24", "0", -1},   // top-down while unexplored edges remain
      {"14", "24", "256", -1},   // the CPU's own
  };
  for (const Setting& st : settings) {
    const Context context = switch_points(st.alpha, st.beta, st.min_bottom_up);
    for (bool rmat : {true, false}) {
      const CsrGraph g = random_graph(rmat, 14, 16, 7 + rmat, true);
      uint32_t bottom_up = 0;
      for (uint64_t s : test_sources(g)) {
        INFO("alpha " << st.alpha << " beta " << st.beta << " min " << st.min_bottom_up << " rmat " << rmat);
        for (unsigned threads : {1u, 2u}) bottom_up += check_cpu_bfs(g, s, threads, context);
      }
      if (st.bottom_up == 1) CHECK(bottom_up > 0);
    }
  }
}

TEST_CASE("graph: the CPU backend's bfs entry: one search with its arrays, several as summaries") {
  std::unique_ptr<Backend> cpu = make_cpu_backend(4);
  CHECK(cpu->max_bfs_vertices() == UINT64_MAX);  // wide graphs too
  for (bool sym : {false, true}) {
    CsrGraph g = random_graph(true, 12, 8, 21 + sym, sym);
    const std::vector<uint64_t> sources{1, 2, 300};
    for (uint64_t s : sources) {
      const auto one = cpu->bfs(g, {s});
      REQUIRE(one.size() == 1);
      INFO("symmetric " << sym << " source " << s);
      CHECK(one[0].backend == "cpu");
      CHECK(one[0].levels == bfs_sequential(g, s).levels);
      CHECK(validate_bfs(g, s, one[0].levels, one[0].parents) == "");
    }
    const auto many = cpu->bfs(g, sources);
    REQUIRE(many.size() == sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      const BfsRun want = bfs_sequential(g, sources[i]);
      CHECK(many[i].levels.empty());
      CHECK(many[i].parents.empty());
      CHECK(many[i].reached == want.reached);
      CHECK(many[i].depth == want.depth);
      CHECK(many[i].edges_traversed == want.edges_traversed);
    }
  }
}

TEST_CASE("graph: GPU BFS device plan: resident, streamed partitions, too small a budget") {
  const uint64_t n = 1000, m = 100000;
  BfsDevicePlan big = plan_bfs_device(n, m, uint64_t(1) << 30);
  CHECK_FALSE(big.streamed);
  CHECK_FALSE(big.host_mapped);
  CHECK(big.need_bytes == big.in_memory_bytes);
  CHECK(big.in_memory_bytes >= big.resident_bytes + 4 * m);
  CHECK(big.resident_bytes >= 8 * (n + 1) + 16 * n);
  // a quarter of the neighbors: several partitions, within the budget
  for (uint64_t budget : {big.resident_bytes + m, big.resident_bytes + 3 * m, big.in_memory_bytes - 1}) {
    BfsDevicePlan p = plan_bfs_device(n, m, budget);
    INFO("budget " << budget);
    CHECK(p.streamed);
    CHECK(p.host_mapped);  // read in place; the partitions are the fallback
    CHECK(p.need_bytes <= budget);
    CHECK(p.partitions >= 2);
    CHECK(p.partition_edges * p.partitions >= m);
    CHECK(p.partition_edges >= kBfsMinPartitionEdges);
  }
  // the smallest budget that runs, and one byte less
  BfsDevicePlan lo = plan_bfs_device(n, m, big.min_bytes);
  CHECK(lo.streamed);
  CHECK(lo.need_bytes <= big.min_bytes);
  BfsDevicePlan under = plan_bfs_device(n, m, big.min_bytes - 1);
  CHECK(under.need_bytes > big.min_bytes - 1);
  const std::string msg = spell_options(bfs_budget_message(under, big.min_bytes - 1), OptionStyle::cli);
  CHECK(msg.find("at least --device-memory " + std::to_string(big.min_bytes)) != std::string::npos);
  // below the resident arrays
  BfsDevicePlan tiny = plan_bfs_device(n, m, 4096);
  CHECK(tiny.need_bytes > 4096);
  // forced partitions (tests): streamed even when the graph fits
  BfsDevicePlan forced = plan_bfs_device(n, m, uint64_t(1) << 30, 777);
  CHECK(forced.streamed);
  CHECK_FALSE(forced.host_mapped);
  CHECK(forced.partition_edges == 777);
  CHECK(forced.partitions == (m + 776) / 777);
  // no edges
  BfsDevicePlan empty = plan_bfs_device(5, 0, uint64_t(1) << 20);
  CHECK_FALSE(empty.streamed);
}

TEST_CASE("graph: validate_bfs rejects broken trees") {
  CsrGraph g = csr_from_edges(pmpp_edges(), false, false, false);
  BfsRun r = bfs_sequential(g, 0);
  auto p = r.parents;
  p[8] = 5;  // no edge 5 -> 8
  CHECK(validate_bfs(g, 0, r.levels, p) != "");
  auto l = r.levels;
  l[8] = 2;
  CHECK(validate_bfs(g, 0, l, r.parents) != "");
  p = r.parents;
  p[0] = 1;
  CHECK(validate_bfs(g, 0, r.levels, p) != "");
}

TEST_CASE("graph: generators are deterministic and in range") {
  uint64_t s1, d1, s2, d2;
  gen_edge(true, 10, 3, 12345, s1, d1);
  gen_edge(true, 10, 3, 12345, s2, d2);
  CHECK(s1 == s2);
  CHECK(d1 == d2);
  uint64_t deg0 = 0, max_deg = 0;
  std::vector<uint64_t> deg(1 << 12);
  for (uint64_t i = 0; i < (16u << 12); ++i) {
    gen_edge(true, 12, 1, i, s1, d1);
    REQUIRE(s1 < 4096);
    REQUIRE(d1 < 4096);
    deg[s1]++;
  }
  for (uint64_t x : deg) { max_deg = std::max(max_deg, x); deg0 += x == 0; }
  CHECK(max_deg > 16 * 20);  // R-MAT is skewed
  CHECK(deg0 > 100);
}

TEST_CASE("graph build: every input format gives the same CSR") {
  TempDir d;
  EngineOptions o = cpu_opts(d);
  auto e = pmpp_edges();
  e.push_back({3, 3});  // a self loop (dropped)
  e.push_back({0, 1});  // a duplicate
  std::string snap = "# SNAP header\n# FromNodeId ToNodeId\n";
  std::vector<uint32_t> b32;
  std::vector<uint64_t> b64;
  std::string mtx = "%%MatrixMarket matrix coordinate real general\n% comment\n9 9 " + std::to_string(e.size()) + "\n";
  for (auto& x : e) {
    snap += std::to_string(x.first) + "\t" + std::to_string(x.second) + "\n";
    b32.push_back(uint32_t(x.first)); b32.push_back(uint32_t(x.second));
    b64.push_back(x.first); b64.push_back(x.second);
    mtx += std::to_string(x.first + 1) + " " + std::to_string(x.second + 1) + " 1.5\n";
  }
  write_text(d.file("g.txt"), snap);
  write_text(d.file("g.mtx"), mtx);
  write_bin(d.file("g.bin32"), b32);
  write_bin(d.file("g.bin64"), b64);
  GraphBuildOptions gb;
  auto r = graph_build(d.file("g.txt"), d.file("a.csr"), gb, o);
  CHECK(r.vertices == 9);
  CHECK(r.edges == 15);
  CHECK(r.input_edges == 17);
  graph_build(d.file("g.mtx"), d.file("b.csr"), gb, o);
  graph_build(d.file("g.bin32"), d.file("c.csr"), gb, o);
  graph_build(d.file("g.bin64"), d.file("d.csr"), gb, o);
  const std::string a = slurp(d.file("a.csr"));
  CHECK(a.size() == 64 + 8 * 10 + 4 * 15);
  CHECK(slurp(d.file("b.csr")) == a);
  CHECK(slurp(d.file("c.csr")) == a);
  CHECK(slurp(d.file("d.csr")) == a);
  CsrGraph g = read_csr(d.file("a.csr"));
  CsrGraph want = csr_from_edges(pmpp_edges(), false, false, false);
  CHECK(g.offsets == want.offsets);
  CHECK(g.ids32 == want.ids32);
  CHECK(!g.symmetric);
  // a symmetric .mtx equals --symmetrize of its lower triangle
  write_text(d.file("s.mtx"), "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 1\n4 3\n");
  write_text(d.file("s.txt"), "1 0\n2 0\n3 2\n");
  graph_build(d.file("s.mtx"), d.file("s1.csr"), gb, o);
  GraphBuildOptions sym = gb;
  sym.symmetrize = true;
  graph_build(d.file("s.txt"), d.file("s2.csr"), sym, o);
  CHECK(slurp(d.file("s1.csr")) == slurp(d.file("s2.csr")));
  CHECK(read_csr(d.file("s1.csr")).symmetric);
  CHECK(read_csr(d.file("s1.csr")).m == 6);
  // --keep-duplicates and --keep-self-loops
  GraphBuildOptions keep = gb;
  keep.keep_duplicates = true;
  keep.keep_self_loops = true;
  CHECK(graph_build(d.file("g.txt"), d.file("k.csr"), keep, o).edges == 17);
}

TEST_CASE("graph build: bad input is one clear error with its line, nothing written") {
  TempDir d;
  EngineOptions o = cpu_opts(d);
  GraphBuildOptions gb;
  auto expect_error = [&](const std::string& name, const std::string& content, const std::string& want) {
    write_text(d.file(name), content);
    std::string msg;
    try {
      graph_build(d.file(name), d.file("out.csr"), gb, o);
    } catch (const Error& e) {
      msg = e.what();
      CHECK(e.code() == ExitCode::usage);
    }
    INFO(msg);
    CHECK(msg.find(want) != std::string::npos);
    CHECK(access(d.file("out.csr").c_str(), F_OK) != 0);
  };
  expect_error("a.txt", "# c\n0 1\n1 x\n", "a.txt:3:");
  expect_error("b.txt", "0 1\n1 2 3\n", "b.txt:2: expected two vertex ids");
  expect_error("c.txt", "0 -1\n", "c.txt:1:");
  expect_error("d.mtx", "%%MatrixMarket matrix array real general\n3 3\n1\n", "d.mtx:1: not a coordinate");
  expect_error("e.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n", "e.mtx:4: row index 4 is out of range");
  expect_error("f.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n", "expected 3 entries, found 1");
  expect_error("g.mtx", "just text\n", "g.mtx:1: not a Matrix Market file");
  write_bin(d.file("h.bin32"), std::vector<uint32_t>{1, 2, 3, 0xFFFFFFFFu});
  std::string msg;
  try { graph_build(d.file("h.bin32"), d.file("out.csr"), gb, o); } catch (const Error& e) { msg = e.what(); }
  CHECK(msg.find("out of range for bin32") != std::string::npos);
  write_bin(d.file("i.bin32"), std::vector<uint32_t>{1, 2, 3});
  msg.clear();
  try { graph_build(d.file("i.bin32"), d.file("out.csr"), gb, o); } catch (const Error& e) { msg = e.what(); }
  CHECK(msg.find("not a multiple of 8") != std::string::npos);
  CHECK(access(d.file("out.csr").c_str(), F_OK) != 0);
}

TEST_CASE("graph build + bfs_file: levels and parents files") {
  TempDir d;
  EngineOptions o = cpu_opts(d);
  std::string snap;
  for (auto& x : pmpp_edges()) snap += std::to_string(x.first) + " " + std::to_string(x.second) + "\n";
  write_text(d.file("p.txt"), snap);
  graph_build(d.file("p.txt"), d.file("p.csr"), GraphBuildOptions(), o);
  BfsOptions b;
  b.source = 2;
  b.levels_output = d.file("lv");
  b.parents_output = d.file("par");
  BfsResult r = bfs_file(d.file("p.csr"), b, o);
  REQUIRE(r.searches.size() == 1);
  CHECK(r.searches[0].reached == 9);
  CHECK(r.searches[0].depth == 5);
  std::string lv = slurp(d.file("lv"));
  REQUIRE(lv.size() == 36);
  std::vector<uint32_t> levels(9), par32(9);
  std::memcpy(levels.data(), lv.data(), 36);
  CHECK(levels == std::vector<uint32_t>{2, 3, 0, 4, 4, 1, 1, 1, 2});
  std::string ps = slurp(d.file("par"));
  REQUIRE(ps.size() == 36);
  std::memcpy(par32.data(), ps.data(), 36);
  std::vector<uint64_t> par(par32.begin(), par32.end());
  CsrGraph g = read_csr(d.file("p.csr"));
  CHECK(validate_bfs(g, 2, levels, par) == "");
  // --device auto: the backend make_backend picks (the CPU without a GPU), same levels.
  o.device = Device::automatic;
  bfs_file(d.file("p.csr"), b, o);
  CHECK(slurp(d.file("lv")) == lv);
  BfsOptions random;
  random.random_sources = 3;
  BfsResult many = bfs_file(d.file("p.csr"), random, o);
  CHECK(many.searches.size() == 3);
  o.device = Device::cpu;
  b.source = 9;
  CHECK_THROWS_AS(bfs_file(d.file("p.csr"), b, o), Error);
}
