#include "report_json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "reports.hpp"

namespace gxsort::cli {

Json json_document(const std::string& command) {
  Json o;
  o["format_version"] = kJsonFormatVersion;
  o["command"] = command;
  return o;
}

Json json_number(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  const double rounded = std::strtod(b, nullptr);  // nlohmann writes its shortest form: these digits
  if (rounded == std::trunc(rounded) && std::fabs(rounded) < 9007199254740992.0) return int64_t(rounded);
  return rounded;
}

std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string hex_of(uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

Json check_json(const std::string& path, const CheckResult& r) {
  Json o = json_document("check");
  o["file"] = path;
  o["records"] = r.records;
  o["sorted"] = r.sorted;
  if (!r.sorted) o["first_violation"] = r.first_violation;
  o["duplicate_keys"] = r.duplicates;
  o["checksum"] = hex_of(r.checksum);
  o["xxh3"] = hex_of(r.xxh3);
  return o;
}

namespace {

// A JSON number where it is a finite one that fits JSON's integers or a double; else
// its text: "none", "nan", "inf", a sum past 64 bits (exact only as text).
Json reduce_value_json(const ReduceValue& v) {
  switch (v.kind) {
    case ReduceValue::Kind::none: return "none";
    case ReduceValue::Kind::real: return std::isfinite(v.real) ? json_number(v.real, v.digits) : Json(reduce_value_text(v));
    case ReduceValue::Kind::integer:
      if (!v.negative && v.magnitude <= UINT64_MAX) return uint64_t(v.magnitude);
      if (v.negative && v.magnitude <= (unsigned __int128)(INT64_MAX) + 1) return int64_t(-(__int128)(v.magnitude));
      return reduce_value_text(v);
  }
  return nullptr;
}

}  // namespace

Json reduce_json(const std::string& path, const ReduceResult& r) {
  Json values = Json::array();
  for (const ReduceValue& v : r.values) values.push_back(reduce_value_json(v));
  Json o = json_document("reduce");
  o["file"] = path;
  o["op"] = choice_name(r.op, kReduceOps);
  o["values"] = values;
  o["records"] = r.stats.records;
  o["backend"] = r.stats.backend;
  o["seconds"] = json_number(r.stats.seconds);
  return o;
}

Json graph_build_json(const std::string& graph, const GraphBuildResult& r) {
  Json o = json_document("graph build");
  o["graph"] = graph;
  o["vertices"] = r.vertices;
  o["edges"] = r.edges;
  o["input_edges"] = r.input_edges;
  if (!r.ids_output.empty()) o["ids"] = r.ids_output;
  o["seconds"] = json_number(r.stats.seconds);
  return o;
}

namespace {

Json search_json(const BfsSearch& b) {
  Json o;
  o["source"] = b.source;
  o["levels"] = uint64_t(b.depth);
  o["reached"] = b.reached;
  o["edges_traversed"] = b.edges_traversed;
  o["seconds"] = json_number(b.seconds);
  o["gteps"] = json_number(b.gteps);
  o["undirected_edges"] = b.graph500_edges;
  o["undirected_gteps"] = json_number(b.graph500_gteps);
  if (b.partitions_streamed) {
    o["partitions_streamed"] = b.partitions_streamed;
    o["streamed_bytes"] = b.streamed_bytes;
  }
  if (b.neighbors_host_mapped) o["neighbors_host_mapped"] = true;
  return o;
}

}  // namespace

Json bfs_json(const std::string& graph, const BfsResult& r) {
  Json searches = Json::array();
  for (const BfsSearch& b : r.searches) searches.push_back(search_json(b));
  const BfsMeans m = bfs_means(r);
  Json o = json_document("bfs");
  o["graph"] = graph;
  o["vertices"] = r.vertices;
  o["edges"] = r.edges;
  o["symmetric"] = r.symmetric;
  o["backend"] = r.backend;
  o["load_seconds"] = json_number(r.load_seconds);
  o["searches"] = searches;
  o["mean_seconds"] = json_number(m.seconds);
  o["mean_gteps"] = json_number(m.gteps);
  o["mean_undirected_gteps"] = json_number(m.undirected_gteps);
  return o;
}

Json clean_json(const std::vector<CleanEntry>& entries) {
  uint64_t removed = 0, bytes = 0, kept = 0;
  Json files = Json::array();
  for (const CleanEntry& e : entries) {
    if (e.removed) { ++removed; bytes += e.bytes; } else { ++kept; }
    Json j;
    j["path"] = e.path;
    j["bytes"] = e.bytes;
    j["pid"] = uint64_t(e.pid);
    j["owner"] = e.owner;
    j["removed"] = e.removed;
    j["why"] = spell_options(e.why, OptionStyle::cli);
    files.push_back(j);
  }
  Json o = json_document("clean");
  o["files"] = files;
  o["removed"] = removed;
  o["removed_bytes"] = bytes;
  o["kept"] = kept;
  return o;
}

Json info_json(const InfoReport& r) {
  Json o = json_document("info");
  o["version"] = r.version;
  o["cuda_built"] = r.cuda_built;
  o["mpi_built"] = r.mpi_built;
  o["threads"] = r.threads;
  o["threads_source"] = threads_source(r);
  o["physical_memory"] = r.physical_memory;
  o["memory_limit"] = r.memory_limit;
  o["memory_limit_source"] = r.memory_limit_source;
  o["memory_default"] = r.memory_default;
  o["memory_budget"] = r.memory_budget;
  Json gpus = Json::array();
  for (const GpuInfo& d : r.gpus) {
    Json g;
    g["name"] = d.name;
    g["sm"] = d.sm_major * 10 + d.sm_minor;
    g["multiprocessors"] = d.multiprocessors;
    g["total_memory"] = d.total_memory;
    g["free_memory"] = d.free_memory;
    g["budget"] = d.budget;
    gpus.push_back(g);
  }
  o["gpus"] = gpus;
  return o;
}

namespace {

// Bytes moved a second, in MB: the larger of what was read and written.
double mb_per_second(uint64_t read, uint64_t written, double seconds) {
  return seconds > 0 ? double(std::max(read, written)) / seconds / 1e6 : 0.0;
}

Json phases_json(const std::vector<PhaseStat>& list) {
  Json phases = Json::array();
  for (const PhaseStat& p : list) {
    Json o;
    o["name"] = p.name;
    o["seconds"] = json_number(p.seconds, 6);
    o["bytes_read"] = p.bytes_read;
    o["bytes_written"] = p.bytes_written;
    o["mb_s"] = json_number(mb_per_second(p.bytes_read, p.bytes_written, p.seconds), 6);
    phases.push_back(o);
  }
  return phases;
}

Json rank_json(const RankStats& r) {
  Json o;
  o["rank"] = r.rank;
  o["backend"] = r.backend;
  o["local"] = r.local;
  o["slice_records"] = r.slice_records;
  o["runs"] = r.runs;
  o["sent"] = r.sent;
  o["received"] = r.received;
  o["kept"] = r.kept;
  o["output_records"] = r.output_records;
  o["received_in_memory"] = r.received_in_memory;
  o["rounds"] = r.rounds;
  o["sort_seconds"] = json_number(r.sort_seconds, 6);
  o["splitters_seconds"] = json_number(r.splitters_seconds, 6);
  o["exchange_seconds"] = json_number(r.exchange_seconds, 6);
  o["mpi_seconds"] = json_number(r.mpi_seconds, 6);
  o["merge_seconds"] = json_number(r.merge_seconds, 6);
  o["seconds"] = json_number(r.seconds, 6);
  o["stages"] = phases_json(r.stages);
  return o;
}

}  // namespace

Json stats_json(const RunStats& s) {
  Json o;
  o["command"] = s.command;
  o["backend"] = s.backend;
  o["mode"] = s.mode;
  o["records"] = s.records;
  o["input_bytes"] = s.input_bytes;
  o["output_bytes"] = s.output_bytes;
  o["runs"] = s.runs;
  o["merge_levels"] = s.merge_levels;
  o["buckets"] = s.buckets;
  o["resumed"] = s.resumed;
  o["discarded"] = s.discarded;
  o["seconds"] = json_number(s.seconds, 6);
  o["throughput_mb_s"] = json_number(mb_per_second(s.input_bytes, s.output_bytes, s.seconds), 6);
  o["phases"] = phases_json(s.phases);
  o["run_stages"] = phases_json(s.run_stages);
  o["merge_stages"] = phases_json(s.merge_stages);
  if (!s.ranks.empty()) {  // a distributed sort: every rank's part
    Json d;
    d["ranks"] = s.ranks.size();
    d["round_records"] = s.round_records;
    d["imbalance"] = json_number(s.imbalance, 6);
    d["imbalance_bound"] = json_number(s.imbalance_bound, 6);
    d["per_rank"] = Json::array();
    for (const RankStats& r : s.ranks) d["per_rank"].push_back(rank_json(r));
    o["distributed"] = d;
  }
  return o;
}

}  // namespace gxsort::cli
