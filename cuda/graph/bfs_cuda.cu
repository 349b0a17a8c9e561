// The CUDA BFS driver: level-synchronous and direction-optimizing (Beamer) on symmetric
// graphs; the kernels are in bfs_kernels.cu.
//   - while the frontier is small, one block of 1024 threads runs level after level in a
//     single launch (no launch and no host round trip per level);
//   - on symmetric graphs, bottom-up steps (every unvisited vertex looks for a parent in
//     the frontier) when the frontier's edges exceed the unexplored edges / alpha, and
//     back to top-down when the frontier has fewer than n / beta vertices.
// Device memory comes from one DeviceMemory arena, laid out as plan_bfs_device says.
// When the neighbor array does not fit beside the resident arrays, it is streamed in
// partitions on every level (bfs_stream.cuh): top-down levels copy only the partitions
// holding an edge of a frontier vertex, bottom-up levels copy them all; the single-block
// kernel is not used then (it needs every neighbor on the device). Levels equal the
// CPU's either way; parents may differ but form a valid BFS tree.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "graph/bfs_kernels.cuh"
#include "graph/bfs_stream.cuh"
#include "graph/direction.hpp"
#include "graph/graph.hpp"
#include "pinned_pool.cuh"

namespace gxsort {
bool cuda_device_usable();  // cuda/backend_factory.cu
}

namespace gxsort::graph {
namespace {

using kernels::BfsPolicy;
using kernels::ull;
static_assert(cuda::DeviceMemory::kAlignment == 256, "plan_bfs_device assumes 256-byte arena blocks");
static_assert(sizeof(kernels::SingleState) == 32, "plan_bfs_device counts a 32-byte single-block state");

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The direction switch points and the bottom-up kernel, overridable from the environment
// for tuning runs (tools/bench/bfs_bench.sh): GXSORT_BFS_ALPHA, GXSORT_BFS_BETA,
// GXSORT_BFS_BU=lev (the level-array bottom-up kernel in memory too, as when streamed);
// GXSORT_BFS_PROFILE=1 prints every level's mode, frontier and time to stderr.
struct Tuning {
  DirectionSwitch dir;
  bool bitmap = true, profile = false;
  static Tuning from_env() {
    Tuning t;
    if (const char* e = std::getenv("GXSORT_BFS_ALPHA")) t.dir.alpha = std::max(1e-9, std::atof(e));
    if (const char* e = std::getenv("GXSORT_BFS_BETA")) t.dir.beta = std::max(1e-9, std::atof(e));
    if (const char* e = std::getenv("GXSORT_BFS_BU")) t.bitmap = std::string(e) != "lev";
    if (const char* e = std::getenv("GXSORT_BFS_PROFILE")) t.profile = *e && *e != '0';
    return t;
  }
};

// One search's level loop over resident arrays; the neighbors are either resident
// (`whole`) or streamed (`stream`).
struct Search {
  const CsrGraph& g;
  kernels::BfsArrays a;
  uint32_t* qa;
  uint32_t* qb;
  kernels::SingleState* st;
  kernels::EdgeWindow whole;       // valid when stream is null
  NeighborStream* stream;
  unsigned bu_blocks;
  Tuning tune;
  // Pinned: a device-to-host copy into pageable memory costs a staging copy and a
  // synchronous call on every level.
  HostBuffer host = cuda::allocate_pinned(sizeof(kernels::SingleState) + 16);
  kernels::SingleState* host_st() { return reinterpret_cast<kernels::SingleState*>(host.data()); }
  ull* host_cnt() { return reinterpret_cast<ull*>(host.data() + sizeof(kernels::SingleState)); }

