// One plan for every command: a PlanRequest says what a command is asked to do (its inputs'
// sizes, its format and options, its budgets as byte counts, the backend's limits), and
// make_plan(PlanRequest) returns the Plan that sizes everything its executor uses: chunks,
// slots, runs, fan-in, windows, buffers, the dedupe strategy, threads, the BFS device
// layout. Pure: no I/O, no backend; `gxsort plan CMD` shows it, the command runs it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gxsort/format.hpp"
#include "gxsort/gxsort.hpp"  // DedupeOptions
#include "gxsort/options.hpp"
#include "plan/plan.hpp"

namespace gxsort {

struct PlanRequest {
  CommandKind command = CommandKind::sort;
  // The sort's inputs as the sort planner takes them: the input's bytes, the record and
  // sort scratch sizes, the host budget (--memory, in bytes), the backend's chunk limit,
  // --fan-in, --direct-io, --ooc, the page cache. The other commands read the same
  // fields for their sizes (input_bytes, record_size, memory, max_chunk_records).
  PlanInput sort;
  Format format;
  unsigned threads = 0;          // --threads as given (0: default_threads()); resolved by make_plan
  bool stream = false;           // the input is a stream: its size is known only at its end
  bool distributed = false;      // a rank of sort or merge --distributed (its slice's job)
  uint64_t window_records = 0;   // the backend's device merge window (0: the CPU merges)
  uint64_t device_budget = 0;    // bytes of the backend's device arena (0: no device)
  // The external sort's last runs held in memory for its merge (Plan::held_runs): only
  // where the executor is engine/sort.cpp's run formation (the file sort, dedupe's sort;
  // not the API's runs from memory, which writes every run); held_runs: a benchmark's
  // count (Tuning::sort_held_runs).
  bool hold_runs = false;
  std::optional<size_t> held_runs;
  // -u: runs shrink before they are written (none is cut into files: a part could be
  // empty); fsync: the output is synced (not --no-fsync); run_files: a benchmark's or
  // test's count of files a run (Tuning::sort_run_files). Plan::run_files says why.
  bool unique = false;
  bool fsync = false;
  std::optional<size_t> run_files;

  // merge: the records of each input, in argument order.
  std::vector<uint64_t> input_records;
  // dedupe: its options, and the span of a sample of its keys (DedupeInput::key_span; 0:
  // not sampled).
  DedupeOptions dedupe;
  uint64_t dedupe_key_span = 0;
  // graph build: the edge list's format (resolved: never automatic) and --symmetrize.
  EdgeFormat edge_format = EdgeFormat::snap;
  bool symmetrize = false;
  // bfs: the graph (0, 0 before it is read: then only the load is planned), --device,
  // and the largest graph the backend's device searches.
  uint64_t vertices = 0, edges = 0;
  bool graph_known = false;
  Device device = Device::automatic;
  uint64_t max_device_vertices = UINT64_MAX;
};

// Throws Error(usage) naming the budget when it cannot hold what the command needs (the
// sort's rules for sort, runs, merge; a few chunks' records for check, reduce and the
// dedupe streams); nothing else.
Plan make_plan(const PlanRequest& job);

// A device merge's windows: kWindowSlots in flight (read, merge, write), each of the
// backend's largest window (`max_window_records`; 0: the backend has no device merge,
// the CPU merges) or less, all within `window_memory` bytes (0: no limit), at least one
// record. A merge cuts them further only to its own output (and a resumable one to whole
// checksum blocks: engine/merge.cpp).
constexpr unsigned kWindowSlots = 3;
uint64_t device_window_records(uint64_t max_window_records, uint64_t window_memory, size_t record_size);

// The merge a rank of --distributed runs (its PlanRequest: prepare_rank's, engine/engine.hpp) over
// sorted pieces of `piece_records` records each: read in place from the user's files
// (merge --distributed: one merge, the budget its windows'), held in memory (what sort
// --distributed received: the windows get what the data leaves), or in temp files (the
// merge tree of `merge`).
enum class RankMerge { in_place, held_in_memory, files };
Plan plan_rank_merge(const PlanRequest& rank_job, const std::vector<uint64_t>& piece_records, RankMerge where);

// The thread count a command runs with: --threads, else the CPUs this process may use.
unsigned resolve_threads(unsigned requested);
// The host budget in bytes of --memory under the memory limit `limit` (RAM, or the
// cgroup's when lower): as given (a percent of the limit resolved), else half of the
// limit, shared by `sharing` processes (the ranks of a distributed job on one host).
uint64_t resolve_memory(const SizeOption& memory, uint64_t limit, unsigned sharing = 1);

}  // namespace gxsort
