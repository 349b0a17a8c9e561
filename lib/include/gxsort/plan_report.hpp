// What `gxsort plan` shows, as data: plan_sort, plan_command and plan_distributed
// (gxsort.hpp, distributed.hpp) return a PlanReport, every size in it the one the command
// runs with; a front end renders it (the CLI: text, JSON or a dot graph, app/render_plan).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gxsort {

// The library's commands, each a typed request (gxsort/requests.hpp, sort_request.hpp).
// Front ends name them as they like (the CLI maps its words once, in its registry);
// command_name gives the CLI's spelling ("sort", "graph build") that reports and plans
// show. The library compares no command names (tools/check-library.sh).
enum class CommandKind { sort, runs, merge, dedupe, check, reduce, graph_build, bfs, gen };
const char* command_name(CommandKind k);

// How a sort runs (plan/plan.hpp decides).
enum class PlanMode {
  in_memory,       // one chunk: read, sort, write
  runs_in_memory,  // chunks sorted in place in one buffer, then one merge from RAM
  external,        // runs in temp files, merged level by level with the fan-in
  partition,       // records scattered by key range into bucket files, each sorted in memory
};
const char* plan_mode_name(PlanMode m);  // "in-memory", "runs-in-memory", "external", "partition"

// One level of a merge tree.
struct MergeLevel {
  std::vector<size_t> groups;  // fan-in of each merge at this level; 1 = carried over unmerged
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  bool final = false;          // writes the output file
};

// How dedupe runs: the sort engine, the bitmap, or the group pass over a sorted input.
enum class DedupePath { sort, bitmap, stream };
inline const char* dedupe_path_name(DedupePath p) {
  return p == DedupePath::sort ? "sort" : p == DedupePath::bitmap ? "bitmap" : "stream";
}

// A stream of chunks through the scheduler (read -> compute -> write).
struct ChunkPlan {
  uint64_t chunk_records = 0;
  uint64_t chunk_bytes = 0;
  unsigned slots = 0;  // chunks in flight
};

// The sort engine's part of a plan: of sort, and of the sorts runs, merge and dedupe run.
// The input's size, records and budget are the PlanReport's.
struct SortPlanReport {
  PlanMode mode = PlanMode::in_memory;
  uint64_t run_records = 0;         // records per run (the chunk size)
  uint64_t runs = 0;
  std::vector<uint64_t> run_sizes;  // records in each run
  uint64_t fan_in = 0;              // a stream's: at most (its runs are known at its end)
  bool fan_in_clamped = false;      // --fan-in was lowered to fit --memory
  uint64_t merge_buffer_bytes = 0;  // read buffer per merge input
  unsigned merge_threads = 1;
  std::vector<MergeLevel> levels;   // in order; the last writes the output
  uint64_t temp_bytes = 0;          // peak temporary space
  bool direct_io = false;           // temp files (and a synced output) bypass the page cache
  uint64_t early_writeback_bytes = 0;  // runs whose writeback starts as they form (a synced output)
  uint64_t held_runs = 0, held_run_bytes = 0;  // the last runs, held in memory for the merge (never written)
  uint64_t run_files = 1;           // files each written run is cut into (merge inputs of their own)
  uint64_t buckets = 0, bucket_records = 0;  // partition
  uint64_t partition_chunk_bytes = 0, partition_stage_bytes = 0;
  uint64_t output_bytes = 0;
  uint64_t bytes_read = 0, bytes_written = 0;  // everything: run formation and merges
};

// dedupe: the strategy and the sizes of the path it takes.
struct DedupePlanReport {
  DedupePath strategy = DedupePath::sort;
  bool keep_first = true;        // the sort drops duplicates (-u); else sort, then the group pass
  bool sort_planned = true;      // the sort's plan fits --memory (the bitmap and the stream need none)
  ChunkPlan bitmap;              // the keys streamed into the bitmap
  std::optional<uint64_t> bitmap_budget;  // host bytes the bitmap may take (none: --strategy bitmap)
  uint64_t bitmap_bytes = 0;     // the bitmap of every 4-byte key
  ChunkPlan group;               // the group pass
  uint64_t key_samples = 0;      // keys sampled for key_span
  std::optional<uint64_t> key_span;  // the sampled keys' span --strategy auto weighed (none: not sampled)
};

// graph build: parse blocks, the CSR's blocks, the budget its offsets must fit.
struct GraphBuildPlanReport {
  uint64_t parse_block_bytes = 0;
  uint64_t csr_block_bytes = 0;
  uint64_t offsets_budget = 0;
  uint64_t max_edge_records = 0;  // binary input: edge records at most (0: text, counted as parsed)
};