  void counters_zero() { GXSORT_CUDA_CHECK(cudaMemsetAsync(a.cnt, 0, 16, 0)); }
  void counters_read(ull c[2]) {
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host_cnt(), a.cnt, 16, cudaMemcpyDeviceToHost, 0));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(0));
    c[0] = host_cnt()[0];
    c[1] = host_cnt()[1];
  }

  void bottom_up(uint32_t level) {
    if (!stream) { kernels::launch_bottom_up(a, whole, 0, g.n, level, bu_blocks, 0); return; }
    std::vector<uint64_t> all(stream->partitions());
    for (uint64_t p = 0; p < all.size(); ++p) all[p] = p;
    stream->run(all, [&](const kernels::EdgeWindow& w, uint64_t p, cudaStream_t s) {
      kernels::launch_bottom_up(a, w, stream->first_vertex(p), stream->end_vertex(p), level, bu_blocks, s);
    });
  }

  void top_down(const uint32_t* q_in, uint32_t n_f, ull m_f, uint32_t* q_out, uint32_t level) {
    if (!stream) { kernels::launch_top_down(a, whole, q_in, n_f, m_f, q_out, level + 1, 0); return; }
    const uint64_t np = stream->partitions();
    if (np == 0) return;
    std::vector<unsigned char> flags(np);
    GXSORT_CUDA_CHECK(cudaMemset(stream->device_flags(), 0, np));
    kernels::launch_mark_partitions(a.off, q_in, n_f, stream->part_edges(), stream->device_flags(), 0);
    GXSORT_CUDA_CHECK(cudaMemcpy(flags.data(), stream->device_flags(), np, cudaMemcpyDeviceToHost));
    std::vector<uint64_t> need;
    for (uint64_t p = 0; p < np; ++p)
      if (flags[p]) need.push_back(p);
    stream->run(need, [&](const kernels::EdgeWindow& w, uint64_t, cudaStream_t s) {
      kernels::launch_top_down(a, w, q_in, n_f, m_f, q_out, level + 1, s);
    });
  }

  uint32_t bottom_up_levels = 0;
  struct Step {
    const char* mode;
    uint32_t level;
    uint64_t n_f, m_f;
    double s;
  };
  std::vector<Step> steps;  // filled when tune.profile

  // Parents of unreached vertices are left undefined (the caller maps them by level).
  void run(uint32_t source) {
    bottom_up_levels = 0;
    steps.clear();
    const uint32_t n = uint32_t(g.n);
    double t = tune.profile ? now_s() : 0;
    auto step = [&](const char* mode, uint32_t lv, uint64_t nf, uint64_t mf) {
      if (!tune.profile) return;
      GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
      const double t1 = now_s();
      steps.push_back({mode, lv, nf, mf, t1 - t});
      t = t1;
    };
    kernels::launch_init(a, n, source, qa, bu_blocks, 0);
    step("init", 0, 0, 0);
    uint32_t* q_in = qa;
    uint32_t* q_out = qb;
    // Bitmap bottom-up (in memory): the frontier bitmaps live in the queue that is free
    // during bottom-up levels (2 * ceil(n / 32) words <= n, as n > the frontier >
    // kMinBottomUpFrontier there).
    static_assert(DirectionSwitch::kMinBottomUpFrontier >= 64, "two frontier bitmaps must fit a queue of n entries");
    const bool bitmap = tune.bitmap && !stream;
    const uint32_t words = uint32_t((uint64_t(n) + 31) / 32);
    uint32_t* bits_front = nullptr;
    uint32_t* bits_next = nullptr;
    uint64_t n_f = 1, m_f = g.degree(source), visited_deg = m_f;
    uint32_t level = 0;
    bool bu = false;
    while (n_f > 0) {
      const double m_u = double(g.m - std::min<uint64_t>(g.m, visited_deg));
      if (g.symmetric && !bu && tune.dir.to_bottom_up(m_f, m_u, n_f)) {
        bu = true;
        if (bitmap) {
          bits_front = q_out;
          bits_next = q_out + words;
          kernels::launch_queue_to_bitmap(q_in, uint32_t(n_f), n, bits_front, 0);
          step("q->bits", level, n_f, m_f);
        }
      } else if (bu && tune.dir.to_top_down(n_f, g.n)) {
        bu = false;
        counters_zero();
        if (bitmap) kernels::launch_bitmap_to_queue(a, bits_front, n, q_in, bu_blocks, 0);
        else kernels::launch_levels_to_queue(a, n, level, q_in, bu_blocks, 0);
        step("->queue", level, n_f, m_f);
      }
      const uint64_t nf0 = n_f, mf0 = m_f;
      ull c[2];
      if (bu) {
        counters_zero();
        if (bitmap) {
          kernels::launch_bottom_up_bitmap(a, whole.nbr, n, level, bits_front, bits_next, bu_blocks, 0);
          std::swap(bits_front, bits_next);
        } else {
          bottom_up(level);
        }
        ++bottom_up_levels;
        counters_read(c);
        step("bottom-up", level, nf0, mf0);
        ++level;
      } else if (!stream && n_f <= BfsPolicy::kSmallFrontier && m_f <= BfsPolicy::kSmallEdges) {
        const kernels::SingleState in{level, uint32_t(n_f), q_in == qb ? 1u : 0u, 0, 0, 0};
        kernels::launch_single_block(a, whole, qa, qb, in, st, 0);
        GXSORT_CUDA_CHECK(cudaMemcpyAsync(host_st(), st, sizeof in, cudaMemcpyDeviceToHost, 0));
        GXSORT_CUDA_CHECK(cudaStreamSynchronize(0));
        const kernels::SingleState h = *host_st();
        step("single", level, nf0, mf0);
        n_f = h.n;
        m_f = h.deg_last;
        visited_deg += h.deg_visited;
        level = h.level;
        q_in = h.in_b ? qb : qa;
        q_out = h.in_b ? qa : qb;
        continue;
      } else {
        counters_zero();
        top_down(q_in, uint32_t(n_f), m_f, q_out, level);
        counters_read(c);
        step("top-down", level, nf0, mf0);
        std::swap(q_in, q_out);
        ++level;
      }
      n_f = c[0];
      m_f = c[1];
      visited_deg += m_f;
    }
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

}  // namespace

