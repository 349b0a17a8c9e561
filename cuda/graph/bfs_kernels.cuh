// The BFS kernels (cuda/graph/bfs_kernels.cu), behind host launchers so that the
// in-memory driver and the partition streamer share them.
//
// Every kernel sees the neighbor array through an EdgeWindow: the edges [lo, hi) of the
// whole CSR, held at nbr[0 .. hi - lo). In memory the window is the whole array; when
// the neighbors are streamed it is one partition, and a vertex's neighbor list is
// clipped to the window (a list may span partitions: each partition's launch expands its
// part of it). Offsets, levels and parents are always whole and resident.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace gxsort::graph::kernels {

using ull = unsigned long long;
constexpr uint32_t kUnvisited = 0xFFFFFFFFu;

struct BfsPolicy {
  static constexpr int kThreads = 256;             // top-down and bottom-up blocks
  static constexpr int kBlockQueue = 2048;         // block-private queue entries
  static constexpr int kSingleThreads = 1024;      // the single-block kernel
  static constexpr uint32_t kSmallFrontier = 4096; // frontier vertices for the single-block kernel
  // Frontier edges for the single-block kernel: one SM expands a level at about 4 ns an
  // edge (latency-bound), so past ~4K edges a grid-wide launch and its host round trip
  // (~20 us) are cheaper (profile of 2026-11-22 on the H200, limit 2^16: a two-level
  // single-block run took 240 us).
  static constexpr ull kSmallEdges = 1 << 12;
  // Top-down grids get enough slices (gridDim.y) that each thread sees about this many
  // edges: a launch sized by frontier vertices alone left a frontier of a few hundred
  // vertices with 1.7-2.2M edges to one or two blocks (9-18 ms levels).
  static constexpr ull kSliceEdgesPerThread = 16;
  static constexpr ull kMaxSlices = 8192;
};

struct EdgeWindow {
  const uint32_t* nbr;  // edge e of the CSR is nbr[e - lo]
  uint64_t lo, hi;
};

// Single-block run state, exchanged with the host between launches.
struct SingleState {
  uint32_t level;    // in: the frontier's level; out: the level of the frontier left
  uint32_t n;        // in/out: frontier size
  uint32_t in_b;     // in/out: the frontier is in qb (else qa)
  uint32_t pad;
  ull deg_last;      // out: degree sum of the frontier left
  ull deg_visited;   // out: degree sum of every vertex discovered
};

// The device arrays of one search. cnt[0]: next frontier size (or vertices found),
// cnt[1]: its degree sum.
struct BfsArrays {
  const uint64_t* off;
  uint32_t* lev;
  uint32_t* par;
  ull* cnt;
};

// Top-down step: the frontier q_in[0, n_in) at level next_level - 1 (m_in edges in the
// whole CSR) expands the edges of `w` it owns; discovered vertices go to q_out.
// Accumulates into cnt (not reset). Every vertex's edge range is cut into gridDim.y equal
// slices, one per block row, so a few hubs spread over the whole GPU.
void launch_top_down(const BfsArrays& a, const EdgeWindow& w, const uint32_t* q_in, uint32_t n_in, ull m_in, uint32_t* q_out,
                     uint32_t next_level, cudaStream_t stream);
// Several top-down levels in one block while the frontier stays small (whole window only).
// `in` is the starting state (level, n, in_b); the state left is written to `st`.
void launch_single_block(const BfsArrays& a, const EdgeWindow& w, uint32_t* qa, uint32_t* qb, const SingleState& in,
                         SingleState* st, cudaStream_t stream);
// Bottom-up step over the vertices [v0, v1): each unvisited one looks, among its edges in
// `w`, for a neighbor at level `cur`; found vertices are claimed with a CAS (a vertex
// whose list spans partitions may be looked at by two launches at once).
void launch_bottom_up(const BfsArrays& a, const EdgeWindow& w, uint64_t v0, uint64_t v1, uint32_t cur, unsigned max_blocks,
                      cudaStream_t stream);
// Bottom-up step over all n vertices with the whole neighbor array resident (in memory
// only): the frontier (level `cur`) is the bitmap `front` (bit v of word v / 32), so the
// membership test of a neighbor reads n / 8 bytes that stay in cache instead of the
// 4n-byte level array; each found vertex is written without a CAS (one thread owns it)
// and the found vertices become the bitmap `next`, every word of which is written.
void launch_bottom_up_bitmap(const BfsArrays& a, const uint32_t* nbr, uint32_t n, uint32_t cur, const uint32_t* front,
                             uint32_t* next, unsigned max_blocks, cudaStream_t stream);
// Queue -> frontier bitmap (top-down -> bottom-up); the bitmap's (n + 31) / 32 words are
// cleared here first.
void launch_queue_to_bitmap(const uint32_t* q, uint32_t n_q, uint32_t n, uint32_t* bits, cudaStream_t stream);
// Frontier bitmap -> queue (bottom-up -> top-down); cnt[0] gets the count.
void launch_bitmap_to_queue(const BfsArrays& a, const uint32_t* bits, uint32_t n, uint32_t* q, unsigned max_blocks,
                            cudaStream_t stream);
// The search's start in one launch: every level unvisited but lev[source] = 0,
// par[source] = source, q[0] = source.
void launch_init(const BfsArrays& a, uint32_t n, uint32_t source, uint32_t* q, unsigned max_blocks, cudaStream_t stream);
// Loads every BFS kernel now, so that no search pays a kernel's lazy loading.
void preload();
// The vertices at `level` into q (bottom-up -> top-down); cnt[0] gets the count.
void launch_levels_to_queue(const BfsArrays& a, uint32_t n, uint32_t level, uint32_t* q, unsigned max_blocks,
                            cudaStream_t stream);
// flags[p] = 1 for every partition p (edges [p * part_edges, (p + 1) * part_edges)) that
// holds an edge of a frontier vertex. flags must be zeroed first.
void launch_mark_partitions(const uint64_t* off, const uint32_t* q, uint32_t n_q, uint64_t part_edges, unsigned char* flags,
                            cudaStream_t stream);

}  // namespace gxsort::graph::kernels
