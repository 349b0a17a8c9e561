// The BFS kernels: level-synchronous top-down steps with the hierarchical frontier queues
// of the BFS chapter of Programming Massively Parallel Processors, a single-block kernel
// for small frontiers, and bottom-up steps (Beamer). bfs_kernels.cuh says how the
// neighbor array is seen through an EdgeWindow.
//   - a discovered vertex is pushed with one atomic per warp (coalesced-group
//     aggregation) into a block-private queue in shared memory; pushes past its
//     capacity overflow straight into the global queue; at the end the block copies its
//     queue into the global queue with one reserving atomic;
//   - frontier vertices of high degree are expanded cooperatively: degree >= block size
//     by the whole block, degree >= 32 by a warp, the rest by their own thread;
//   - top-down grids also have gridDim.y rows, each expanding one equal slice of every
//     frontier vertex's edges, so that a few hubs are spread over the whole GPU;
//   - bottom-up in memory tests frontier membership in a bitmap (bfs_kernels.cuh).
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

// Expands one frontier vertex per thread (valid threads), its edges within the window,
// or only slice `slice` of `slices` equal parts of them; every thread of the block must
// call it (block-wide barriers inside).
__device__ void expand_tile(bool valid, uint32_t u, const BfsArrays& a, const EdgeWindow& w, uint32_t next_level,
                            const Queues& q, ull& my_deg, uint32_t slice = 0, uint32_t slices = 1) {
  __shared__ int s_owner;
  __shared__ uint64_t s_beg, s_end;
  __shared__ uint32_t s_u;
  uint64_t beg = valid ? max(a.off[u], w.lo) : 0, end = valid ? min(a.off[u + 1], w.hi) : 0;
  if (end < beg) end = beg;
  if (slices > 1) {
    const uint64_t len = end - beg, b = beg + len * slice / slices;
    end = beg + len * (slice + 1) / slices;
    beg = b;
  }
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
  expand_tile(valid, valid ? q_in[i] : 0, a, w, next_level, q, my_deg, blockIdx.y, gridDim.y);
  flush(q, my_deg, &s_deg);
}

// One block, level after level, while the frontier stays small (no launch and no host
// round trip per level).
__global__ void __launch_bounds__(BfsPolicy::kSingleThreads)
td_single_block(BfsArrays a, EdgeWindow w, uint32_t* qa, uint32_t* qb, SingleState in, SingleState* st, uint32_t max_n,
                ull max_deg) {
  __shared__ uint32_t s_items[BfsPolicy::kBlockQueue];
  __shared__ uint32_t s_count;
  __shared__ ull s_deg;
  __shared__ uint32_t s_n, s_level, s_in_b, s_done;
  __shared__ ull s_visited;
  ull* cnt = a.cnt;
  if (threadIdx.x == 0) { s_n = in.n; s_level = in.level; s_in_b = in.in_b; s_visited = 0; s_done = 0; }
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

// Bottom-up with the frontier as a bitmap (bfs_kernels.cuh). The loop bound is uniform
// over the block, so whole warps reach the ballot; a warp covers 32 consecutive vertices
// starting at a multiple of 32, i.e. exactly one word of `next`, which lane 0 stores.
__global__ void __launch_bounds__(BfsPolicy::kThreads)
bu_bitmap_kernel(BfsArrays a, const uint32_t* __restrict__ nbr, uint32_t n, uint32_t cur, const uint32_t* __restrict__ front,
                 uint32_t* __restrict__ next) {
  ull found = 0, deg = 0;
  const unsigned lane = threadIdx.x & 31;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t base = uint64_t(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t v = base + threadIdx.x;
    bool hit = false;
    if (v < n && a.lev[v] == kUnvisited) {
      const uint64_t ob = a.off[v], oe = a.off[v + 1];
      for (uint64_t x = ob; x < oe; ++x) {
        const uint32_t p = __ldg(nbr + x);
        if ((__ldg(front + (p >> 5)) >> (p & 31)) & 1u) {
          a.lev[v] = cur + 1;
          a.par[v] = p;
          ++found;
          deg += oe - ob;
          hit = true;
          break;
        }
      }
    }
    const unsigned m = __ballot_sync(0xffffffffu, hit);
    if (lane == 0 && v < n) next[v >> 5] = m;
  }
  block_add(found, deg, a.cnt);
}

__global__ void __launch_bounds__(BfsPolicy::kThreads) queue_to_bitmap(const uint32_t* q, uint32_t n_q, uint32_t* bits) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n_q) atomicOr(bits + (q[i] >> 5), 1u << (q[i] & 31));
}

// One word per thread; the set bits go to q with one atomic per warp.
__global__ void __launch_bounds__(BfsPolicy::kThreads)
bitmap_to_queue(const uint32_t* bits, uint32_t words, uint32_t* q, ull* cnt) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const unsigned lane = threadIdx.x & 31;
  for (uint64_t base = uint64_t(blockIdx.x) * blockDim.x; base < words; base += stride) {
    const uint64_t i = base + threadIdx.x;
    uint32_t w = i < words ? bits[i] : 0;
    const uint32_t c = __popc(w);
    uint32_t incl = c;  // inclusive prefix over the warp
    for (int o = 1; o < 32; o <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= unsigned(o)) incl += t;
    }
    const uint32_t total = __shfl_sync(0xffffffffu, incl, 31);
    uint32_t first = 0;
    if (lane == 31 && total) first = uint32_t(atomicAdd(cnt, ull(total)));
    first = __shfl_sync(0xffffffffu, first, 31);
    uint32_t pos = first + incl - c;
    while (w) {
      const int b = __ffs(w) - 1;
      w &= w - 1;
      q[pos++] = uint32_t(i * 32 + b);
    }
  }
}