bool cuda_bfs_usable() { return cuda_device_usable(); }

std::vector<BfsRun> bfs_cuda_many(const CsrGraph& g, const std::vector<uint64_t>& sources, const SizeOption& device_memory,
                                  uint64_t force_partition_edges) {
  if (g.wide()) fail_usage("the GPU BFS needs fewer than 2^32 vertices");
  for (uint64_t s : sources)
    if (s >= g.n) fail_usage("--source " + std::to_string(s) + " is out of range (the graph has " + std::to_string(g.n) + " vertices)");
  GXSORT_CUDA_CHECK(cudaSetDevice(0));
  cuda::DeviceMemory mem(0, device_memory);
  const BfsDevicePlan plan = plan_bfs_device(g.n, g.m, mem.budget(), force_partition_edges);
  if (plan.need_bytes > mem.budget()) fail_usage(bfs_budget_message(plan, mem.budget()));
  const size_t nq = std::max<size_t>(g.n, 1);
  // Allocated in the order plan_bfs_device counts them.
  auto off = mem.buffer<uint64_t>(g.n + 1, "BFS offsets");
  auto lev = mem.buffer<uint32_t>(nq, "BFS levels");
  auto par = mem.buffer<uint32_t>(nq, "BFS parents");
  auto qa = mem.buffer<uint32_t>(nq, "BFS queue");
  auto qb = mem.buffer<uint32_t>(nq, "BFS queue");
  auto cnt = mem.buffer<ull>(2, "BFS counters");
  auto st = mem.buffer<kernels::SingleState>(1, "BFS state");
  GXSORT_CUDA_CHECK(cudaMemcpy(off.data(), g.offsets.data(), 8 * (g.n + 1), cudaMemcpyHostToDevice));
  cuda::device_buffer<uint32_t> nbr;
  std::unique_ptr<NeighborStream> stream;
  if (plan.streamed) {
    stream = std::make_unique<NeighborStream>(g, mem, plan.partition_edges);
  } else {
    nbr = mem.buffer<uint32_t>(std::max<uint64_t>(g.m, 1), "BFS neighbors");
    if (g.m) GXSORT_CUDA_CHECK(cudaMemcpy(nbr.data(), g.ids32.data(), 4 * g.m, cudaMemcpyHostToDevice));
  }
  kernels::preload();
  int sms = 0;
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  Search search{g, {off.data(), lev.data(), par.data(), cnt.data()}, qa.data(), qb.data(), st.data(),
                {nbr.data(), 0, g.m}, stream.get(), unsigned(sms) * 16, Tuning::from_env()};

  std::vector<BfsRun> runs;
  for (uint64_t source : sources) {
    BfsRun r;
    r.backend = "cuda";
    const uint64_t bytes0 = stream ? stream->bytes_copied : 0, parts0 = stream ? stream->partitions_copied : 0;
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const double t0 = now_s();
    search.run(uint32_t(source));
    r.seconds = now_s() - t0;
    if (search.tune.profile) {
      std::fprintf(stderr, "bfs profile: source %llu, %.1f us (alpha %g, beta %g, %s bottom-up)\n", (unsigned long long)source,
                   r.seconds * 1e6, search.tune.dir.alpha, search.tune.dir.beta, search.tune.bitmap && !stream ? "bitmap" : "level-array");
      for (const auto& s : search.steps)
        std::fprintf(stderr, "  %-9s level %2u  frontier %10llu  edges %12llu  %8.1f us\n", s.mode, s.level, (unsigned long long)s.n_f,
                     (unsigned long long)s.m_f, s.s * 1e6);
    }
    r.bottom_up_levels = search.bottom_up_levels;
    if (stream) {
      r.streamed_bytes = stream->bytes_copied - bytes0;
      r.partitions_streamed = stream->partitions_copied - parts0;
    }
    r.levels.resize(g.n);
    if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(r.levels.data(), lev.data(), 4 * g.n, cudaMemcpyDeviceToHost));
    bfs_summarize(g, r);
    if (sources.size() == 1) {
      std::vector<uint32_t> p(g.n);
      if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(p.data(), par.data(), 4 * g.n, cudaMemcpyDeviceToHost));
      r.parents.resize(g.n);
      for (uint64_t v = 0; v < g.n; ++v) r.parents[v] = r.levels[v] == kernels::kUnvisited ? ~uint64_t(0) : p[v];
    } else {
      r.levels = {};
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

BfsRun bfs_cuda(const CsrGraph& g, uint64_t source, const SizeOption& device_memory) {
  return std::move(bfs_cuda_many(g, {source}, device_memory)[0]);
}

}  // namespace gxsort::graph
