// GPU BFS: levels equal the sequential BFS exactly; parents form a valid BFS tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "../common/graph_fixtures.hpp"
#include "cuda_backend.cuh"
#include "graph/bfs_cuda.cuh"
#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "kernels/record_hash.hpp"

using namespace gxsort;
using namespace gxsort::graph;
using namespace gxsort::graph::test;

namespace {

// The BFS knobs of a case (Context::tuning, as the CLI fills them from GXSORT_BFS_*).
Tuning g_tuning;

// Searches on the CUDA backend (the door `gxsort bfs` takes) with the knobs of g_tuning;
// `part_edges` > 0 forces the neighbors to stream in partitions of that many edges, which
// only the device search itself takes. A case makes one backend of the default budget and
// searches on it: reserving and freeing that arena (80% of free memory) took about 0.3 s,
// more than most searches here.
std::vector<BfsRun> gpu_bfs_many(cuda::CudaBackend& backend, const CsrGraph& g, const std::vector<uint64_t>& sources,
                                 uint64_t part_edges = 0) {
  Context context;
  context.tuning = g_tuning;
  backend.set_context(context);
  if (part_edges) return bfs_on_device(backend.memory(), g, sources, part_edges);
  return backend.bfs(g, sources);
}

// The same on a backend of its own, its arena sized by `budget` (--device-memory).
std::vector<BfsRun> gpu_bfs_many(const CsrGraph& g, const std::vector<uint64_t>& sources, const SizeOption& budget,
                                 uint64_t part_edges = 0) {
  cuda::CudaBackend backend(0, budget);
  return gpu_bfs_many(backend, g, sources, part_edges);
}

BfsRun gpu_bfs(cuda::CudaBackend& backend, const CsrGraph& g, uint64_t source) {
  return std::move(gpu_bfs_many(backend, g, {source})[0]);
}

BfsRun gpu_bfs(const CsrGraph& g, uint64_t source, const SizeOption& budget) {
  return std::move(gpu_bfs_many(g, {source}, budget)[0]);
}

void check_gpu(cuda::CudaBackend& backend, const CsrGraph& g, uint64_t source) {
  BfsRun want = bfs_sequential(g, source);
  BfsRun got = gpu_bfs(backend, g, source);
  REQUIRE(got.levels.size() == g.n);
  CHECK(got.levels == want.levels);
  CHECK(validate_bfs(g, source, got.levels, got.parents) == "");
  CHECK(got.reached == want.reached);
  CHECK(got.edges_traversed == want.edges_traversed);
}

// The neighbors out of device memory: streamed in partitions of at most `part_edges`
// edges (forced, or from a small `budget` with Tuning::bfs_copy_partitions), or read in place
// from pinned host memory (a small `budget`): levels, counts and the tree as in memory.
// `backend`: the case's own, or null for one of `budget`.
BfsRun check_streamed(cuda::CudaBackend* backend, const CsrGraph& g, uint64_t source, uint64_t part_edges,
                      const SizeOption& budget = SizeOption{}, bool host_mapped = false) {
  BfsRun want = bfs_sequential(g, source);
  BfsRun got = std::move((backend ? gpu_bfs_many(*backend, g, {source}, part_edges)
                                  : gpu_bfs_many(g, {source}, budget, part_edges))[0]);
  REQUIRE(got.levels.size() == g.n);
  CHECK(got.levels == want.levels);
  CHECK(validate_bfs(g, source, got.levels, got.parents) == "");
  CHECK(got.reached == want.reached);
  CHECK(got.edges_traversed == want.edges_traversed);
  CHECK(got.neighbors_host_mapped == host_mapped);
  if (host_mapped) CHECK(got.partitions_streamed == 0);
  else if (g.degree(source) > 0) CHECK(got.partitions_streamed > 0);  // an isolated source copies nothing
  return got;
}

}  // namespace

