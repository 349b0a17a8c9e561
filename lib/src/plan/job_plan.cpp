// make_plan(PlanRequest): every command's sizes, from the sort planner's rules (plan.cpp) and
// the streaming commands' chunk rules below.
#include <algorithm>

#include "gxsort/error.hpp"
#include "io/output.hpp"
#include "kernels/key_bitmap.hpp"
#include "kernels/reduce.hpp"
#include "plan/plan_request.hpp"

namespace gxsort {
namespace {

constexpr unsigned kStreamSlots = 3;                     // chunks in flight: read, compute, write
constexpr uint64_t kStreamChunkBytes = uint64_t(64) << 20;  // check, reduce: chunks of about 64 MiB
constexpr uint64_t kGroupChunkBytes = uint64_t(32) << 20;   // the dedupe group pass
constexpr uint64_t kBitmapChunkKeys = uint64_t(16) << 20;   // the bitmap dedupe: 64 MiB of keys
constexpr uint64_t kMemoryMergeWindow = uint64_t(16) << 20; // data held in memory: the least window memory
constexpr size_t kMemoryMergeBuffer = size_t(4) << 20;       // a merge of pieces in place: the output buffer
constexpr size_t kResidentSliceBytes = size_t(64) << 20;  // the resident sort's slices in and out
constexpr size_t kParseBlockBytes = size_t(64) << 20;     // graph build: binary edges per block

// The runs' bytes to write back as they form: those beyond what may stay dirty, 3/4 of
// the flusher's threshold and at most what the synced output's backlog
// (io::Output::kSyncedBacklog) leaves of it. 0 where the threshold is unknown.
uint64_t early_writeback_bytes(uint64_t run_bytes, uint64_t dirty_background) {
  if (!dirty_background) return 0;
  const uint64_t beside_output = dirty_background - std::min(dirty_background, io::Output::kSyncedBacklog);
  const uint64_t kept_dirty = std::min(dirty_background / 4 * 3, beside_output);
  return run_bytes > kept_dirty ? run_bytes - kept_dirty : 0;
}

// The external sort's last runs held in memory for its merge (Plan::held_runs), where
// its executor holds them (PlanRequest::hold_runs): with one merge level only (an
// intermediate merge would hold them through its level), at most the formation's slots,
// never every run, and within what the merge keeps of the budget: a device merge's
// windows, at most a quarter of it (smaller windows are more of them), or half for the
// CPU merge's read buffers. A benchmark's count (PlanRequest::held_runs) may leave the
// merge less, but an eighth at least.
size_t held_runs(const PlanRequest& j, const Plan& p) {
  if (!j.hold_runs || p.levels.size() != 1 || p.runs < 2) return 0;
  const uint64_t windows = device_window_records(j.window_records, p.memory, p.record_size) * kWindowSlots * p.record_size;
  uint64_t merge = j.window_records ? std::min(p.memory / 4, windows) : p.memory / 2;
  if (j.held_runs) merge = p.memory / 8;
  const uint64_t run_bytes = std::max<uint64_t>(1, uint64_t(p.run_records) * p.record_size);
  uint64_t k = std::min<uint64_t>({p.chunks.slots, p.runs - 1, (p.memory - merge) / run_bytes});
  if (j.held_runs) k = std::min<uint64_t>(k, *j.held_runs);
  return size_t(k);
}

// Files a written run is cut into (Plan::run_files) by default: on a host of 16 threads,
// two runs written at once then fill 8 files, where one file's buffered writes stopped at
// 4.4 GB/s whatever its threads and 8 files took 27 GB/s (bench/page_cache_write,
// docs/benchmarks.md). Fewer on fewer threads: they are the same cores that read.
constexpr size_t kMaxRunFiles = 4;

// The merge's read buffer for each of `inputs` written inputs (a held run needs none),
// `merge_threads` times, from what the held runs leave of the budget.
size_t merge_buffer_bytes(const Plan& p, uint64_t inputs) {
  const uint64_t buffers = uint64_t(p.merge_threads) * (inputs + 1);
  return size_t((p.memory - p.held_run_bytes) / buffers / p.record_size * p.record_size);
}

// Plan::run_files: only where run formation's writes are the sort's bound (a device
// merges, the output synced: the sort then waits for the disk to write the output and
// the runs beyond what stays dirty, and runs that form sooner let it start sooner) and
// the parts keep the plan as it is: one merge level (runs <= fan_in), its inputs still
// within the fan-in, each still with a read buffer of kMinMergeBuffer. Not unsynced: the
// kernel's flusher then writes the runs back, and more run files made it write more of
// them (16 GiB with --no-fsync on the H200 host: 16.5 s against 10.1 s, docs/benchmarks.md).
// Not with -u (a run that shrinks below the parts would leave one empty) nor direct runs
// (written around the page cache, at the disk's speed). At most the smallest written
// run's records, so that no part is empty.
size_t run_files(const PlanRequest& j, const Plan& p) {
  if (!j.hold_runs || !j.fsync || j.unique || p.direct_io || p.levels.size() != 1 || p.runs <= p.held_runs) return 1;
  size_t k = j.run_files ? *j.run_files : (j.window_records ? std::min<size_t>(kMaxRunFiles, p.threads / 4) : 1);
  const uint64_t written = p.runs - p.held_runs;
  const uint64_t smallest = *std::min_element(p.run_sizes.begin(), p.run_sizes.begin() + written);
  k = size_t(std::min<uint64_t>({k, smallest, (p.fan_in - p.held_runs) / written}));
  const uint64_t least = std::max<uint64_t>(kMinMergeBuffer, p.record_size);
  while (k > 1 && merge_buffer_bytes(p, written * k) < least) --k;
  return std::max<size_t>(k, 1);
}

// The bytes of the held runs: the last ones, so the last run's size counts.
uint64_t held_run_bytes(const Plan& p) {
  uint64_t bytes = 0;
  for (size_t i = p.runs - p.held_runs; i < p.runs; ++i) bytes += p.run_sizes[i] * p.record_size;
  return bytes;
}

// The common part of every plan: the input, the budget, the threads.
Plan base_plan(const PlanRequest& j) {
  Plan p;
  p.command = j.command;
  p.threads = resolve_threads(j.threads);
  p.stream = j.stream;
  p.input_bytes = j.sort.input_bytes;
  p.record_size = j.sort.record_size;
  p.records = j.sort.record_size ? j.sort.input_bytes / j.sort.record_size : 0;
  p.memory = j.sort.memory;
  p.output_bytes = j.sort.input_bytes;
  if (p.record_size) p.resident_slice_bytes = std::max<size_t>(1, kResidentSliceBytes / p.record_size) * p.record_size;
  return p;
}

// A budget must hold `slots` chunks of at least `least` records each.
void require_stream_budget(const PlanRequest& j, uint64_t least, const char* what) {
  const uint64_t need = uint64_t(kStreamSlots) * least * j.sort.record_size;
  if (j.sort.memory < need)
    fail_usage(option_ref("memory", format_bytes(j.sort.memory)) + " is too small to " + what + " " +
               std::to_string(j.sort.record_size) + "-byte records (need at least " + format_bytes(need) + ")");
}

StreamPlan stream_of(size_t chunk_records, size_t record_size, unsigned slots) {
  return {chunk_records, chunk_records * record_size, slots};
}

// A merge's windows within `window_memory` (p.window_memory, p.window_records).
void plan_windows(const PlanRequest& j, uint64_t window_memory, Plan& p) {
  p.window_memory = window_memory;
  p.window_records = device_window_records(j.window_records, window_memory, j.sort.record_size);
}

// A merge of `data_bytes` of sorted data held in memory (runs kept in RAM, what a rank
// of --distributed received): the windows get what the data leaves of the budget, at
// least kMemoryMergeWindow; a CPU merge writes through an output buffer.
void plan_merge_in_memory(const PlanRequest& j, uint64_t data_bytes, Plan& p) {
  plan_windows(j, std::max<uint64_t>(p.memory - std::min(p.memory, data_bytes), kMemoryMergeWindow), p);
  p.memory_merge_buffer_bytes = kMemoryMergeBuffer;
}

Plan plan_sort(const PlanRequest& j) {
  Plan p = make_plan(j.sort);
  const Plan b = base_plan(j);
  p.command = b.command;
  p.threads = b.threads;
  p.stream = j.stream;
  p.direct_output = p.direct_io;
  p.resident_slice_bytes = b.resident_slice_bytes;
  const size_t rs = j.sort.record_size;
  if (j.stream) {  // runs of the external plan's size (partition samples the whole input: not a stream)
    PlanInput pi = j.sort;
    pi.ooc = OocMethod::merge;
    p.run_records = external_run_records(pi);
    p.chunks = stream_of(p.run_records, rs, kStreamSlots);
    p.direct_io = use_direct_io(j.sort.direct_io, 0, j.sort.page_cache_bytes);  // size unknown: only when asked
  } else if (p.mode == PlanMode::in_memory) {  // a device's resident sort: slices in and out
    p.chunks = stream_of(p.resident_slice_bytes / rs, rs, kStreamSlots);
  } else if (p.mode == PlanMode::external) {
    p.chunks = stream_of(p.run_records, rs, unsigned(std::min<size_t>(kStreamSlots, std::max<size_t>(1, p.runs))));
    p.held_runs = held_runs(j, p);
    p.held_run_bytes = held_run_bytes(p);
    const uint64_t held = p.held_run_bytes;
    p.temp_bytes -= held;  // no file (the stages' bytes still count them: the merge reads them)
    if (!p.direct_io) p.early_writeback_bytes = early_writeback_bytes(p.input_bytes - held, j.sort.dirty_background_bytes);
    // The merge's buffers get what the held runs leave; a held run needs no read buffer.
    plan_windows(j, p.memory - held, p);
    p.run_files = run_files(j, p);
    if (held || p.run_files > 1) p.merge_buffer_bytes = merge_buffer_bytes(p, (std::min(p.fan_in, p.runs) - p.held_runs) * p.run_files);
    return p;
  }
  if (p.mode == PlanMode::runs_in_memory) plan_merge_in_memory(j, p.input_bytes, p);  // the data stays in memory
  else plan_windows(j, p.memory, p);
  return p;
}

// `runs`: the external plan's run size, the runs written to the output directory.
Plan plan_runs(const PlanRequest& j) {
  make_plan(j.sort);  // the sort's budget checks
  Plan p = base_plan(j);
  p.mode = PlanMode::external;
  p.run_records = external_run_records(j.sort);
  if (!j.stream) p.run_records = size_t(std::min<uint64_t>(p.run_records, std::max<uint64_t>(p.records, 1)));
  p.runs = j.stream ? 0 : size_t((p.records + p.run_records - 1) / p.run_records);
  for (size_t r = 0; r < p.runs; ++r)
    p.run_sizes.push_back(std::min<uint64_t>(p.run_records, p.records - uint64_t(r) * p.run_records));
  p.direct_io = use_direct_io(j.sort.direct_io, p.input_bytes, j.sort.page_cache_bytes);
  const unsigned slots = j.stream ? kStreamSlots : unsigned(std::min<uint64_t>(kStreamSlots, p.runs));
  p.chunks = stream_of(p.run_records, p.record_size, slots);
  p.bytes_read = p.bytes_written = p.input_bytes;
  return p;
}

// `merge`: no run formation; the tree is planned over the files as given.
Plan plan_merge(const PlanRequest& j) {
  make_plan(j.sort);  // the sort's budget checks, for the same bytes
  Plan p = base_plan(j);
  p.mode = PlanMode::external;
  p.run_sizes = j.input_records;
  plan_merge_tree(j.sort, p);
  plan_windows(j, p.memory, p);
  // The user's files: the output goes direct when it alone would crowd the cache. The
  // runs of a stream (j.stream): as the external sort's last merge, by the temp space.
  p.direct_output = j.stream ? p.direct_io : use_direct_io(j.sort.direct_io, p.input_bytes, j.sort.page_cache_bytes);
  return p;
}

Plan plan_check(const PlanRequest& j) {
  require_stream_budget(j, 1, "check");
  Plan p = base_plan(j);
  const size_t rs = j.sort.record_size;
  uint64_t chunk = std::min<uint64_t>(kStreamChunkBytes / rs, j.stream ? UINT64_MAX : p.records);
  chunk = std::max<uint64_t>(1, std::min<uint64_t>(chunk, j.sort.memory / kStreamSlots / rs));
  // A device checks a chunk in its memory: keep chunks within its budget.
  if (j.sort.max_chunk_records) chunk = std::max<uint64_t>(1, std::min<uint64_t>(chunk, j.sort.max_chunk_records));
  p.chunks = stream_of(size_t(chunk), rs, kStreamSlots);
  p.bytes_read = p.input_bytes;
  p.output_bytes = p.bytes_written = 0;
  return p;
}

// Chunks are whole reduction blocks: results must not depend on the chunking.
Plan plan_reduce(const PlanRequest& j) {
  const uint64_t B = kReduceBlock;
  require_stream_budget(j, B, "reduce");
  Plan p = base_plan(j);
  const size_t rs = j.sort.record_size;
  uint64_t chunk = std::max<uint64_t>(B, kStreamChunkBytes / rs / B * B);
  chunk = std::min<uint64_t>(chunk, std::max<uint64_t>(B, j.sort.memory / kStreamSlots / rs / B * B));
  if (j.sort.max_chunk_records) chunk = std::min<uint64_t>(chunk, std::max<uint64_t>(B, j.sort.max_chunk_records / B * B));
  if (!j.stream) chunk = std::min<uint64_t>(chunk, (p.records + B - 1) / B * B);
  chunk = std::max<uint64_t>(chunk, B);
  p.chunks = stream_of(size_t(chunk), rs, kStreamSlots);
  p.bytes_read = p.input_bytes;
  p.output_bytes = p.bytes_written = 0;
  return p;
}

// The bitmap's key chunks and the budget the bitmap may take beside them; the group
// pass's chunks (each input chunk with its output: a record and a count per record).
void plan_dedupe_streams(const PlanRequest& j, DedupePlan& d) {
  const uint64_t memory = j.sort.memory;
  const size_t rs = j.sort.record_size;
  uint64_t keys = std::max<uint64_t>(1024, std::min<uint64_t>(kBitmapChunkKeys, memory / 4 / 4));
  if (!j.stream) keys = std::min<uint64_t>(keys, std::max<uint64_t>(j.sort.input_bytes / rs, 1));
  d.bitmap = stream_of(size_t(keys), 4, kStreamSlots);
  const uint64_t chunks_bytes = uint64_t(kStreamSlots) * keys * 4;
  d.bitmap_budget = j.dedupe.strategy == DedupeStrategy::bitmap ? UINT64_MAX
                                                                 : (memory > chunks_bytes ? memory - chunks_bytes : 0);
  const uint64_t per = 2 * rs + 8;
  const uint64_t group = std::max<uint64_t>(rs, std::min<uint64_t>(kGroupChunkBytes, memory / kStreamSlots / per * rs));
  d.group = stream_of(size_t(group / rs), rs, kStreamSlots);
}

// dedupe: the sort's plan (-u) when the budget allows one; the stream and the bitmap
// need none, so a budget too small to merge runs stops only the sort strategy.
Plan plan_dedupe(const PlanRequest& j) {
  const DedupeOptions& o = j.dedupe;
  const Format& f = j.format;
  Plan p;
  bool planned = true;
  std::string why;
  try {
    p = plan_sort(j);
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage || (!o.assume_sorted && o.strategy == DedupeStrategy::sort)) throw;
    planned = false;
    why = e.message();
    p = base_plan(j);
  }
  p.command = CommandKind::dedupe;
  DedupePlan& d = p.dedupe;
  d.sort_planned = planned;
  d.sort_refused = why;
  d.keep_first = !o.count && (!o.keep_last || f.flat());
  DedupeInput in;
  in.records = j.stream ? 0 : p.records;
  in.sort_in_memory = j.stream || (planned && p.mode == PlanMode::in_memory);
  in.gpu = j.device_budget > 0;  // only a backend with a device has a device budget
  in.key_span = j.dedupe_key_span;
  d.key_span = j.dedupe_key_span;
  d.strategy = choose_dedupe_strategy(o.strategy, f, o.count, o.assume_sorted, in);
  if (d.strategy == DedupePath::sort && !planned) fail_usage(why);
  plan_dedupe_streams(j, d);
  return p;
}

Plan plan_graph_build(const PlanRequest& j) {
  Plan p = base_plan(j);
  GraphBuildPlan& g = p.graph;
  g.parse_block_bytes = kParseBlockBytes;
  g.csr_block_bytes = 2 * kParseBlockBytes;  // of 16-byte records: 128 MiB in, at most 64 MiB of ids out
  g.offsets_budget = j.sort.memory;
  const uint64_t pair = j.edge_format == EdgeFormat::bin32 ? 8 : j.edge_format == EdgeFormat::bin64 ? 16 : 0;
  if (pair && !j.stream) g.max_edge_records = j.sort.input_bytes / pair * (j.symmetrize ? 2 : 1);
  p.records = g.max_edge_records;
  p.record_size = 16;
  return p;
}

Plan plan_bfs(const PlanRequest& j) {
  Plan p = base_plan(j);
  BfsPlan& b = p.bfs;
  b.load_budget = j.sort.memory;
  b.device_budget = j.device_budget;
  b.graph_known = j.graph_known;
  b.vertices = j.vertices;
  b.edges = j.edges;
  if (!j.graph_known) return p;
  const bool fits = j.vertices <= j.max_device_vertices;
  if (!fits && j.device == Device::cuda)
    fail_usage(option_ref("device", "cuda") + ": graphs of 2^32 or more vertices are not supported on the GPU yet");
  b.on_device = j.device_budget > 0 && fits;
  if (b.on_device) b.device = graph::plan_bfs_device(j.vertices, j.edges, j.device_budget);
  return p;
}

}  // namespace

