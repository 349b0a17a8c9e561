// `gxsort plan` as text for people: the sort's plan, a command's, a resume's and a
// distributed job's.
#include <algorithm>
#include <sstream>

#include "render_plan.hpp"

namespace gxsort::cli {
namespace {

// ---- the sort engine's plan ----

// The "fan-in:" and "merge level N:" lines.
void merge_levels_text(std::ostringstream& o, const SortPlanReport& s) {
  o << "fan-in: " << s.fan_in << (s.fan_in_clamped ? " (lowered to fit --memory)" : "") << "\n";
  for (size_t l = 0; l < s.levels.size(); ++l) {
    const MergeLevel& lv = s.levels[l];
    size_t merges = 0, carried = 0, widest = 0;
    for (size_t g : lv.groups) {
      if (g > 1) ++merges; else ++carried;
      widest = std::max(widest, g);
    }
    if (lv.final) { merges = 1; carried = 0; }
    o << "merge level " << (l + 1) << ": " << merges << " merge" << (merges == 1 ? "" : "s") << " of up to " << widest
      << " runs";
    if (carried) o << ", " << carried << " run carried over";
    o << ", reads " << format_bytes(lv.bytes_read) << ", writes " << format_bytes(lv.bytes_written)
      << (lv.final ? " (the output)" : "") << "\n";
  }
}

const char* temp_files_text(bool direct_io) {
  return direct_io ? "written around the page cache (--direct-io)" : "through the page cache";
}

void partition_text(std::ostringstream& o, const PlanReport& r) {
  const SortPlanReport& s = r.sort;
  o << "pass 1: the records are scattered by key range into " << s.buckets << " bucket files (splitters sampled "
    << "from the input), in chunks of " << format_bytes(s.partition_chunk_bytes) << ", written in pieces of "
    << format_bytes(s.partition_stage_bytes) << "\n";
  o << "pass 2: each bucket is sorted in memory (up to " << s.bucket_records << " records, "
    << format_bytes(s.bucket_records * r.record_size) << ") into its place in the output; "
    << "a larger one is sorted through merged runs\n";
  o << "temporary files: through the page cache\n";
}

void sort_text(std::ostringstream& o, const PlanReport& r) {
  const SortPlanReport& s = r.sort;
  o << "input: " << r.records << " records of " << r.record_size << " bytes (" << format_bytes(r.input_bytes) << ")\n";
  o << "memory budget: " << format_bytes(r.memory) << "\n";
  o << "mode: " << plan_mode_name(s.mode) << "\n";
  if (s.mode == PlanMode::in_memory) {
    o << "one chunk sorted in memory; no temporary files\n";
  } else if (s.mode == PlanMode::partition) {
    partition_text(o, r);
  } else {
    o << "runs: " << s.runs << " of up to " << s.run_records << " records (" << format_bytes(s.run_records * r.record_size)
      << ")" << (s.mode == PlanMode::external ? " in temporary files" : " kept in memory") << "\n";
    merge_levels_text(o, s);
    if (s.mode == PlanMode::external) {
      o << "merge buffer: " << format_bytes(s.merge_buffer_bytes) << " per input\n";
      o << "temporary files: " << temp_files_text(s.direct_io) << "\n";
      if (s.run_files > 1)
        o << "each written run in " << s.run_files << " files (written at once, merged as runs of their own)\n";
      if (s.held_runs)
        o << "runs held in memory for the merge (never written): the last " << s.held_runs << ", "
          << format_bytes(s.held_run_bytes) << "\n";
      if (s.early_writeback_bytes)
        o << "runs written back as they form (a synced output): the first " << format_bytes(s.early_writeback_bytes)
          << ", beyond 3/4 of the dirty pages the kernel's flusher leaves alone (less the output's backlog)\n";
    }
  }
  o << "temporary space: " << format_bytes(s.temp_bytes) << "\n";
  o << "total read: " << format_bytes(s.bytes_read) << ", total written: " << format_bytes(s.bytes_written) << "\n";
}

// ---- plan --resume ----

const char* kKeepsNothing =
    "resume: this job keeps no pieces (nothing of it goes through temporary files a resume could reuse): a killed "
    "run starts from the beginning\n";
const char* kNoJob = "resume: no killed run of this job (same input, options and output) left pieces: it starts from the beginning\n";
const char* kSizesOnly = "  (sizes checked here; the resume verifies each piece's checksums first)\n";

std::string resume_head(const std::string& job_dir, bool running) {
  return "resume: the job directory " + job_dir + (running ? " (a gxsort is running this job now)" : "") + "\n";
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

int percent(double part) { return int(part * 100); }

// "3 of 8 runs, 1 of 2 merge outputs, the last merge 40% done"
std::string kept_words(const ResumeState& r) {
  const std::string n = std::to_string(r.buckets);
  if (r.buckets)
    return std::to_string(r.buckets_written) + " of " + n + " buckets written into the output, " +
           std::to_string(r.buckets_kept) + " of the other " + std::to_string(r.buckets - r.buckets_written) + " as bucket files";
  std::vector<std::string> parts;
  if (r.of != ResumeState::Of::merge) parts.push_back(std::to_string(r.runs_kept) + " of " + std::to_string(r.runs) + " runs");
  if (r.of != ResumeState::Of::runs)
    parts.push_back(std::to_string(r.merges_kept) + " of " + std::to_string(r.merges) + " merge outputs");
  if (percent(r.last_merge_from) > 0) parts.push_back("the last merge " + std::to_string(percent(r.last_merge_from)) + "% done");
  return joined(parts, ", ");
}

// "form 5 runs, 1 merges, then the last merge from 40%"
std::string left_words(const ResumeState& r) {
  if (r.buckets) {
    const size_t left = r.buckets - r.buckets_written;
    return std::string(r.buckets_kept == left ? "" : "pass 1 again (for the missing buckets), ") + "sort " +
           std::to_string(left) + " buckets into the output";
  }
  const int from = percent(r.last_merge_from);
  const std::string form = "form " + std::to_string(r.runs_to_form) + " runs";
  if (r.of == ResumeState::Of::runs) return form + ", then the manifest";
  const std::string merges = std::to_string(r.merges - r.merges_kept) + " merges, then the last merge" +
                             (from > 0 ? " from " + std::to_string(from) + "%" : "");
  return r.of == ResumeState::Of::merge ? merges : form + ", " + merges;
}

std::string pieces_text(const ResumeState& r) {
  if (!r.resumable) return kKeepsNothing;
  if (r.job_dir.empty()) return kNoJob;
  return resume_head(r.job_dir, r.running) + "  kept: " + kept_words(r) + "\n  left: " + left_words(r) + "\n" + kSizesOnly;
}

std::string stages_text(const StagedResume& r) {
  if (r.job_dir.empty()) return kNoJob;
  std::vector<std::string> kept = r.kept, left;
  const bool sort_found = r.sort && !r.sort->job_dir.empty();
  if (sort_found) kept.push_back("of the sort of " + r.sort_of + ": " + kept_words(*r.sort));
  if (!r.sort_of.empty()) left.push_back("sort " + r.sort_of + (sort_found ? " (" + left_words(*r.sort) + ")" : ""));
  for (const std::string& s : r.left) left.push_back(s);
  return resume_head(r.job_dir, r.running) + "  kept: " + (kept.empty() ? "nothing" : joined(kept, "; ")) +
         "\n  left: " + joined(left, ", then ") + "\n" + kSizesOnly;
}

std::string resume_text(const ResumeReport& r) {
  if (r.pieces) return pieces_text(*r.pieces);
  if (r.stages) return stages_text(*r.stages);
  return kKeepsNothing;
}

// ---- plan IN: the sort ----

std::string stream_sort_text(const PlanReport& r) {
  std::ostringstream o;
  o << "backend: " << r.backend << "\nformat: " << format_with_width(r.format, r.record_size) << "\n";
  o << "input: " << r.input << " is a stream (a pipe, FIFO, device or standard input): its size cannot be known until it ends\n";
  o << "memory budget: " << format_bytes(r.memory) << "\n";
  o << "it is read in runs of up to " << r.sort.run_records << " records (" << format_bytes(r.sort.run_records * r.record_size)
    << "); one that ends inside the first run is sorted in memory, a longer one goes to runs in temporary files merged "
       "with fan-in up to "
    << r.sort.fan_in << "\n";
  return o.str();
}

std::string file_sort_text(const PlanReport& r) {
  std::ostringstream o;
  o << "backend: " << r.backend
    << (r.device_auto_cpu ? " (--device auto: in memory, records wider than 64 bytes sort faster here)" : "") << "\n";
  o << "format: " << format_with_width(r.format, r.record_size) << "\n";
  sort_text(o, r);
  if (!r.temp_dirs.empty()) o << "temporary directories: " << joined(r.temp_dirs, ", ") << "\n";
  if (r.resume) o << resume_text(*r.resume);
  return o.str();
}

// ---- plan CMD: the other commands ----

std::string chunks_text(const ChunkPlan& c, size_t record_size, const char* unit = "records") {
  return std::to_string(c.chunk_records) + " " + unit + " (" + format_bytes(c.chunk_records * record_size) + "), " +
         std::to_string(c.slots) + " in flight";
}

void input_text(std::ostringstream& o, const PlanReport& r) {
  o << "command: " << command_name(r.command) << "\n";
  if (r.command == CommandKind::bfs) {
    if (r.bfs.graph_known) o << "graph: " << r.bfs.vertices << " vertices, " << r.bfs.edges << " edges\n";
  } else if (r.command == CommandKind::graph_build) {
    o << "input: " << (r.stream ? "a stream" : format_bytes(r.input_bytes)) << " of edges\n";
  } else if (r.stream) {
    o << "input: a stream (a pipe, FIFO, device or standard input): its size is known when it ends\n";
  } else {
    o << "input: " << r.records << " records of " << r.record_size << " bytes (" << format_bytes(r.input_bytes) << ")\n";
  }
  o << "memory budget: " << (r.memory ? format_bytes(r.memory) : std::string("none")) << "\n";
  o << "threads: " << r.threads << "\n";
}

void dedupe_text(std::ostringstream& o, const PlanReport& r) {
  const DedupePlanReport& d = r.dedupe;
  o << "strategy: " << dedupe_path_name(d.strategy) << "\n";
  if (d.key_span)
    o << "keys sampled: " << d.key_samples << ", spanning " << *d.key_span << " key values (the bitmap's bits)\n";
  if (d.strategy == DedupePath::bitmap) {
    o << "bitmap: keys streamed in chunks of " << chunks_text(d.bitmap, 4, "keys") << "; the "
      << format_bytes(d.bitmap_bytes) << " bitmap of every key "
      << (d.bitmap_budget ? "within " + format_bytes(*d.bitmap_budget) + " (else the sort)" : std::string("(--strategy bitmap)"))
      << "; then the set bits written in order\n";
  } else if (d.strategy == DedupePath::stream) {
    o << "group pass over the sorted input (its order verified): chunks of " << chunks_text(d.group, r.record_size) << "\n";
  } else {
    o << (d.keep_first ? "the sort drops the duplicates (sort -u):\n"
                       : "a stable sort into a temporary file, then the group pass (chunks of " +
                             chunks_text(d.group, r.record_size) + "); the sort:\n");
    std::ostringstream sort;
    sort_text(sort, r);
    std::istringstream sort_lines(sort.str());
    for (std::string line; std::getline(sort_lines, line);) o << "  " << line << "\n";
  }
}

std::string neighbors_text(const BfsPlanReport& b) {
  const std::string partitions = "streamed in " + std::to_string(b.partitions) + " partitions of up to " +
                                 std::to_string(b.partition_edges) + " edges";
  if (!b.streamed) return "resident";
  if (!b.host_mapped) return partitions;
  return "read in place from pinned host memory (or, where pinning is refused, " + partitions + ")";
}

void bfs_text(std::ostringstream& o, const PlanReport& r) {
  const BfsPlanReport& b = r.bfs;
  o << "load: the CSR within " << (b.load_budget ? format_bytes(b.load_budget) : std::string("any memory")) << "\n";
  if (!b.graph_known) return;
  if (!b.on_device) {
    o << "search: the CPU BFS (level-synchronous, " << r.threads << " threads)\n";
    return;
  }
  o << "search: on the device, in " << format_bytes(b.device_budget) << " of device memory\n";
  o << "device: " << format_bytes(b.resident_bytes) << " resident (offsets, levels, parents, queues); neighbors "
    << neighbors_text(b) << "; " << format_bytes(b.need_bytes) << " in all"
    << (b.need_bytes > b.device_budget ? " (more than the budget: refused)" : "") << "\n";
}

void graph_build_text(std::ostringstream& o, const GraphBuildPlanReport& g) {
  o << "parse: binary edges in blocks of " << format_bytes(g.parse_block_bytes) << "; 16-byte edge records "
    << (g.max_edge_records ? "(at most " + std::to_string(g.max_edge_records) + ")" : std::string("(counted as parsed)"))
    << " sorted and deduplicated by the sort, which plans itself once they are counted\n";
  o << "csr: sorted edges converted in blocks of " << format_bytes(g.csr_block_bytes) << "; the offsets (8 bytes a vertex) within "
    << format_bytes(g.offsets_budget) << "\n";
}

void command_text(std::ostringstream& o, const PlanReport& r) {
  switch (r.command) {
    case CommandKind::check: case CommandKind::reduce:
      o << "chunks: " << chunks_text(r.chunks, r.record_size) << "\n";
      break;
    case CommandKind::runs:
      o << "runs: " << (r.stream ? std::string("as many as the stream holds") : std::to_string(r.sort.runs)) << " of up to "
        << chunks_text(r.chunks, r.record_size) << ", written to the output directory\n";
      o << "run files: " << temp_files_text(r.sort.direct_io) << "\n";
      break;
    case CommandKind::merge:
      o << "inputs: " << r.sort.runs << "\n";
      merge_levels_text(o, r.sort);
      o << "merge buffer: " << format_bytes(r.sort.merge_buffer_bytes) << " per input, " << r.sort.merge_threads
        << " merge threads\n";
      o << "temporary space: " << format_bytes(r.sort.temp_bytes) << "\n";
      break;
    case CommandKind::dedupe: dedupe_text(o, r); break;
    case CommandKind::graph_build: graph_build_text(o, r.graph); break;
    case CommandKind::bfs: bfs_text(o, r); break;
    case CommandKind::sort: case CommandKind::gen: break;  // sort: plan_text's own; gen: no plan
  }
}

std::string command_plan_text(const PlanReport& r) {
  std::ostringstream o;
  if (!r.backend.empty()) o << "backend: " << r.backend << "\n";
  if (!r.backend.empty() && r.command != CommandKind::bfs) o << "format: " << format_with_width(r.format, r.record_size) << "\n";
  input_text(o, r);
  command_text(o, r);
  if (r.resume) o << resume_text(*r.resume);
  return o.str();
}

// ---- plan --distributed ----

std::string local_text(const RankPlanReport& r) {
  if (r.records == 0) return "nothing (an empty slice)";
  if (r.local == PlanMode::in_memory) return "in memory";
  const std::string runs = std::to_string(r.runs) + " runs of " + std::to_string(r.run_records) + " records";
  return r.local == PlanMode::runs_in_memory ? runs + " in memory" : runs + " in temp files";
}

std::string pad(std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " "; }

void ranks_table(std::ostringstream& o, const PlanReport& r) {
  o << pad("rank", 6) << pad("slice (records)", 26) << pad("bytes", 12) << pad("memory", 12) << pad("local sort", 38)
    << pad("staging <=", 12) << "backend\n";
  for (const RankPlanReport& k : r.distributed->ranks) {
    const std::string range = "[" + std::to_string(k.first) + ", " + std::to_string(k.first + k.records) + ")";
    o << pad(std::to_string(k.rank), 6) << pad(range, 26) << pad(format_bytes(k.records * r.record_size), 12)
      << pad(format_bytes(k.memory), 12) << pad(local_text(k), 38) << pad(format_bytes(k.staging), 12) << k.backend << "\n";
  }
}

std::string distributed_text(const PlanReport& r) {
  const DistributedPlanReport& d = *r.distributed;
  std::ostringstream o;
  const size_t n = d.ranks.size();
  const uint64_t bytes = r.records * r.record_size;
  o << "distributed sort: " << n << " ranks, " << r.records << " records (" << format_bytes(bytes) << ") of " << r.format << "\n";
  ranks_table(o, r);
  if (d.round_records == 0) {
    o << "exchange: --memory is too small for the staging buffers of " << n << " ranks\n";
    return o.str();
  }
  const uint64_t moved = n ? bytes - bytes / n : 0;
  o << "splitters: regular samples of every rank's sorted runs (" << d.total_runs << " runs), ties broken by input position\n";
  if (d.device_exchange)
    o << "exchange: device to device (CUDA IPC): each slice stays on its GPU, and each rank copies its pieces from "
         "the others' GPUs, where every GPU can also hold what its rank receives; otherwise:\n";
  if (d.file_exchange)
    o << "exchange: through the file system (one host): each rank reads its pieces of every rank's run files in "
         "place, where every rank can open the others'; otherwise:\n";
  o << "exchange: about " << format_bytes(moved) << " between ranks at balance, in rounds of up to " << d.round_records
    << " records a rank: " << d.rounds << " rounds at balance (more where the keys are skewed)\n";
  o << "merge: each rank merges the pieces it received (up to " << d.total_runs
    << ") into its range of the output, at the offset the ranks before it fill\n";
  return o.str();
}

}  // namespace

std::string plan_text(const PlanReport& r) {
  if (r.distributed) return distributed_text(r);
  if (r.command != CommandKind::sort) return command_plan_text(r);
  return r.stream ? stream_sort_text(r) : file_sort_text(r);
}

}  // namespace gxsort::cli
