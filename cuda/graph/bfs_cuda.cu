// The CUDA BFS: level-synchronous, direction-optimizing (Beamer), with the hierarchical
// frontier queues of the BFS chapter of Programming Massively Parallel Processors:
//   - a discovered vertex is pushed with one atomic per warp (coalesced-group
//     aggregation) into a block-private queue in shared memory; pushes past its
//     capacity overflow straight into the global queue; at the end the block copies its
//     queue into the global queue with one reserving atomic;
//   - frontier vertices of high degree are expanded cooperatively: degree >= block size
//     by the whole block, degree >= 32 by a warp, the rest by their own thread;
//   - while the frontier is small, one block of 1024 threads runs level after level in a
//     single launch (no launch and no host round trip per level);
//   - on symmetric graphs, bottom-up steps (every unvisited vertex looks for a parent in
//     the frontier) when the frontier's edges exceed the unexplored edges / alpha, and
//     back to top-down when the frontier has fewer than n / beta vertices.
// Device memory comes from DeviceMemory (one arena). Levels equal the CPU's; parents
// may differ but form a valid BFS tree.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "graph/graph.hpp"

namespace cg = cooperative_groups;

namespace gxsort {
bool cuda_device_usable();  // cuda/backend_factory.cu
}

namespace gxsort::graph {
namespace {

using ull = unsigned long long;
constexpr uint32_t kUnvisited = 0xFFFFFFFFu;

struct BfsPolicy {
  static constexpr int kThreads = 256;             // top-down and bottom-up blocks
  static constexpr int kBlockQueue = 2048;         // block-private queue entries
  static constexpr int kSingleThreads = 1024;      // the single-block kernel
  static constexpr uint32_t kSmallFrontier = 4096; // frontier vertices for the single-block kernel
  static constexpr ull kSmallEdges = 1 << 16;      // frontier edges for the single-block kernel
  static constexpr double kAlpha = 14.0;           // Beamer: top-down -> bottom-up when m_f > m_u / alpha
  static constexpr double kBeta = 24.0;            // bottom-up -> top-down when n_f < n / beta
};

// The block-private queue (shared) and its global overflow/destination.
struct Queues {
  uint32_t* s_items;  // shared, BfsPolicy::kBlockQueue
  uint32_t* s_count;  // shared; may exceed the capacity (the excess went to global)
  uint32_t* g_items;  // the next frontier
  ull* g_count;       // g_count[0]: its size, g_count[1]: its degree sum
};

__device__ __forceinline__ void push(uint32_t v, const Queues& q) {
  cg::coalesced_group grp = cg::coalesced_threads();
  uint32_t base = 0;
  if (grp.thread_rank() == 0) base = atomicAdd(q.s_count, grp.size());
  base = grp.shfl(base, 0);
  const uint32_t pos = base + grp.thread_rank();
  if (pos < uint32_t(BfsPolicy::kBlockQueue)) q.s_items[pos] = v;
  else q.g_items[atomicAdd(q.g_count, 1ull)] = v;
}

__device__ __forceinline__ void visit(uint32_t u, uint32_t v, const uint64_t* off, uint32_t* lev, uint32_t* par,
                                      uint32_t next_level, const Queues& q, ull& my_deg) {
  if (*(volatile uint32_t*)&lev[v] != kUnvisited) return;
  if (atomicCAS(&lev[v], kUnvisited, next_level) == kUnvisited) {
    par[v] = u;
    my_deg += off[v + 1] - off[v];
    push(v, q);
  }
}

// Expands one frontier vertex per thread (valid threads); every thread of the block
// must call it (block-wide barriers inside).
__device__ void expand_tile(bool valid, uint32_t u, const uint64_t* off, const uint32_t* nbr, uint32_t* lev,
                            uint32_t* par, uint32_t next_level, const Queues& q, ull& my_deg) {
  __shared__ int s_owner;
  __shared__ uint64_t s_beg, s_end;
  __shared__ uint32_t s_u;
  uint64_t beg = valid ? off[u] : 0, end = valid ? off[u + 1] : 0;
  // Block stage: vertices with at least blockDim.x neighbors, one at a time, by all threads.
  for (;;) {
    if (threadIdx.x == 0) s_owner = -1;
    __syncthreads();
    if (end - beg >= blockDim.x) s_owner = int(threadIdx.x);
    __syncthreads();
    const int owner = s_owner;
    if (owner < 0) break;
    if (owner == int(threadIdx.x)) { s_beg = beg; s_end = end; s_u = u; beg = end; }
    __syncthreads();
    const uint64_t b = s_beg, e = s_end;
    const uint32_t uu = s_u;
    for (uint64_t x = b + threadIdx.x; x < e; x += blockDim.x) visit(uu, nbr[x], off, lev, par, next_level, q, my_deg);
    __syncthreads();
  }
  // Warp stage: vertices with at least 32 neighbors, by their warp.
  const unsigned lane = threadIdx.x & 31;
  for (;;) {
    const unsigned want = __ballot_sync(0xffffffffu, end - beg >= 32);
    if (!want) break;
    const int leader = __ffs(want) - 1;
    const uint64_t b = __shfl_sync(0xffffffffu, beg, leader), e = __shfl_sync(0xffffffffu, end, leader);
    const uint32_t uu = __shfl_sync(0xffffffffu, u, leader);
    if (int(lane) == leader) beg = end;
    for (uint64_t x = b + lane; x < e; x += 32) visit(uu, nbr[x], off, lev, par, next_level, q, my_deg);
  }
  // Thread stage.
  for (uint64_t x = beg; x < end; ++x) visit(u, nbr[x], off, lev, par, next_level, q, my_deg);
}

// Copies the block queue into the global queue and adds the block's degree sum.
__device__ void flush(const Queues& q, ull my_deg, ull* s_deg) {
  __shared__ uint32_t s_base;
  if (my_deg) atomicAdd(s_deg, my_deg);
  __syncthreads();
  const uint32_t c = min(*q.s_count, uint32_t(BfsPolicy::kBlockQueue));
  if (threadIdx.x == 0) {
    s_base = uint32_t(atomicAdd(q.g_count, ull(c)));
    if (*s_deg) atomicAdd(q.g_count + 1, *s_deg);
  }
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < c; i += blockDim.x) q.g_items[s_base + i] = q.s_items[i];
}

__global__ void __launch_bounds__(BfsPolicy::kThreads)
td_kernel(const uint64_t* off, const uint32_t* nbr, uint32_t* lev, uint32_t* par, const uint32_t* q_in, uint32_t n_in,
          uint32_t* q_out, ull* cnt, uint32_t next_level) {
  __shared__ uint32_t s_items[BfsPolicy::kBlockQueue];
  __shared__ uint32_t s_count;
  __shared__ ull s_deg;
  if (threadIdx.x == 0) { s_count = 0; s_deg = 0; }
  __syncthreads();
  const Queues q{s_items, &s_count, q_out, cnt};
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = i < n_in;
  ull my_deg = 0;
  expand_tile(valid, valid ? q_in[i] : 0, off, nbr, lev, par, next_level, q, my_deg);
  flush(q, my_deg, &s_deg);
}

struct SingleState {
  uint32_t level;    // in: the frontier's level; out: the level of the frontier left
  uint32_t n;        // in/out: frontier size
  uint32_t in_b;     // in/out: the frontier is in qb (else qa)
  uint32_t pad;
  ull deg_last;      // out: degree sum of the frontier left
  ull deg_visited;   // out: degree sum of every vertex discovered
};

// One block, level after level, while the frontier stays small.
__global__ void __launch_bounds__(BfsPolicy::kSingleThreads)
td_single_block(const uint64_t* off, const uint32_t* nbr, uint32_t* lev, uint32_t* par, uint32_t* qa, uint32_t* qb,
                ull* cnt, SingleState* st, uint32_t max_n, ull max_deg) {
  __shared__ uint32_t s_items[BfsPolicy::kBlockQueue];
  __shared__ uint32_t s_count;
  __shared__ ull s_deg;
  __shared__ uint32_t s_n, s_level, s_in_b, s_done;
  __shared__ ull s_visited;
  if (threadIdx.x == 0) { s_n = st->n; s_level = st->level; s_in_b = st->in_b; s_visited = 0; s_done = 0; }
  __syncthreads();
  for (;;) {
    if (threadIdx.x == 0) { s_count = 0; s_deg = 0; cnt[0] = 0; cnt[1] = 0; }
    __syncthreads();
    const uint32_t n_in = s_n;
    const uint32_t* q_in = s_in_b ? qb : qa;
    uint32_t* q_out = s_in_b ? qa : qb;
    const Queues q{s_items, &s_count, q_out, cnt};
    ull my_deg = 0;
    for (uint32_t base = 0; base < n_in; base += blockDim.x) {
      const bool valid = base + threadIdx.x < n_in;
      expand_tile(valid, valid ? q_in[base + threadIdx.x] : 0, off, nbr, lev, par, s_level + 1, q, my_deg);
    }
    flush(q, my_deg, &s_deg);
    __syncthreads();
    if (threadIdx.x == 0) {
      const ull total = atomicAdd(cnt, 0ull), deg = atomicAdd(cnt + 1, 0ull);
      s_n = uint32_t(total);
      s_level += 1;
      s_in_b ^= 1u;
      s_visited += deg;
      st->deg_last = deg;
      if (total == 0 || total > max_n || deg > max_deg) s_done = 1;
    }
    __syncthreads();
    if (s_done) break;
  }
  if (threadIdx.x == 0) {
    st->level = s_level;
    st->n = s_n;
    st->in_b = s_in_b;
    st->deg_visited = s_visited;
  }
}

__device__ __forceinline__ void block_add(ull a, ull b, ull* cnt) {
  for (int o = 16; o > 0; o >>= 1) { a += __shfl_down_sync(0xffffffffu, a, o); b += __shfl_down_sync(0xffffffffu, b, o); }
  if ((threadIdx.x & 31) == 0 && (a || b)) { atomicAdd(cnt, a); atomicAdd(cnt + 1, b); }
}

// Bottom-up step: every unvisited vertex looks for a neighbor at level `cur`.
__global__ void __launch_bounds__(BfsPolicy::kThreads)
bu_kernel(const uint64_t* off, const uint32_t* nbr, uint32_t* lev, uint32_t* par, uint32_t n, uint32_t cur, ull* cnt) {
  ull found = 0, deg = 0;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t base = uint64_t(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t v = base + threadIdx.x;
    if (v < n && lev[v] == kUnvisited) {
      const uint64_t b = off[v], e = off[v + 1];
      for (uint64_t x = b; x < e; ++x) {
        const uint32_t w = nbr[x];
        if (*(volatile uint32_t*)&lev[w] == cur) {
          lev[v] = cur + 1;
          par[v] = w;
          ++found;
          deg += e - b;
          break;
        }
      }
    }
  }
  block_add(found, deg, cnt);
}

// The vertices at `level` into a queue (bottom-up -> top-down), warp-aggregated.
__global__ void __launch_bounds__(BfsPolicy::kThreads)
levels_to_queue(const uint32_t* lev, uint32_t n, uint32_t level, uint32_t* q, ull* cnt) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const unsigned lane = threadIdx.x & 31;
  for (uint64_t base = uint64_t(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t v = base + threadIdx.x;
    const bool f = v < n && lev[v] == level;
    const unsigned mask = __ballot_sync(0xffffffffu, f);
    uint32_t first = 0;
    if (lane == 0 && mask) first = uint32_t(atomicAdd(cnt, ull(__popc(mask))));
    first = __shfl_sync(0xffffffffu, first, 0);
    if (f) q[first + __popc(mask & ((1u << lane) - 1))] = uint32_t(v);
  }
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

bool cuda_bfs_usable() { return cuda_device_usable(); }

std::vector<BfsRun> bfs_cuda_many(const CsrGraph& g, const std::vector<uint64_t>& sources, const std::string& device_memory) {
  if (g.wide()) fail_usage("the GPU BFS needs fewer than 2^32 vertices");
  for (uint64_t s : sources)
    if (s >= g.n) fail_usage("--source " + std::to_string(s) + " is out of range (the graph has " + std::to_string(g.n) + " vertices)");
  GXSORT_CUDA_CHECK(cudaSetDevice(0));
  cuda::DeviceMemory mem(0, device_memory);
  const uint32_t n = uint32_t(g.n);
  const size_t nq = std::max<size_t>(n, 1);
  auto off = mem.buffer<uint64_t>(g.n + 1, "BFS offsets");
  auto nbr = mem.buffer<uint32_t>(std::max<uint64_t>(g.m, 1), "BFS neighbors");
  auto lev = mem.buffer<uint32_t>(nq, "BFS levels");
  auto par = mem.buffer<uint32_t>(nq, "BFS parents");
  auto qa = mem.buffer<uint32_t>(nq, "BFS queue");
  auto qb = mem.buffer<uint32_t>(nq, "BFS queue");
  auto cnt = mem.buffer<ull>(2, "BFS counters");
  auto st = mem.buffer<SingleState>(1, "BFS state");
  GXSORT_CUDA_CHECK(cudaMemcpy(off.data(), g.offsets.data(), 8 * (g.n + 1), cudaMemcpyHostToDevice));
  if (g.m) GXSORT_CUDA_CHECK(cudaMemcpy(nbr.data(), g.ids32.data(), 4 * g.m, cudaMemcpyHostToDevice));
  int sms = 0;
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const uint32_t bu_blocks = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>((g.n + 255) / 256, uint64_t(sms) * 16)));