TEST_CASE("bfs gpu: PMPP example graph") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  CsrGraph g = csr_from_edges(pmpp_edges(), false, false, false);
  BfsRun r0 = gpu_bfs(backend, g, 0);
  CHECK(r0.levels == std::vector<uint32_t>{0, 1, 1, 2, 2, 2, 2, 2, 3});
  CHECK(validate_bfs(g, 0, r0.levels, r0.parents) == "");
  BfsRun r2 = gpu_bfs(backend, g, 2);
  CHECK(r2.levels == std::vector<uint32_t>{2, 3, 0, 4, 4, 1, 1, 1, 2});
  CHECK(validate_bfs(g, 2, r2.levels, r2.parents) == "");
}

TEST_CASE("bfs gpu: disconnected graph, self loops, isolated source") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  CsrGraph g = csr_from_edges({{0, 1}, {1, 2}, {2, 2}, {5, 6}, {6, 5}, {3, 3}}, false, true, false, 10);
  for (uint64_t s : {0, 3, 5, 9}) check_gpu(backend, g, s);
  BfsRun iso = gpu_bfs(backend, g, 9);
  CHECK(iso.reached == 1);
  CHECK(iso.levels[0] == kUnreached);
}

TEST_CASE("bfs gpu: stars and paths (block, warp and thread expansion; long single-block runs)") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  std::vector<std::pair<uint64_t, uint64_t>> e;
  for (uint64_t v = 1; v < 5000; ++v) e.push_back({0, v});          // block stage
  for (uint64_t v = 5000; v < 5040; ++v) e.push_back({1, v});       // warp stage
  for (uint64_t v = 6000; v < 9000; ++v) e.push_back({v, v + 1});   // a long path
  e.push_back({2, 6000});
  for (bool sym : {false, true}) {
    CsrGraph g = csr_from_edges(e, sym, false, false);
    for (uint64_t s : {0, 1, 6000, 8999}) check_gpu(backend, g, s);
  }
}

namespace {
// Random graphs of these scales, R-MAT and uniform, directed and symmetric: three sources
// each equal the sequential BFS.
void check_random_graphs(std::initializer_list<unsigned> scales) {
  cuda::CudaBackend backend(0, SizeOption{});
  for (unsigned scale : scales) {
    for (bool rmat : {true, false}) {
      for (bool sym : {false, true}) {
        CsrGraph g = random_graph(rmat, scale, 16, scale * 7 + rmat, sym);
        for (uint64_t k = 0; k < 3; ++k) {
          uint64_t s = mix64(scale * 131 + k) % g.n;
          INFO("scale " << scale << " rmat " << rmat << " sym " << sym << " source " << s);
          check_gpu(backend, g, s);
        }
      }
    }
  }
}
}  // namespace

TEST_CASE("bfs gpu: random R-MAT and uniform graphs, directed and symmetric, equal the sequential BFS") {
  GPU_TEST_REQUIRE_DEVICE();
  check_random_graphs({6u, 10u, 14u});
}

TEST_CASE("bfs gpu: random R-MAT and uniform graphs up to scale 17 (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_random_graphs({6u, 10u, 14u, 17u});
}

