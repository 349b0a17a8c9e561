// The planner: pure functions that decide, before any I/O, how a command will run.
// `gxsort plan` shows exactly this; the commands execute it. The sort's planner is
// here; make_plan(PlanRequest) (plan/plan_request.hpp) plans every command with it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/options.hpp"
#include "gxsort/plan_report.hpp"
#include "graph/graph.hpp"
#include "plan/dedupe_strategy.hpp"

namespace gxsort {

// --direct-io: whether temporary files, and a synced merge output, bypass the page
// cache (O_DIRECT). auto: when what they hold would not fit in half of the memory the
// page cache can have (it would be written back to the disk anyway, after crowding
// out everything else cached).
bool use_direct_io(DirectIo choice, uint64_t temp_bytes, uint64_t page_cache_bytes);

// --ooc: how a sort that does not fit in --memory goes out of core. merge: sorted runs
// in temp files, merged level by level. partition: one pass scatters the records by
// key range (splitters sampled from the input) into bucket files, then each bucket is
// sorted in memory straight into its place in the output; no merge. auto: partition
// where the backend prefers it (the CPU: its merge costs more than a scatter) on at
// most kPartitionMaxThreads threads, the buckets fit the limits below and the page
// cache, and no --fan-in asks for a merge tree; else merge.

struct PlanInput {
  uint64_t input_bytes = 0;
  size_t record_size = 8;
  size_t sort_bytes_per_record = 16;  // host bytes to sort one record: the record plus its scratch
  uint64_t memory = 0;                // host budget (--memory)
  size_t max_chunk_records = 0;       // the device's limit on one chunk (0: none)
  size_t fan_in = 0;                  // --fan-in (0: choose)
  unsigned merge_threads = 1;         // threads of the final merge, each with its own buffers
  unsigned slots = 3;                 // chunks in flight during run formation (read, sort, write)
  DirectIo direct_io = DirectIo::automatic;
  uint64_t page_cache_bytes = 0;      // memory the page cache can have (MemAvailable)
  uint64_t dirty_background_bytes = 0;  // dirty pages the kernel's flusher leaves alone (platform/sizes.hpp; 0: unknown)
  OocMethod ooc = OocMethod::automatic;
  bool partition_preferred = false;   // --ooc auto takes partition when it can (the CPU backend)
  std::string input_label;            // the input, for messages ("" when none is named)
};

// PlanMode and MergeLevel: gxsort/plan_report.hpp.

// The commands make_plan(PlanRequest) plans (plan/plan_request.hpp): CommandKind
// (gxsort/plan_report.hpp), but gen, which plans no engine.

// A stream of chunks through the scheduler (read -> compute -> write): the chunk size and
// the chunks in flight, within the budget.
struct StreamPlan {
  size_t chunk_records = 0;
  size_t chunk_bytes = 0;
  unsigned slots = 0;
};

// dedupe: the strategy and the sizes of the path it takes. A bitmap the backend cannot
// make within bitmap_budget (auto) falls back to the sort (the sort then plans itself:
// the plan of `sort -u`, or of the stable sort before the group pass).
struct DedupePlan {
  DedupePath strategy = DedupePath::sort;
  bool keep_first = true;        // the sort drops duplicates itself (-u); else sort, then the group pass
  bool sort_planned = true;      // the sort's plan fits --memory (the bitmap and the stream need none)
  std::string sort_refused;      // !sort_planned: why (the sort's plan error, a bitmap's fallback fails with it)
  StreamPlan bitmap;             // the keys streamed into the bitmap
  uint64_t bitmap_budget = 0;    // host bytes the bitmap may take (UINT64_MAX: --strategy bitmap)
  StreamPlan group;              // the group pass (input chunks; each with its output chunk)
  uint64_t key_span = 0;         // the sampled keys' span --strategy auto weighed (0: not sampled)
};

// graph build: parse blocks, the edge sort (planned by the sort once the edges are
// parsed and counted), the CSR's blocks, and the budget its offsets must fit.
struct GraphBuildPlan {
  size_t parse_block_bytes = 0;  // binary edge lists: read and converted this much at a time
  size_t csr_block_bytes = 0;    // sorted edge records converted to neighbors this much at a time
  uint64_t offsets_budget = 0;   // 8 bytes a vertex must fit this (--memory)
  uint64_t max_edge_records = 0; // binary input: edge records at most (0: text, unknown until parsed)
};

// bfs: the budget the CSR loads within, the backend it searches on, and on a device the
// arena's layout (graph/graph.hpp: plan_bfs_device).
struct BfsPlan {
  uint64_t load_budget = 0;      // host bytes the CSR may take (0: no limit)
  uint64_t vertices = 0, edges = 0;
  bool graph_known = false;      // vertices and edges read: the search is planned
  bool on_device = false;        // the backend's device searches (else the CPU BFS)
  uint64_t device_budget = 0;
  graph::BfsDevicePlan device;
};

struct Plan {
  CommandKind command = CommandKind::sort;
  unsigned threads = 1;            // every CPU split of the command (resolved once: make_plan(PlanRequest))
  bool stream = false;             // the input is a stream: run_records sizes its runs
  uint64_t window_memory = 0;      // host bytes for a device merge's windows
  uint64_t window_records = 0;     // a device merge's records per window (device_window_records; 0: the CPU merges)
  size_t memory_merge_buffer_bytes = 0;  // runs-in-memory: the merge's output buffer
  bool direct_output = false;      // the merge's synced output bypasses the page cache
  // Run formation before a synced output: the runs' bytes whose writeback starts as they
  // form (io/early_writeback.hpp; 0: none). Runs through the page cache beyond 3/4 of
  // what it keeps dirty before the flusher starts, and beyond what the output's backlog
  // (written ahead of the disk) leaves of that: the disk writes them while it is idle,
  // not while it writes the output.
  uint64_t early_writeback_bytes = 0;
  // The external sort with one merge level: its last runs stay in the chunk buffers
  // run formation sorted them in, for the merge to read from memory (at most the
  // formation's slots, within what the merge keeps of the budget: job_plan.cpp's
  // held_runs): they are never written, and the disk writes only the output and the
  // other runs. window_memory is what they leave of the budget; temp_bytes leaves them out.
  size_t held_runs = 0;
  uint64_t held_run_bytes = 0;
  // The same sort's written runs each cut into this many files of consecutive records,
  // written at once on threads of their own (one file's buffered writes do not get
  // faster with threads, separate files do), each a merge input of its own: with one
  // merge level that stays one (within fan_in and the merge's buffers), a device merge,
  // a synced output, and no -u (job_plan.cpp's run_files). The merge gives the same
  // bytes: a run's parts are in input order, and ties go to the earlier input.
  size_t run_files = 1;
  StreamPlan chunks;               // check, reduce, runs: the chunks (runs: of a run each)
  size_t resident_slice_bytes = 0; // a device's resident sort: the slices copied in and out (about 64 MiB)
  DedupePlan dedupe;
  GraphBuildPlan graph;
  BfsPlan bfs;
  PlanMode mode = PlanMode::in_memory;
  uint64_t input_bytes = 0;
  uint64_t records = 0;
  size_t record_size = 0;
  uint64_t memory = 0;
  size_t run_records = 0;          // records per run (the chunk size)
  size_t runs = 0;
  size_t fan_in = 0;               // effective fan-in of external merges
  bool fan_in_clamped = false;     // --fan-in was lowered to fit the memory budget
  size_t merge_buffer_bytes = 0;   // read buffer per merge input
  unsigned merge_threads = 1;      // threads of each merge (fewer than asked when --memory is small)
  std::vector<uint64_t> run_sizes; // records in each run
  std::vector<MergeLevel> levels;  // merge levels in order; the last writes the output
  uint64_t temp_bytes = 0;         // peak temporary space
  bool direct_io = false;          // temp runs and levels (and a synced output) bypass the page cache
  // partition: buckets of about input/buckets records, each at most bucket_records (what
  // one in-memory sort takes), the input mapped chunk by chunk (3 in flight) and its
  // records appended to the bucket files through stages (2 per bucket), in whole,
  // aligned stage-sized writes.
  size_t buckets = 0;
  size_t bucket_records = 0;
  size_t partition_chunk_bytes = 0;
  size_t partition_stage_bytes = 0;
  uint64_t output_bytes = 0;
  uint64_t bytes_read = 0;         // everything: run formation and merges
  uint64_t bytes_written = 0;
};

constexpr uint64_t kMinMemory = 1 << 20;
constexpr size_t kDefaultFanIn = 64;
constexpr size_t kMinMergeBuffer = 64 << 10;
// Partition limits: bucket files open at once, and the share of bucket_records the
// sampled splitters aim at (room for a bucket that comes out larger than its share).
constexpr size_t kMaxBuckets = 256;
constexpr unsigned kBucketFillPercent = 75;
// auto partitions only up to this many threads: its first pass is a pipeline of three
// threads, where run formation and the merge use every core. Measured (H100 host, u64,
// --memory 1/8, 2026-11-24): partition faster at 2 threads (2 GiB: 3.5 s against 6.5 s)
// and 4 (4 GiB: 7.5 s against 8.5 s), slower at 8 (6.5 s against 5.1 s) and 16 (8 GiB:
// 13.0 s against 7.9 s).
constexpr unsigned kPartitionMaxThreads = 4;
// Bucket files are written in aligned 2 MiB pieces (less when --memory is small): the
// page cache then holds them in 2 MiB folios, which, freed as each bucket is sorted,
// are what the output's large writes allocate again. Written in the pieces of a chunk's
// bucket (about 1.5 MiB at any offset), the same bytes were left in small folios, and
// the output's writes ran 4-10x slower on the 2-core VM (fresh memory it takes from
// its host instead of the pages just freed).
constexpr size_t kMaxStageBytes = size_t(2) << 20;

uint64_t minimum_memory(const PlanInput& in);
// Throws usage Error when the budget is below the minimum or the input is not a
// whole number of records.
Plan make_plan(const PlanInput& in);

// Records per run when runs go to temp files (the external plan, `runs`, a stream):
// `slots` chunks in flight within --memory, one of them sorted with its scratch.
size_t external_run_records(const PlanInput& in);

// Fills in the merge of the sorted runs p.run_sizes (records) under the budget and
// --fan-in of `in`: runs, fan-in, merge threads, buffers, levels, temp space, direct
// I/O, and the levels' bytes added to bytes_read/bytes_written. The external plan ends
// with it; `merge` of the user's files and the runs of a stream are planned by it alone.
void plan_merge_tree(const PlanInput& in, Plan& p);

// Merge levels for `runs` sorted inputs of the given sizes with fan-in k (k >= 2).
std::vector<MergeLevel> merge_tree(const std::vector<uint64_t>& run_sizes, size_t record_size, size_t k,
                                   uint64_t* peak_temp_bytes);

// What `gxsort plan` shows of p (plan/plan_report.cpp): the front ends render it.
PlanReport plan_report(const Plan& p);

}  // namespace gxsort
