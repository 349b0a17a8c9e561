// The graph module's internals: the CSR file format, an in-memory CSR graph, the CPU
// BFS (sequential oracle and parallel level-synchronous), BFS tree validation, and the
// edge generators. docs/graph.md describes the file format and the commands.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/context.hpp"
#include "gxsort/options.hpp"

namespace gxsort::io {
class File;
}

namespace gxsort::graph {

// ---- the CSR file (little-endian) ----
//   offset 0   char[8]  magic "GXCSR\0\0\0"
//          8   u32      version (2)
//         12   u32      id width in bytes: 4 when n < 2^32, else 8
//         16   u64      n, the vertex count (max id + 1)
//         24   u64      m, the edge count
//         32   u64      flags: bit 0 = symmetric (every edge has its reverse); bit 1 =
//                       renumbered (graph build --renumber: the id map beside it gives
//                       each vertex's original id); other bits 0
//         40   u64      checksum: XXH3-64 of header bytes 0..40, then XXH3-64 of the offsets
//                       and XXH3-64 of the neighbors, each as 8 little-endian bytes
//                       (csr_checksum; `bfs` verifies it while loading)
//         48   u64      renumbered: XXH3-64 of the id map's n u64 values; else zero
//         56   8 bytes  reserved (zero)
//         64   u64[n+1] offsets: the neighbors of v are neighbors[offsets[v] .. offsets[v+1])
//   64+8(n+1)  u32[m] or u64[m] neighbors, sorted within each vertex
constexpr char kCsrMagic[8] = {'G', 'X', 'C', 'S', 'R', 0, 0, 0};
constexpr uint32_t kCsrVersion = 2;
constexpr uint64_t kFlagSymmetric = 1;
constexpr uint64_t kFlagRenumbered = 2;
constexpr uint64_t kKnownFlags = kFlagSymmetric | kFlagRenumbered;
constexpr uint64_t kCsrHeaderBytes = 64;
constexpr uint32_t kUnreached = 0xFFFFFFFFu;  // level of an unreachable vertex

struct CsrHeader {
  char magic[8];
  uint32_t version;
  uint32_t id_bytes;
  uint64_t n;
  uint64_t m;
  uint64_t flags;
  uint64_t checksum;
  uint64_t ids_hash;  // renumbered: the id map's XXH3-64; else 0
  unsigned char reserved[8];
};
static_assert(sizeof(CsrHeader) == kCsrHeaderBytes, "CSR header is 64 bytes");

// The header's checksum field for a CSR whose offsets and neighbors hash (XXH3-64) to
// the given values: covers n, m, the id width and the flags (the symmetric claim) too.
uint64_t csr_checksum(const CsrHeader& h, uint64_t offsets_hash, uint64_t neighbors_hash);

inline uint32_t id_bytes_for(uint64_t n) { return n <= 0xFFFFFFFFull ? 4 : 8; }

// An in-memory CSR graph. Neighbors are held as u32 (ids32) when n < 2^32, else as
// u64 (ids64); exactly one of the two is filled (both empty when m == 0).
struct CsrGraph {
  uint64_t n = 0;
  uint64_t m = 0;
  bool symmetric = false;
  bool renumbered = false;  // vertex k's original id is entry k of the id map (graph_files.hpp)
  uint64_t ids_hash = 0;    // renumbered: the id map's XXH3-64
  std::vector<uint64_t> offsets;  // n + 1
  std::vector<uint32_t> ids32;
  std::vector<uint64_t> ids64;
  bool wide() const { return id_bytes_for(n) == 8; }
  uint64_t neighbor(uint64_t e) const { return wide() ? ids64[e] : ids32[e]; }
  uint64_t degree(uint64_t v) const { return offsets[v + 1] - offsets[v]; }
};

// Builds a CSR graph from an edge list in memory (tests): sorted, deduplicated unless
// keep_duplicates, self loops dropped unless keep_self_loops, symmetrized on request.
// n = max id + 1 (or `min_n` if larger).
CsrGraph csr_from_edges(std::vector<std::pair<uint64_t, uint64_t>> edges, bool symmetrize, bool keep_self_loops,
                        bool keep_duplicates, uint64_t min_n = 0);

// Reads a CSR file ("-" or a pipe too), verifying its header and checksum (throws
// Error(usage) naming the file for a bad header, size or checksum). A graph that needs
// more than `memory_budget` bytes (0: no limit) is refused with Error(io).
CsrGraph read_csr(const std::string& path, uint64_t memory_budget = 0);
CsrHeader read_csr_header(const std::string& path);
// The same of a file opened already (a regular file's header may be read first: it is
// read again, at its offset; a stream's is read once).
CsrGraph read_csr(const io::File& f, uint64_t memory_budget);
CsrHeader read_csr_header(const io::File& f);

// ---- BFS ----
struct BfsRun {
  std::vector<uint32_t> levels;   // n; kUnreached for unreachable vertices
  std::vector<uint64_t> parents;  // n; the source's parent is itself; ~0 for unreachable
  uint32_t depth = 0;             // number of levels (max level + 1)
  uint64_t reached = 0;
  uint64_t edges_traversed = 0;   // sum of out-degrees of the reached vertices
  double seconds = 0;             // the search itself (graph already in memory / on the device)
  uint64_t streamed_bytes = 0;    // cuda, neighbors streamed: bytes copied to the device in this search
  uint64_t partitions_streamed = 0;  // cuda, streamed: partition copies in this search
  bool neighbors_host_mapped = false;  // cuda: the kernels read the neighbors from pinned host memory
  uint32_t bottom_up_levels = 0;  // levels done bottom-up (direction-optimizing backends)
  std::string backend;
  // Frees levels and parents (`= {}` would keep their capacity): one of many searches.
  void keep_summary_only() {
    levels = std::vector<uint32_t>();
    parents = std::vector<uint64_t>();
  }
};

BfsRun bfs_sequential(const CsrGraph& g, uint64_t source);
// Parallel level-synchronous BFS on `threads` threads (0 = all cores): top-down, and on
// symmetric graphs direction-optimizing (bottom-up steps, Beamer's heuristics with the
// CPU's own switch points, DirectionSwitch::cpu). `direction_optimizing` = false forces
// top-down (tests). `seconds` is the search alone: the levels and parents are allocated
// before it, and on graphs of fewer than 2^32 vertices the 4-byte parents it writes are
// widened into `parents` after it (as the GPU's are copied back). `context`: the switch
// points' overrides and the profile (Context::tuning).
BfsRun bfs_cpu(const CsrGraph& g, uint64_t source, unsigned threads, bool direction_optimizing = true,
               const Context& context = Context());
// Fills depth, reached and edges_traversed from levels.
void bfs_summarize(const CsrGraph& g, BfsRun& r);

// Graph500-style validation of a BFS result against the graph: "" when valid, else
// what is wrong. Rules: the source has level 0 and is its own parent; every reached
// vertex other than the source has a parent that is reached, one level lower, and has
// an edge parent -> vertex; every edge u -> v with u reached has v reached and
// level(v) <= level(u) + 1; unreachable vertices have parent ~0.
std::string validate_bfs(const CsrGraph& g, uint64_t source, const std::vector<uint32_t>& levels,
                         const std::vector<uint64_t>& parents);

// ---- the GPU BFS's device memory plan (host arithmetic; lib/src/graph/bfs_plan.cpp) ----
// Resident on the device: offsets, levels, parents, two frontier queues, counters. The
// neighbor array is resident too when it fits the budget left; otherwise it is cut into
// partitions of at most `partition_edges` consecutive edges (a high-degree vertex's list
// may span several partitions) and two partition buffers are streamed per level.
struct BfsDevicePlan {
  uint64_t resident_bytes = 0;    // everything but the neighbors (arena-rounded)
  uint64_t in_memory_bytes = 0;   // resident + the whole neighbor array
  uint64_t min_bytes = 0;         // the smallest budget that runs (streamed, smallest partitions)
  uint64_t need_bytes = 0;        // what this plan allocates; more than the budget: it cannot run
  bool streamed = false;          // the neighbors do not fit: they stay in host memory
  // streamed: the kernels read the neighbors in place from pinned host memory (zero
  // copy); the partitions below are the way when the system refuses to pin them, or
  // when partitions are forced
  bool host_mapped = false;
  uint64_t partition_edges = 0;   // streamed: edges per partition (the last may be shorter)
  uint64_t partitions = 0;        // streamed: ceil(m / partition_edges)
};
constexpr uint64_t kBfsMinPartitionEdges = 1024;  // a partition buffer is at least 4 KiB
constexpr unsigned kBfsStreamSlots = 2;            // partition buffers in flight (copy || expand)
// `force_partition_edges` > 0 streams even when the graph fits, with partitions of at
// most that many edges (tests: several partitions on small graphs).
BfsDevicePlan plan_bfs_device(uint64_t n, uint64_t m, uint64_t budget, uint64_t force_partition_edges = 0);
// The one-line error for a plan whose need_bytes exceed the budget (options by option_ref).
std::string bfs_budget_message(const BfsDevicePlan& plan, uint64_t budget);

// ---- generators ----
// Edge i of an R-MAT (Graph500 Kronecker: A=0.57, B=C=0.19, D=0.05) or uniform graph of
// 2^scale vertices; depends only on (kind, scale, seed, i). R-MAT ids are scrambled by a
// fixed bijection of [0, 2^scale).
void gen_edge(bool rmat, unsigned scale, uint64_t seed, uint64_t i, uint64_t& src, uint64_t& dst);

}  // namespace gxsort::graph