// The switch points and the bottom-up kernel are tunable from the environment (bfs_cuda.cu):
// at every setting, and on both bottom-up kernels, levels equal the sequential BFS. The
// graphs, their sources and the sequential levels are made once, the settings run on each.
TEST_CASE("bfs gpu: direction switch points and bottom-up kernels (bitmap, level array)") {
  GPU_TEST_REQUIRE_DEVICE();
  struct Setting {
    const char *alpha, *beta, *bu;
    bool bottom_up;  // bottom-up levels must be taken
  };
  const Setting settings[] = {
      {"1e9", "1e9", "bitmap", true},  // bottom-up as soon as the frontier is large, to the end
      {"1e9", "2", "bitmap", true},    // back to top-down (bitmap -> queue) right after
      {"1e9", "2", "lev", true},
      {"14", "24", "lev", true},
      {"1e-6", "24", "bitmap", false},  // top-down while unexplored edges remain
  };
  cuda::CudaBackend backend(0, SizeOption{});
  for (unsigned scale : {13u, 16u}) {
    for (bool rmat : {true, false}) {
      CsrGraph g = random_graph(rmat, scale, 16, scale * 3 + rmat, true);
      std::vector<uint64_t> sources;
      std::vector<BfsRun> wants;
      for (uint64_t k = 0; k < 3; ++k) {
        uint64_t s = mix64(scale * 71 + k) % g.n;
        while (g.degree(s) == 0) s = (s + 1) % g.n;
        sources.push_back(s);
        wants.push_back(bfs_sequential(g, s));
      }
      std::vector<uint64_t> many_reached;  // of sources 1, 2, 3
      for (uint64_t s = 1; s <= 3; ++s) many_reached.push_back(bfs_sequential(g, s).reached);
      for (const Setting& st : settings) {
        g_tuning = Tuning();
        g_tuning.bfs_alpha = std::atof(st.alpha);
        g_tuning.bfs_beta = std::atof(st.beta);
        g_tuning.bfs_bitmap = std::string(st.bu) != "lev";
        uint64_t bu_levels = 0;
        for (size_t k = 0; k < sources.size(); ++k) {
          const uint64_t s = sources[k];
          INFO("alpha " << st.alpha << " beta " << st.beta << " " << st.bu << " scale " << scale << " rmat " << rmat << " source " << s);
          BfsRun got = gpu_bfs(backend, g, s);
          CHECK(got.levels == wants[k].levels);
          CHECK(validate_bfs(g, s, got.levels, got.parents) == "");
          bu_levels += got.bottom_up_levels;
        }
        if (scale == 16 && st.bottom_up) CHECK(bu_levels > 0);
        // several searches on one upload: each starts from clean levels (parents are not reset)
        auto many = gpu_bfs_many(backend, g, {1, 2, 3});
        for (size_t i = 0; i < many.size(); ++i) CHECK(many[i].reached == many_reached[i]);
      }
    }
  }
  g_tuning = Tuning();
}

TEST_CASE("bfs gpu: many sources on one upload agree with single searches") {
  GPU_TEST_REQUIRE_DEVICE();
  CsrGraph g = random_graph(true, 12, 8, 5, true);
  std::vector<uint64_t> src{1, 2, 3, 100};
  auto many = gpu_bfs_many(g, src, SizeOption{});
  REQUIRE(many.size() == 4);
  for (size_t i = 0; i < src.size(); ++i) CHECK(many[i].reached == bfs_sequential(g, src[i]).reached);
}

// ---- neighbors streamed in partitions (out of device memory) ----
// Partitions are ranges of edges: with tiny partitions a vertex's list spans several,
// and each partition's launch expands its part of it.

TEST_CASE("bfs gpu streamed: PMPP example graph, partitions of 1, 2, 3 and 15 edges") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  CsrGraph g = csr_from_edges(pmpp_edges(), false, false, false);
  for (uint64_t pe : {1, 2, 3, 15}) {
    INFO("partition edges " << pe);
    BfsRun r0 = check_streamed(&backend, g, 0, pe);
    CHECK(r0.levels == std::vector<uint32_t>{0, 1, 1, 2, 2, 2, 2, 2, 3});
    BfsRun r2 = check_streamed(&backend, g, 2, pe);
    CHECK(r2.levels == std::vector<uint32_t>{2, 3, 0, 4, 4, 1, 1, 1, 2});
  }
}

TEST_CASE("bfs gpu streamed: disconnected graph, self loops, isolated source") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  CsrGraph g = csr_from_edges({{0, 1}, {1, 2}, {2, 2}, {5, 6}, {6, 5}, {3, 3}}, false, true, false, 10);
  for (uint64_t pe : {1, 2, 4})
    for (uint64_t s : {0, 3, 5, 9}) check_streamed(&backend, g, s, pe);
  BfsRun iso = std::move(gpu_bfs_many(backend, g, {9}, 2)[0]);
  CHECK(iso.reached == 1);
  CHECK(iso.partitions_streamed == 0);  // no frontier vertex has an edge: nothing copied
}

TEST_CASE("bfs gpu streamed: stars and a path, hubs split over many partitions") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  std::vector<std::pair<uint64_t, uint64_t>> e;
  for (uint64_t v = 1; v < 5000; ++v) e.push_back({0, v});
  for (uint64_t v = 5000; v < 5040; ++v) e.push_back({1, v});
  for (uint64_t v = 6000; v < 9000; ++v) e.push_back({v, v + 1});
  e.push_back({2, 6000});
  for (bool sym : {false, true}) {
    CsrGraph g = csr_from_edges(e, sym, false, false);
    for (uint64_t pe : {64, 1000, 4999})
      for (uint64_t s : {0, 1, 6000}) check_streamed(&backend, g, s, pe);
  }
}

