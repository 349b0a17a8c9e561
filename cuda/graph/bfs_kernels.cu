// The BFS kernels: level-synchronous top-down steps with the hierarchical frontier queues
// of the BFS chapter of Programming Massively Parallel Processors, a single-block kernel
// for small frontiers, and bottom-up steps (Beamer). bfs_kernels.cuh says how the
// neighbor array is seen through an EdgeWindow.
//   - a discovered vertex is pushed with one atomic per warp (coalesced-group
//     aggregation) into a block-private queue in shared memory; pushes past its
//     capacity overflow straight into the global queue; at the end the block copies its
//     queue into the global queue with one reserving atomic;
//   - frontier vertices of high degree are expanded cooperatively: degree >= block size
//     by the whole block, degree >= 32 by a warp, the rest by their own thread.
#include <cooperative_groups.h>

#include <algorithm>

#include "cuda_check.cuh"
#include "graph/bfs_kernels.cuh"

namespace cg = cooperative_groups;

namespace gxsort::graph::kernels {
namespace {

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

__device__ __forceinline__ void visit(uint32_t u, uint32_t v, const BfsArrays& a, uint32_t next_level, const Queues& q,
                                      ull& my_deg) {
  if (*(volatile uint32_t*)&a.lev[v] != kUnvisited) return;
  if (atomicCAS(&a.lev[v], kUnvisited, next_level) == kUnvisited) {
    a.par[v] = u;
    my_deg += a.off[v + 1] - a.off[v];
    push(v, q);
  }
}

// Expands one frontier vertex per thread (valid threads), its edges within the window;
// every thread of the block must call it (block-wide barriers inside).
__device__ void expand_tile(bool valid, uint32_t u, const BfsArrays& a, const EdgeWindow& w, uint32_t next_level,
                            const Queues& q, ull& my_deg) {
  __shared__ int s_owner;
  __shared__ uint64_t s_beg, s_end;
  __shared__ uint32_t s_u;
  uint64_t beg = valid ? max(a.off[u], w.lo) : 0, end = valid ? min(a.off[u + 1], w.hi) : 0;
  if (end < beg) end = beg;
  const uint32_t* nbr = w.nbr - w.lo;  // indexed by CSR edge number; only [lo, hi) is read
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
    for (uint64_t x = b + threadIdx.x; x < e; x += blockDim.x) visit(uu, nbr[x], a, next_level, q, my_deg);
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
    for (uint64_t x = b + lane; x < e; x += 32) visit(uu, nbr[x], a, next_level, q, my_deg);
  }
  // Thread stage.
  for (uint64_t x = beg; x < end; ++x) visit(u, nbr[x], a, next_level, q, my_deg);
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
td_kernel(BfsArrays a, EdgeWindow w, const uint32_t* q_in, uint32_t n_in, uint32_t* q_out, uint32_t next_level) {
  __shared__ uint32_t s_items[BfsPolicy::kBlockQueue];
  __shared__ uint32_t s_count;
  __shared__ ull s_deg;
  if (threadIdx.x == 0) { s_count = 0; s_deg = 0; }
  __syncthreads();
  const Queues q{s_items, &s_count, q_out, a.cnt};
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = i < n_in;
  ull my_deg = 0;
  expand_tile(valid, valid ? q_in[i] : 0, a, w, next_level, q, my_deg);
  flush(q, my_deg, &s_deg);
}

// One block, level after level, while the frontier stays small (no launch and no host
// round trip per level).
__global__ void __launch_bounds__(BfsPolicy::kSingleThreads)
td_single_block(BfsArrays a, EdgeWindow w, uint32_t* qa, uint32_t* qb, SingleState* st, uint32_t max_n, ull max_deg) {
  __shared__ uint32_t s_items[BfsPolicy::kBlockQueue];
  __shared__ uint32_t s_count;
  __shared__ ull s_deg;
  __shared__ uint32_t s_n, s_level, s_in_b, s_done;
  __shared__ ull s_visited;
  ull* cnt = a.cnt;
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
      expand_tile(valid, valid ? q_in[base + threadIdx.x] : 0, a, w, s_level + 1, q, my_deg);
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

// Bottom-up step: every unvisited vertex of [v0, v1) looks for a neighbor at level `cur`.
__global__ void __launch_bounds__(BfsPolicy::kThreads)
bu_kernel(BfsArrays a, EdgeWindow w, uint64_t v0, uint64_t v1, uint32_t cur) {
  ull found = 0, deg = 0;
  const uint32_t* nbr = w.nbr - w.lo;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t base = v0 + uint64_t(blockIdx.x) * blockDim.x; base < v1; base += stride) {
    const uint64_t v = base + threadIdx.x;
    if (v < v1 && *(volatile uint32_t*)&a.lev[v] == kUnvisited) {
      const uint64_t ob = a.off[v], oe = a.off[v + 1];
      const uint64_t b = max(ob, w.lo), e = min(oe, w.hi);
      for (uint64_t x = b; x < e; ++x) {
        const uint32_t p = nbr[x];
        if (*(volatile uint32_t*)&a.lev[p] == cur) {
          if (atomicCAS(&a.lev[v], kUnvisited, cur + 1) == kUnvisited) {
            a.par[v] = p;
            ++found;
            deg += oe - ob;
          }
          break;
        }
      }
    }
  }
  block_add(found, deg, a.cnt);
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

__global__ void __launch_bounds__(BfsPolicy::kThreads)
mark_partitions(const uint64_t* off, const uint32_t* q, uint32_t n_q, uint64_t part_edges, unsigned char* flags) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_q) return;
  const uint32_t u = q[i];
  const uint64_t b = off[u], e = off[u + 1];
  if (b == e) return;
  // A hub's list may cover many partitions; skip flags already set (most are, on a
  // large frontier) to save the stores.
  for (uint64_t p = b / part_edges; p <= (e - 1) / part_edges; ++p)
    if (!flags[p]) flags[p] = 1;
}

unsigned grid_for(uint64_t items, unsigned max_blocks) {
  return unsigned(std::max<uint64_t>(1, std::min<uint64_t>((items + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads, max_blocks)));
}

}  // namespace

void launch_top_down(const BfsArrays& a, const EdgeWindow& w, const uint32_t* q_in, uint32_t n_in, uint32_t* q_out,
                     uint32_t next_level, cudaStream_t stream) {
  if (n_in == 0) return;
  const unsigned blocks = unsigned((uint64_t(n_in) + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads);
  td_kernel<<<blocks, BfsPolicy::kThreads, 0, stream>>>(a, w, q_in, n_in, q_out, next_level);
  GXSORT_CUDA_CHECK_LAUNCH("td_kernel");
}

void launch_single_block(const BfsArrays& a, const EdgeWindow& w, uint32_t* qa, uint32_t* qb, SingleState* st,
                         cudaStream_t stream) {
  td_single_block<<<1, BfsPolicy::kSingleThreads, 0, stream>>>(a, w, qa, qb, st, BfsPolicy::kSmallFrontier,
                                                               BfsPolicy::kSmallEdges);
  GXSORT_CUDA_CHECK_LAUNCH("td_single_block");
}

void launch_bottom_up(const BfsArrays& a, const EdgeWindow& w, uint64_t v0, uint64_t v1, uint32_t cur, unsigned max_blocks,
                      cudaStream_t stream) {
  if (v1 <= v0) return;
  bu_kernel<<<grid_for(v1 - v0, max_blocks), BfsPolicy::kThreads, 0, stream>>>(a, w, v0, v1, cur);
  GXSORT_CUDA_CHECK_LAUNCH("bu_kernel");
}

void launch_levels_to_queue(const BfsArrays& a, uint32_t n, uint32_t level, uint32_t* q, unsigned max_blocks,
                            cudaStream_t stream) {
  levels_to_queue<<<grid_for(n, max_blocks), BfsPolicy::kThreads, 0, stream>>>(a.lev, n, level, q, a.cnt);
  GXSORT_CUDA_CHECK_LAUNCH("levels_to_queue");
}

void launch_mark_partitions(const uint64_t* off, const uint32_t* q, uint32_t n_q, uint64_t part_edges, unsigned char* flags,
                            cudaStream_t stream) {
  if (n_q == 0) return;
  const unsigned blocks = unsigned((uint64_t(n_q) + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads);
  mark_partitions<<<blocks, BfsPolicy::kThreads, 0, stream>>>(off, q, n_q, part_edges, flags);
  GXSORT_CUDA_CHECK_LAUNCH("mark_partitions");
}

}  // namespace gxsort::graph::kernels