  std::vector<BfsRun> runs;
  for (uint64_t source : sources) {
    BfsRun r;
    r.backend = "cuda";
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const double t0 = now_s();
    GXSORT_CUDA_CHECK(cudaMemset(lev.data(), 0xFF, 4 * nq));
    GXSORT_CUDA_CHECK(cudaMemset(par.data(), 0xFF, 4 * nq));
    const uint32_t s = uint32_t(source), zero = 0;
    GXSORT_CUDA_CHECK(cudaMemcpy(lev.data() + s, &zero, 4, cudaMemcpyHostToDevice));
    GXSORT_CUDA_CHECK(cudaMemcpy(par.data() + s, &s, 4, cudaMemcpyHostToDevice));
    GXSORT_CUDA_CHECK(cudaMemcpy(qa.data(), &s, 4, cudaMemcpyHostToDevice));
    uint32_t* q_in = qa.data();
    uint32_t* q_out = qb.data();
    uint64_t n_f = 1, m_f = g.degree(source), visited_deg = m_f;
    uint32_t level = 0;
    bool bottom_up = false;
    while (n_f > 0) {
      const double m_u = double(g.m - std::min<uint64_t>(g.m, visited_deg));
      if (g.symmetric && !bottom_up && double(m_f) > m_u / BfsPolicy::kAlpha && n_f > BfsPolicy::kSmallFrontier) {
        bottom_up = true;
      } else if (bottom_up && double(n_f) < double(g.n) / BfsPolicy::kBeta) {
        bottom_up = false;
        GXSORT_CUDA_CHECK(cudaMemset(cnt.data(), 0, 16));
        levels_to_queue<<<bu_blocks, BfsPolicy::kThreads>>>(lev.data(), n, level, q_in, cnt.data());
        GXSORT_CUDA_CHECK_LAUNCH("levels_to_queue");
      }
      if (bottom_up) {
        GXSORT_CUDA_CHECK(cudaMemset(cnt.data(), 0, 16));
        bu_kernel<<<bu_blocks, BfsPolicy::kThreads>>>(off.data(), nbr.data(), lev.data(), par.data(), n, level, cnt.data());
        GXSORT_CUDA_CHECK_LAUNCH("bu_kernel");
        ull c[2];
        GXSORT_CUDA_CHECK(cudaMemcpy(c, cnt.data(), 16, cudaMemcpyDeviceToHost));
        n_f = c[0];
        m_f = c[1];
        visited_deg += m_f;
        ++level;
      } else if (n_f <= BfsPolicy::kSmallFrontier && m_f <= BfsPolicy::kSmallEdges) {
        SingleState h{level, uint32_t(n_f), q_in == qb.data() ? 1u : 0u, 0, 0, 0};
        GXSORT_CUDA_CHECK(cudaMemcpy(st.data(), &h, sizeof h, cudaMemcpyHostToDevice));
        td_single_block<<<1, BfsPolicy::kSingleThreads>>>(off.data(), nbr.data(), lev.data(), par.data(), qa.data(),
                                                          qb.data(), cnt.data(), st.data(), BfsPolicy::kSmallFrontier,
                                                          BfsPolicy::kSmallEdges);
        GXSORT_CUDA_CHECK_LAUNCH("td_single_block");
        GXSORT_CUDA_CHECK(cudaMemcpy(&h, st.data(), sizeof h, cudaMemcpyDeviceToHost));
        n_f = h.n;
        m_f = h.deg_last;
        visited_deg += h.deg_visited;
        level = h.level;
        q_in = h.in_b ? qb.data() : qa.data();
        q_out = h.in_b ? qa.data() : qb.data();
      } else {
        GXSORT_CUDA_CHECK(cudaMemset(cnt.data(), 0, 16));
        const uint32_t blocks = uint32_t((n_f + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads);
        td_kernel<<<blocks, BfsPolicy::kThreads>>>(off.data(), nbr.data(), lev.data(), par.data(), q_in, uint32_t(n_f),
                                                    q_out, cnt.data(), level + 1);
        GXSORT_CUDA_CHECK_LAUNCH("td_kernel");
        ull c[2];
        GXSORT_CUDA_CHECK(cudaMemcpy(c, cnt.data(), 16, cudaMemcpyDeviceToHost));
        n_f = c[0];
        m_f = c[1];
        visited_deg += m_f;
        std::swap(q_in, q_out);
        ++level;
      }
    }
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    r.seconds = now_s() - t0;
    r.levels.resize(g.n);
    if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(r.levels.data(), lev.data(), 4 * g.n, cudaMemcpyDeviceToHost));
    bfs_summarize(g, r);
    if (sources.size() == 1) {
      std::vector<uint32_t> p(g.n);
      if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(p.data(), par.data(), 4 * g.n, cudaMemcpyDeviceToHost));
      r.parents.resize(g.n);
      for (uint64_t v = 0; v < g.n; ++v) r.parents[v] = p[v] == kUnvisited ? ~uint64_t(0) : p[v];
    } else {
      r.levels = {};
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

BfsRun bfs_cuda(const CsrGraph& g, uint64_t source, const std::string& device_memory) {
  return std::move(bfs_cuda_many(g, {source}, device_memory)[0]);
}

}  // namespace gxsort::graph