// bfs: the load's budget, and with the graph's size the search's backend and device layout.
struct BfsPlanReport {
  uint64_t load_budget = 0;   // host bytes the CSR may take (0: no limit)
  bool graph_known = false;   // vertices and edges read: the search is planned
  uint64_t vertices = 0, edges = 0;
  bool on_device = false;
  uint64_t device_budget = 0;
  uint64_t resident_bytes = 0;  // on the device: everything but the neighbors
  uint64_t need_bytes = 0;      // what the device plan allocates (more than the budget: refused)
  bool streamed = false;        // the neighbors stay in host memory
  bool host_mapped = false;     // streamed: read in place from pinned host memory
  uint64_t partition_edges = 0, partitions = 0;  // streamed in partitions
};

// What --resume would find of a sort, runs or merge job: the journal read and the
// pieces' sizes checked, their checksums not (the resume verifies them).
struct ResumeState {
  enum class Of { sort, runs, merge } of = Of::sort;  // runs: never merged; merge: no runs to form
  bool resumable = false;  // the job keeps pieces (in memory, a stream or one merge level: none)
  std::string job_dir;   // "" when no killed run left one
  bool running = false;  // a live process holds the job now
  size_t runs = 0, runs_kept = 0, runs_to_form = 0, merges = 0, merges_kept = 0;
  size_t buckets = 0, buckets_written = 0, buckets_kept = 0;  // kept: of those not written
  double last_merge_from = 0;  // the part of the last merge its checkpoints cover
};

// ... of a job of stages (dedupe --count or --keep last, graph build), one of which runs a
// sort of its own.
struct StagedResume {
  std::string job_dir;  // "" when no killed run left one
  bool running = false;
  std::vector<std::string> kept;    // the stages kept, in words ("the parsed edges")
  std::string sort_of;              // what the next stage sorts ("the edges"), or "" when none is left
  std::optional<ResumeState> sort;  // that sort's pieces, where its input is there to name its job
  std::vector<std::string> left;    // the stages after that sort, in words ("write the CSR")
};

// plan --resume: the job's pieces or stages; neither where the job keeps no pieces.
struct ResumeReport {
  std::optional<ResumeState> pieces;
  std::optional<StagedResume> stages;
};

// One rank of a distributed sort (plan --distributed).
struct RankPlanReport {
  int rank = 0;
  uint64_t first = 0, records = 0;  // its slice of the input
  uint64_t memory = 0;              // its --memory
  PlanMode local = PlanMode::in_memory;  // how it sorts its slice
  uint64_t runs = 0, run_records = 0;
  uint64_t staging = 0;             // bytes of its two staging buffers
  uint64_t round_records = 0;       // what its buffers let a round move (0: too small)
  uint64_t held = 0;                // bytes its sorted data holds in memory during the exchange
  unsigned threads = 1;
  bool slice_fits_device = false;   // a GPU's resident sort can hold its slice
  std::string backend;
};

// The whole distributed job: every rank's part and the exchange at balance.
struct DistributedPlanReport {
  std::vector<RankPlanReport> ranks;
  uint64_t round_records = 0;  // the least of the ranks' (0: --memory too small to stage)
  uint64_t rounds = 0;         // at balance
  uint64_t total_runs = 0;
  bool device_exchange = false;  // device to device (CUDA IPC), where every GPU can hold its part
  bool file_exchange = false;    // through the others' run files (one host)
};

struct PlanReport {
  CommandKind command = CommandKind::sort;  // the command planned (its name: command_name)
  std::string input;          // its (first) input
  std::string output;         // gen: its output (the other commands' plans do not show theirs)
  std::string backend;        // "" where none is chosen yet (graph build: its sort makes its own)
  bool device_auto_cpu = false;  // --device auto took the CPU (in memory, records wider than 64 bytes)
  std::string format;         // the record format, in words
  bool stream = false;        // the input is a stream: its size is known when it ends
  unsigned threads = 1;
  uint64_t memory = 0;        // the host budget
  uint64_t input_bytes = 0, records = 0;
  size_t record_size = 0;
  ChunkPlan chunks;           // check, reduce, runs: the chunks (runs: of a run each)
  uint64_t window_memory = 0; // host bytes for a device merge's windows
  SortPlanReport sort;        // sort, runs, merge, and dedupe's sort
  DedupePlanReport dedupe;    // command dedupe
  GraphBuildPlanReport graph; // command graph build
  BfsPlanReport bfs;          // command bfs
  std::vector<std::string> temp_dirs;  // a sort through temp files: where they go
  std::optional<ResumeReport> resume;  // --resume
  std::optional<DistributedPlanReport> distributed;  // --distributed
};

}  // namespace gxsort
