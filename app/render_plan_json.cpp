// `gxsort plan --json`: one JSON object (json.hpp's format version and command first),
// its keys in the order scripts have always read them.
#include <nlohmann/json.hpp>

#include "report_json.hpp"
#include "render_plan.hpp"

namespace gxsort::cli {
namespace {

using Json = nlohmann::ordered_json;

Json chunks_json(const ChunkPlan& c) {
  return Json{{"chunk_records", c.chunk_records}, {"chunk_bytes", c.chunk_bytes}, {"slots", c.slots}};
}

template <class T>
Json or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// The sort engine's plan: its fields added to `j`.
void add_sort(Json& j, const PlanReport& r) {
  const SortPlanReport& s = r.sort;
  j["mode"] = plan_mode_name(s.mode);
  j["input_bytes"] = r.input_bytes;
  j["records"] = r.records;
  j["record_size"] = r.record_size;
  j["memory"] = r.memory;
  j["run_records"] = s.run_records;
  j["runs"] = s.runs;
  j["fan_in"] = s.fan_in;
  j["merge_buffer_bytes"] = s.merge_buffer_bytes;
  j["temp_bytes"] = s.temp_bytes;
  j["direct_io"] = s.direct_io;
  j["early_writeback_bytes"] = s.early_writeback_bytes;
  j["held_runs"] = s.held_runs;
  j["held_run_bytes"] = s.held_run_bytes;
  j["run_files"] = s.run_files;
  j["buckets"] = s.buckets;
  j["bucket_records"] = s.bucket_records;
  j["partition_chunk_bytes"] = s.partition_chunk_bytes;
  j["partition_stage_bytes"] = s.partition_stage_bytes;
  j["output_bytes"] = s.output_bytes;
  j["bytes_read"] = s.bytes_read;
  j["bytes_written"] = s.bytes_written;
  j["levels"] = Json::array();
  for (const MergeLevel& lv : s.levels)
    j["levels"].push_back(
        Json{{"groups", lv.groups}, {"bytes_read", lv.bytes_read}, {"bytes_written", lv.bytes_written}, {"final", lv.final}});
}

Json pieces_json(const ResumeState& r) {
  if (r.job_dir.empty()) return nullptr;
  static const char* const kOf[] = {"sort", "runs", "merge"};
  return Json{{"job", kOf[int(r.of)]},     {"job_dir", r.job_dir},
              {"running", r.running},      {"runs", r.runs},
              {"runs_kept", r.runs_kept},  {"runs_to_form", r.runs_to_form},
              {"merges", r.merges},        {"merges_kept", r.merges_kept},
              {"last_merge_from", r.last_merge_from}, {"buckets", r.buckets},
              {"buckets_kept", r.buckets_kept},       {"buckets_written", r.buckets_written}};
}

Json stages_json(const StagedResume& r) {
  if (r.job_dir.empty()) return nullptr;
  return Json{{"job", "stages"},
              {"job_dir", r.job_dir},
              {"running", r.running},
              {"stages_kept", r.kept},
              {"sort_of", r.sort_of.empty() ? Json(nullptr) : Json(r.sort_of)},
              {"sort", r.sort ? pieces_json(*r.sort) : Json(nullptr)},
              {"left", r.left}};
}

Json resume_json(const ResumeReport& r) {
  if (r.pieces) return pieces_json(*r.pieces);
  if (r.stages) return stages_json(*r.stages);
  return nullptr;
}

Json dedupe_json(const DedupePlanReport& d) {
  return Json{{"strategy", dedupe_path_name(d.strategy)}, {"keep_first", d.keep_first},
              {"sort_planned", d.sort_planned},           {"bitmap", chunks_json(d.bitmap)},
              {"bitmap_budget", or_null(d.bitmap_budget)}, {"group", chunks_json(d.group)},
              {"key_span", or_null(d.key_span)}};
}

Json bfs_json(const BfsPlanReport& b) {
  const Json device{{"resident_bytes", b.resident_bytes}, {"need_bytes", b.need_bytes},
                    {"streamed", b.streamed},             {"host_mapped", b.host_mapped},
                    {"partition_edges", b.partition_edges}, {"partitions", b.partitions}};
  return Json{{"load_budget", b.load_budget}, {"graph_known", b.graph_known}, {"vertices", b.vertices},
              {"edges", b.edges},             {"on_device", b.on_device},     {"device_budget", b.device_budget},
              {"device", device}};
}

// plan CMD: the command's sizes, its own part, and the sort it runs (runs, merge, dedupe's).
void add_command(Json& j, const PlanReport& r) {
  if (!r.backend.empty()) j["backend"] = r.backend;
  j["planned"] = command_name(r.command);
  j["threads"] = r.threads;
  j["memory"] = r.memory;
  j["stream"] = r.stream;
  j["input_bytes"] = r.input_bytes;
  j["records"] = r.records;
  j["record_size"] = r.record_size;
  j["chunks"] = chunks_json(r.chunks);
  j["window_memory"] = r.window_memory;
  const bool dedupe_sorts = r.dedupe.strategy == DedupePath::sort && r.dedupe.sort_planned;
  const CommandKind c = r.command;
  if (c == CommandKind::dedupe) j["dedupe"] = dedupe_json(r.dedupe);
  if (c == CommandKind::graph_build)
    j["graph"] = Json{{"parse_block_bytes", r.graph.parse_block_bytes}, {"csr_block_bytes", r.graph.csr_block_bytes},
                      {"offsets_budget", r.graph.offsets_budget}, {"max_edge_records", r.graph.max_edge_records}};
  if (c == CommandKind::bfs) j["bfs"] = bfs_json(r.bfs);
  if (c == CommandKind::runs || c == CommandKind::merge || (c == CommandKind::dedupe && dedupe_sorts)) {
    Json sort = Json::object();
    add_sort(sort, r);
    j["sort"] = sort;
  }
}

void add_distributed(Json& j, const PlanReport& r) {
  const DistributedPlanReport& d = *r.distributed;
  j["mode"] = "distributed";
  j["ranks"] = d.ranks.size();
  j["records"] = r.records;
  j["record_size"] = r.record_size;
  j["round_records"] = d.round_records;
  j["rounds"] = d.rounds;
  j["total_runs"] = d.total_runs;
  j["device_exchange"] = d.device_exchange;
  j["file_exchange"] = d.file_exchange;
  j["per_rank"] = Json::array();
  for (const RankPlanReport& k : d.ranks)
    j["per_rank"].push_back(Json{{"rank", k.rank},       {"first", k.first},
                                 {"records", k.records}, {"memory", k.memory},
                                 {"local", plan_mode_name(k.local)}, {"runs", k.runs},
                                 {"run_records", k.run_records},     {"staging", k.staging},
                                 {"round_records", k.round_records}, {"held", k.held},
                                 {"threads", k.threads},             {"slice_fits_device", k.slice_fits_device},
                                 {"backend", k.backend}});
}

}  // namespace

std::string plan_json(const PlanReport& r) {
  Json j{{"format_version", kJsonFormatVersion}, {"command", "plan"}};
  if (r.distributed) {
    add_distributed(j, r);
  } else if (r.command != CommandKind::sort) {
    add_command(j, r);
  } else if (r.stream) {  // only the runs' size is known before the stream ends
    j["mode"] = "stream";
    j["input_bytes"] = nullptr;
    j["run_records"] = r.sort.run_records;
    j["record_size"] = r.record_size;
    j["memory"] = r.memory;
  } else {
    add_sort(j, r);
  }
  if (r.resume) j["resume"] = resume_json(*r.resume);
  // Names are bytes: a file name that is not UTF-8 gets U+FFFD where it is not.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gxsort::cli