const char* command_name(CommandKind k) {
  switch (k) {
    case CommandKind::sort: return "sort";
    case CommandKind::runs: return "runs";
    case CommandKind::merge: return "merge";
    case CommandKind::dedupe: return "dedupe";
    case CommandKind::check: return "check";
    case CommandKind::reduce: return "reduce";
    case CommandKind::graph_build: return "graph build";
    case CommandKind::bfs: return "bfs";
    case CommandKind::gen: return "gen";
  }
  return "?";
}

unsigned resolve_threads(unsigned requested) { return requested ? requested : std::max(1u, default_threads()); }

uint64_t device_window_records(uint64_t max_window_records, uint64_t window_memory, size_t record_size) {
  if (max_window_records == 0) return 0;
  uint64_t w = max_window_records;
  if (window_memory) w = std::min<uint64_t>(w, window_memory / (kWindowSlots * record_size));
  return std::max<uint64_t>(1, w);
}

Plan plan_rank_merge(const PlanRequest& rank_job, const std::vector<uint64_t>& piece_records, RankMerge where) {
  PlanRequest j = rank_job;
  j.command = CommandKind::merge;
  j.input_records = piece_records;
  uint64_t records = 0;
  for (uint64_t r : piece_records) records += r;
  j.sort.input_bytes = records * j.sort.record_size;
  if (where == RankMerge::files) return make_plan(j);
  Plan p = base_plan(j);
  p.mode = PlanMode::external;
  p.run_sizes = piece_records;
  p.runs = piece_records.size();
  if (where == RankMerge::held_in_memory) {
    plan_merge_in_memory(j, p.input_bytes, p);
  } else {
    plan_windows(j, p.memory, p);
    p.memory_merge_buffer_bytes = kMemoryMergeBuffer;
  }
  return p;
}

uint64_t resolve_memory(const SizeOption& memory, uint64_t limit, unsigned sharing) {
  return memory.given ? memory.of(limit) : limit / 2 / std::max(1u, sharing);
}

Plan make_plan(const PlanRequest& j) {
  switch (j.command) {
    case CommandKind::sort: return plan_sort(j);
    case CommandKind::runs: return plan_runs(j);
    case CommandKind::merge: return plan_merge(j);
    case CommandKind::dedupe: return plan_dedupe(j);
    case CommandKind::check: return plan_check(j);
    case CommandKind::reduce: return plan_reduce(j);
    case CommandKind::graph_build: return plan_graph_build(j);
    case CommandKind::bfs: return plan_bfs(j);
    case CommandKind::gen: break;  // writes records it makes: no engine to plan
  }
  return base_plan(j);
}

}  // namespace gxsort
