// Text the app prints: `info` and the --stats-json document.
#include <cstdio>
#include <sstream>

#include "backend/backend.hpp"
#include "gxsort/gxsort.hpp"
#include "engine/engine.hpp"
#include "plan/sizes.hpp"

namespace gxsort {

std::string json_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += c;
  }
  return o + "\"";
}

namespace {
std::string json_string(const std::string& s) { return json_quote(s); }
}  // namespace

std::string stats_json(const RunStats& s) {
  std::ostringstream o;
  o.precision(6);
  auto phases = [&](const std::vector<PhaseStat>& list) {
    o << "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& p = list[i];
      o << (i ? "," : "") << "{\"name\":" << json_string(p.name) << ",\"seconds\":" << p.seconds
        << ",\"bytes_read\":" << p.bytes_read << ",\"bytes_written\":" << p.bytes_written << ",\"mb_s\":"
        << (p.seconds > 0 ? double(std::max(p.bytes_read, p.bytes_written)) / p.seconds / 1e6 : 0.0) << "}";
    }
    o << "]";
  };
  o << "{\"command\":" << json_string(s.command) << ",\"backend\":" << json_string(s.backend)
    << ",\"mode\":" << json_string(s.mode) << ",\"records\":" << s.records << ",\"input_bytes\":" << s.input_bytes
    << ",\"output_bytes\":" << s.output_bytes << ",\"runs\":" << s.runs << ",\"merge_levels\":" << s.merge_levels << ",\"buckets\":" << s.buckets
    << ",\"resumed\":" << json_string(s.resumed) << ",\"discarded\":" << s.discarded << ",\"seconds\":" << s.seconds << ",\"throughput_mb_s\":"
    << (s.seconds > 0 ? double(std::max(s.input_bytes, s.output_bytes)) / s.seconds / 1e6 : 0.0) << ",\"phases\":";
  phases(s.phases);
  o << ",\"run_stages\":";
  phases(s.run_stages);
  o << ",\"merge_stages\":";
  phases(s.merge_stages);
  if (!s.ranks.empty()) {  // a distributed sort: every rank's part
    o << ",\"distributed\":{\"ranks\":" << s.ranks.size() << ",\"round_records\":" << s.round_records
      << ",\"imbalance\":" << s.imbalance << ",\"imbalance_bound\":" << s.imbalance_bound << ",\"per_rank\":[";
    for (size_t i = 0; i < s.ranks.size(); ++i) {
      const RankStats& r = s.ranks[i];
      o << (i ? "," : "") << "{\"rank\":" << r.rank << ",\"backend\":" << json_string(r.backend)
        << ",\"local\":" << json_string(r.local) << ",\"slice_records\":" << r.slice_records << ",\"runs\":" << r.runs
        << ",\"sent\":" << r.sent << ",\"received\":" << r.received << ",\"kept\":" << r.kept
        << ",\"output_records\":" << r.output_records << ",\"received_in_memory\":"
        << (r.received_in_memory ? "true" : "false") << ",\"rounds\":" << r.rounds << ",\"sort_seconds\":"
        << r.sort_seconds << ",\"splitters_seconds\":" << r.splitters_seconds << ",\"exchange_seconds\":"
        << r.exchange_seconds << ",\"mpi_seconds\":" << r.mpi_seconds << ",\"merge_seconds\":" << r.merge_seconds
        << ",\"seconds\":" << r.seconds << ",\"stages\":";
      phases(r.stages);
      o << "}";
    }
    o << "]}";
  }
  o << "}\n";
  return o.str();
}

std::string info_json_fields(const EngineOptions& opt) {
  std::ostringstream o;
  const MemoryLimit limit = memory_limit(opt.context);
  o << "\"version\":" << json_string(GXSORT_VERSION) << ",\"cuda_built\":" << (GXSORT_HAVE_CUDA ? "true" : "false")
    << ",\"mpi_built\":" << (GXSORT_HAVE_MPI ? "true" : "false")
    << ",\"threads\":" << opt.threads << ",\"threads_source\":" << json_string(threads_source(opt.threads))
    << ",\"physical_memory\":" << physical_memory_bytes() << ",\"memory_limit\":" << limit.bytes
    << ",\"memory_limit_source\":" << json_string(limit.source) << ",\"memory_default\":" << limit.bytes / 2
    << ",\"memory_budget\":" << host_budget(opt)
    << ",\"gpus\":[";
  const auto devices = list_devices(opt.device_memory);
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    o << (i ? "," : "") << "{\"name\":" << json_string(d.name) << ",\"sm\":" << d.major * 10 + d.minor
      << ",\"multiprocessors\":" << d.multiprocessors << ",\"total_memory\":" << d.total_memory
      << ",\"free_memory\":" << d.free_memory << ",\"budget\":" << d.budget << "}";
  }
  o << "]";
  return o.str();
}

std::string info_text(const EngineOptions& opt) {
  std::ostringstream o;
  o << "gxsort " << GXSORT_VERSION << "\n";
  o << "build: " << (GXSORT_HAVE_CUDA ? "CUDA backend built in" : "CPU only (no CUDA backend)")
    << (GXSORT_HAVE_MPI ? ", MPI (sort --distributed)" : ", no MPI") << ", C++17\n";
  o << "threads: " << opt.threads << " (" << threads_source(opt.threads) << ")\n";
  const MemoryLimit limit = memory_limit(opt.context);
  o << "memory: " << format_bytes(physical_memory_bytes()) << " physical; limit " << format_bytes(limit.bytes) << " ("
    << limit.source << "); --memory default " << format_bytes(limit.bytes / 2) << " (half of the limit)"
    << (opt.memory.given ? "; --memory gives " + format_bytes(host_budget(opt)) : std::string()) << "\n";
  auto devices = list_devices(opt.device_memory);
  if (devices.empty()) {
    o << "gpus: none usable" << (GXSORT_HAVE_CUDA ? "" : " (built without CUDA)") << "; sorting runs on the CPU\n";
  } else {
    for (size_t i = 0; i < devices.size(); ++i) {
      const auto& d = devices[i];
      o << "gpu " << i << ": " << d.name << ", sm_" << d.major << d.minor << ", " << d.multiprocessors << " SMs, "
        << format_bytes(d.total_memory) << " total, " << format_bytes(d.free_memory) << " free, device budget "
        << format_bytes(d.budget) << "\n";
    }
  }
  return o.str();
}

}  // namespace gxsort