TEST_CASE("bfs gpu streamed: random graphs, directed and symmetric, equal the sequential BFS") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  for (unsigned scale : {8u, 12u, 15u}) {
    for (bool rmat : {true, false}) {
      for (bool sym : {false, true}) {
        CsrGraph g = random_graph(rmat, scale, 16, scale * 5 + rmat, sym);
        for (uint64_t pe : {std::max<uint64_t>(97, g.m / 300), g.m / 7 + 1}) {  // ~300 and 7 partitions
          uint64_t s = mix64(scale * 17 + pe) % g.n;
          while (g.degree(s) == 0) s = (s + 1) % g.n;  // R-MAT has isolated vertices
          INFO("scale " << scale << " rmat " << rmat << " sym " << sym << " source " << s << " partition edges " << pe);
          BfsRun r = check_streamed(&backend, g, s, pe);
          if (sym && scale == 15) CHECK(r.bottom_up_levels > 0);  // bottom-up levels stream every partition
        }
      }
    }
  }
}

TEST_CASE("bfs gpu streamed: a small --device-memory reads host memory in place (or streams); below the minimum is one clear error") {
  GPU_TEST_REQUIRE_DEVICE();
  CsrGraph g = random_graph(true, 14, 16, 3, true);
  const BfsDevicePlan fits = plan_bfs_device(g.n, g.m, uint64_t(1) << 40);
  REQUIRE_FALSE(fits.streamed);
  // a quarter of the neighbor array beside the resident arrays; then the smallest budget;
  // the neighbors read in place from pinned host memory, then (bfs_copy_partitions,
  // the way where pinning is refused) streamed in the plan's partitions
  for (bool copy : {false, true}) {
    g_tuning = Tuning();
    if (copy) g_tuning.bfs_copy_partitions = true;
    for (uint64_t budget : {fits.resident_bytes + g.m, fits.min_bytes}) {
      const BfsDevicePlan p = plan_bfs_device(g.n, g.m, budget);
      REQUIRE(p.streamed);
      REQUIRE(p.host_mapped);
      REQUIRE(p.partitions > 2);
      INFO("budget " << budget << " partitions " << p.partitions << (copy ? " copied" : " mapped"));
      for (uint64_t s : {uint64_t(1), uint64_t(777)})
        check_streamed(nullptr, g, s, 0, parse_size_option(std::to_string(budget), "--device-memory"), !copy);
    }
    // many sources on one upload
    auto many = gpu_bfs_many(g, {1, 2, 3}, parse_size_option(std::to_string(fits.min_bytes), "--device-memory"));
    for (size_t i = 0; i < many.size(); ++i) {
      CHECK(many[i].reached == bfs_sequential(g, i + 1).reached);
      CHECK(many[i].neighbors_host_mapped == !copy);
    }
    g_tuning = Tuning();
  }
  try {
    gpu_bfs(g, 1, parse_size_option(std::to_string(fits.min_bytes - 256), "--device-memory"));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("at least --device-memory " + std::to_string(fits.min_bytes)) != std::string::npos);
  }
}

TEST_CASE("bfs gpu: the backend takes graphs of fewer than 2^32 vertices; one search keeps its arrays, several do not") {
  GPU_TEST_REQUIRE_DEVICE();
  cuda::CudaBackend backend(0, SizeOption{});
  CHECK(backend.max_bfs_vertices() == UINT32_MAX);
  CsrGraph g = random_graph(true, 10, 8, 11, true);
  const auto one = backend.bfs(g, {1});
  REQUIRE(one.size() == 1);
  CHECK(one[0].backend == "cuda");
  CHECK(validate_bfs(g, 1, one[0].levels, one[0].parents) == "");
  const auto many = backend.bfs(g, {1, 2});
  REQUIRE(many.size() == 2);
  CHECK(many[0].levels.empty());
  CHECK(many[0].parents.empty());
  CHECK(many[0].reached == one[0].reached);
  CHECK(backend.memory().in_use() == 0);  // everything went back to the arena
}