// Levels to unvisited, the source at level 0, its own parent and the first frontier, in
// one launch.
__global__ void __launch_bounds__(BfsPolicy::kThreads) bfs_init(BfsArrays a, uint32_t n, uint32_t source, uint32_t* q) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t v = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += stride)
    a.lev[v] = v == source ? 0u : kUnvisited;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.par[source] = source;
    q[0] = source;
  }
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

void launch_top_down(const BfsArrays& a, const EdgeWindow& w, const uint32_t* q_in, uint32_t n_in, ull m_in, uint32_t* q_out,
                     uint32_t next_level, cudaStream_t stream) {
  if (n_in == 0) return;
  const uint64_t blocks = (uint64_t(n_in) + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads;
  const uint64_t per_slice = blocks * BfsPolicy::kThreads * BfsPolicy::kSliceEdgesPerThread;
  const unsigned slices = unsigned(std::min<uint64_t>(BfsPolicy::kMaxSlices, std::max<uint64_t>(1, (m_in + per_slice - 1) / per_slice)));
  td_kernel<<<dim3(unsigned(blocks), slices), BfsPolicy::kThreads, 0, stream>>>(a, w, q_in, n_in, q_out, next_level);
  GXSORT_CUDA_CHECK_LAUNCH("td_kernel");
}

void launch_single_block(const BfsArrays& a, const EdgeWindow& w, uint32_t* qa, uint32_t* qb, const SingleState& in,
                         SingleState* st, cudaStream_t stream) {
  td_single_block<<<1, BfsPolicy::kSingleThreads, 0, stream>>>(a, w, qa, qb, in, st, BfsPolicy::kSmallFrontier,
                                                               BfsPolicy::kSmallEdges);
  GXSORT_CUDA_CHECK_LAUNCH("td_single_block");
}

void launch_bottom_up(const BfsArrays& a, const EdgeWindow& w, uint64_t v0, uint64_t v1, uint32_t cur, unsigned max_blocks,
                      cudaStream_t stream) {
  if (v1 <= v0) return;
  bu_kernel<<<grid_for(v1 - v0, max_blocks), BfsPolicy::kThreads, 0, stream>>>(a, w, v0, v1, cur);
  GXSORT_CUDA_CHECK_LAUNCH("bu_kernel");
}

void launch_bottom_up_bitmap(const BfsArrays& a, const uint32_t* nbr, uint32_t n, uint32_t cur, const uint32_t* front,
                             uint32_t* next, unsigned max_blocks, cudaStream_t stream) {
  if (n == 0) return;
  bu_bitmap_kernel<<<grid_for(n, max_blocks), BfsPolicy::kThreads, 0, stream>>>(a, nbr, n, cur, front, next);
  GXSORT_CUDA_CHECK_LAUNCH("bu_bitmap_kernel");
}

void launch_queue_to_bitmap(const uint32_t* q, uint32_t n_q, uint32_t n, uint32_t* bits, cudaStream_t stream) {
  GXSORT_CUDA_CHECK(cudaMemsetAsync(bits, 0, 4 * ((uint64_t(n) + 31) / 32), stream));
  if (n_q == 0) return;
  const unsigned blocks = unsigned((uint64_t(n_q) + BfsPolicy::kThreads - 1) / BfsPolicy::kThreads);
  queue_to_bitmap<<<blocks, BfsPolicy::kThreads, 0, stream>>>(q, n_q, bits);
  GXSORT_CUDA_CHECK_LAUNCH("queue_to_bitmap");
}

void launch_bitmap_to_queue(const BfsArrays& a, const uint32_t* bits, uint32_t n, uint32_t* q, unsigned max_blocks,
                            cudaStream_t stream) {
  const uint32_t words = uint32_t((uint64_t(n) + 31) / 32);
  bitmap_to_queue<<<grid_for(words, max_blocks), BfsPolicy::kThreads, 0, stream>>>(bits, words, q, a.cnt);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap_to_queue");
}

void launch_init(const BfsArrays& a, uint32_t n, uint32_t source, uint32_t* q, unsigned max_blocks, cudaStream_t stream) {
  bfs_init<<<grid_for(n, max_blocks), BfsPolicy::kThreads, 0, stream>>>(a, n, source, q);
  GXSORT_CUDA_CHECK_LAUNCH("bfs_init");
}

void preload() {
  // With CUDA's lazy loading each kernel is loaded at its first launch (hundreds of us),
  // which would land in the first search's time.
  cudaFuncAttributes attr;
  const void* fns[] = {(const void*)td_kernel, (const void*)td_single_block, (const void*)bu_kernel, (const void*)bu_bitmap_kernel,
                       (const void*)queue_to_bitmap, (const void*)bitmap_to_queue, (const void*)bfs_init,
                       (const void*)levels_to_queue, (const void*)mark_partitions};
  for (const void* f : fns) GXSORT_CUDA_CHECK(cudaFuncGetAttributes(&attr, f));
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
