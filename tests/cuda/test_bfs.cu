// GPU BFS: levels equal the sequential BFS exactly; parents form a valid BFS tree.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "../common/graph_fixtures.hpp"
#include "graph/graph.hpp"
#include "sort/record_hash.hpp"

using namespace gxsort;
using namespace gxsort::graph;
using namespace gxsort::graph::test;

namespace {

void check_gpu(const CsrGraph& g, uint64_t source) {
  BfsRun want = bfs_sequential(g, source);
  BfsRun got = bfs_cuda(g, source, "");
  REQUIRE(got.levels.size() == g.n);
  CHECK(got.levels == want.levels);
  CHECK(validate_bfs(g, source, got.levels, got.parents) == "");
  CHECK(got.reached == want.reached);
  CHECK(got.edges_traversed == want.edges_traversed);
}

}  // namespace

TEST_CASE("bfs gpu: PMPP example graph") {
  GPU_TEST_REQUIRE_DEVICE();
  CsrGraph g = csr_from_edges(pmpp_edges(), false, false, false);
  BfsRun r0 = bfs_cuda(g, 0, "");
  CHECK(r0.levels == std::vector<uint32_t>{0, 1, 1, 2, 2, 2, 2, 2, 3});
  CHECK(validate_bfs(g, 0, r0.levels, r0.parents) == "");
  BfsRun r2 = bfs_cuda(g, 2, "");
  CHECK(r2.levels == std::vector<uint32_t>{2, 3, 0, 4, 4, 1, 1, 1, 2});
  CHECK(validate_bfs(g, 2, r2.levels, r2.parents) == "");
}

TEST_CASE("bfs gpu: disconnected graph, self loops, isolated source") {
  GPU_TEST_REQUIRE_DEVICE();
  CsrGraph g = csr_from_edges({{0, 1}, {1, 2}, {2, 2}, {5, 6}, {6, 5}, {3, 3}}, false, true, false, 10);
  for (uint64_t s : {0, 3, 5, 9}) check_gpu(g, s);
  BfsRun iso = bfs_cuda(g, 9, "");
  CHECK(iso.reached == 1);
  CHECK(iso.levels[0] == kUnreached);
}

TEST_CASE("bfs gpu: stars and paths (block, warp and thread expansion; long single-block runs)") {
  GPU_TEST_REQUIRE_DEVICE();
  std::vector<std::pair<uint64_t, uint64_t>> e;
  for (uint64_t v = 1; v < 5000; ++v) e.push_back({0, v});          // block stage
  for (uint64_t v = 5000; v < 5040; ++v) e.push_back({1, v});       // warp stage
  for (uint64_t v = 6000; v < 9000; ++v) e.push_back({v, v + 1});   // a long path
  e.push_back({2, 6000});
  for (bool sym : {false, true}) {
    CsrGraph g = csr_from_edges(e, sym, false, false);
    for (uint64_t s : {0, 1, 6000, 8999}) check_gpu(g, s);
  }
}

TEST_CASE("bfs gpu: random R-MAT and uniform graphs, directed and symmetric, equal the sequential BFS") {
  GPU_TEST_REQUIRE_DEVICE();
  for (unsigned scale : {6u, 10u, 14u, 17u}) {
    for (bool rmat : {true, false}) {
      for (bool sym : {false, true}) {
        CsrGraph g = random_graph(rmat, scale, 16, scale * 7 + rmat, sym);
        for (uint64_t k = 0; k < 3; ++k) {
          uint64_t s = mix64(scale * 131 + k) % g.n;
          INFO("scale " << scale << " rmat " << rmat << " sym " << sym << " source " << s);
          check_gpu(g, s);
        }
      }
    }
  }
}

TEST_CASE("bfs gpu: many sources on one upload agree with single searches") {
  GPU_TEST_REQUIRE_DEVICE();
  CsrGraph g = random_graph(true, 12, 8, 5, true);
  std::vector<uint64_t> src{1, 2, 3, 100};
  auto many = bfs_cuda_many(g, src, "");
  REQUIRE(many.size() == 4);
  for (size_t i = 0; i < src.size(); ++i) CHECK(many[i].reached == bfs_sequential(g, src[i]).reached);
}
