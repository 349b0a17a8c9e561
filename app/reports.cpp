#include "reports.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "report_json.hpp"

namespace gxsort::cli {

namespace {

void print_json(FILE* out, const Json& j) { std::fprintf(out, "%s\n", json_text(j).c_str()); }

}  // namespace

void print_check(FILE* out, const std::string& path, const CheckResult& r, bool json) {
  if (json) return print_json(out, check_json(path, r));
  std::fprintf(out, "file: %s\nrecords: %" PRIu64 "\n", path.c_str(), r.records);
  if (r.sorted) std::fprintf(out, "sorted: yes\n");
  else std::fprintf(out, "sorted: no (record %" PRIu64 " is smaller than the one before it)\n", r.first_violation);
  std::fprintf(out, "duplicate keys: %" PRIu64 "\nchecksum: %016" PRIx64 "\nxxh3: %016" PRIx64 "\n", r.duplicates,
               r.checksum, r.xxh3);
}

namespace {

std::string u128_text(unsigned __int128 v) {
  if (v == 0) return "0";
  char buf[48];
  int i = sizeof buf;
  buf[--i] = 0;
  while (v > 0) {
    buf[--i] = char('0' + int(v % 10));
    v /= 10;
  }
  return buf + i;
}

}  // namespace

std::string reduce_value_text(const ReduceValue& v) {
  switch (v.kind) {
    case ReduceValue::Kind::none: return "none";
    case ReduceValue::Kind::integer: return (v.negative ? "-" : "") + u128_text(v.magnitude);
    case ReduceValue::Kind::real: {
      if (std::isnan(v.real)) return std::signbit(v.real) ? "-nan" : "nan";
      char b[64];
      std::snprintf(b, sizeof b, "%.*g", v.digits, v.real);
      return b;
    }
  }
  return "";
}

void print_reduce(FILE* out, const std::string& path, const ReduceResult& r, bool json) {
  if (json) return print_json(out, reduce_json(path, r));
  std::string line = choice_name(r.op, kReduceOps);
  for (const ReduceValue& v : r.values) line += " " + reduce_value_text(v);
  std::fprintf(out, "%s\n", line.c_str());
}

void print_graph_build(FILE* out, const std::string& graph, const GraphBuildResult& r, bool json) {
  if (json) return print_json(out, graph_build_json(graph, r));
  std::fprintf(out, "graph: %s\nvertices: %" PRIu64 "\nedges: %" PRIu64 " (from %" PRIu64 " input edges)\n", graph.c_str(),
               r.vertices, r.edges, r.input_edges);
  if (!r.ids_output.empty()) std::fprintf(out, "ids: %s (new id -> original id)\n", r.ids_output.c_str());
  std::fprintf(out, "time: %.3f s\n", r.stats.seconds);
}

namespace {

void print_search(FILE* out, const BfsSearch& b) {
  // GTEPS count the edges the search looks at (every stored edge of a reached vertex);
  // the undirected figure halves that on a symmetric graph. Graph500's own figure counts
  // the input tuples (duplicates included), which the CSR no longer holds (docs/graph.md).
  std::fprintf(out, "source %" PRIu64 ": levels %u, vertices reached %" PRIu64 ", edges traversed %" PRIu64
               ", time %.3f ms, %.3f GTEPS; undirected edges %" PRIu64 ", %.3f GTEPS\n",
               b.source, b.depth, b.reached, b.edges_traversed, b.seconds * 1e3, b.gteps, b.graph500_edges,
               b.graph500_gteps);
  if (b.partitions_streamed)
    std::fprintf(out, "  neighbors streamed: %" PRIu64 " partition copies, %.1f MiB\n", b.partitions_streamed,
                 double(b.streamed_bytes) / (1 << 20));
  if (b.neighbors_host_mapped) std::fprintf(out, "  neighbors read in place from pinned host memory\n");
}

}  // namespace

BfsMeans bfs_means(const BfsResult& r) {
  BfsMeans m;
  for (const BfsSearch& b : r.searches) {
    m.seconds += b.seconds;
    m.gteps += b.gteps;
    m.undirected_gteps += b.graph500_gteps;
  }
  const double k = double(std::max<size_t>(r.searches.size(), 1));
  m.seconds /= k;
  m.gteps /= k;
  m.undirected_gteps /= k;
  return m;
}

void print_bfs(FILE* out, const std::string& graph, const BfsResult& r, bool json) {
  if (json) return print_json(out, bfs_json(graph, r));
  std::fprintf(out, "graph: %" PRIu64 " vertices, %" PRIu64 " edges%s; backend %s; load %.3f s\n", r.vertices, r.edges,
               r.symmetric ? " (symmetric)" : "", r.backend.c_str(), r.load_seconds);
  for (const BfsSearch& b : r.searches) print_search(out, b);
  const BfsMeans m = bfs_means(r);
  if (r.searches.size() > 1)
    std::fprintf(out, "mean of %zu searches: time %.3f ms, %.3f GTEPS; undirected %.3f GTEPS\n", r.searches.size(),
                 m.seconds * 1e3, m.gteps, m.undirected_gteps);
}

void print_clean(FILE* out, const std::vector<CleanEntry>& entries, bool json, bool quiet) {
  if (json) return print_json(out, clean_json(entries));
  if (quiet) return;
  uint64_t removed = 0, bytes = 0, kept = 0;
  for (const CleanEntry& e : entries) {
    if (e.removed) { ++removed; bytes += e.bytes; } else { ++kept; }
    std::fprintf(out, "%s %s (%" PRIu64 " bytes): %s\n", e.removed ? "removed" : "kept", one_line(e.path).c_str(), e.bytes,
                 shown(e.why).c_str());
  }
  std::fprintf(out, "%" PRIu64 " removed (%" PRIu64 " bytes), %" PRIu64 " kept\n", removed, bytes, kept);
}

std::string threads_source(const InfoReport& r) {
  if (r.threads != r.cpus_allowed) return "--threads; " + std::to_string(r.cpus_allowed) + " CPUs allowed";
  return "the CPUs this process may run on (sched_getaffinity), of " + std::to_string(r.cpus_online) + " online";
}

void print_info(FILE* out, const InfoReport& r, bool json) {
  if (json) return print_json(out, info_json(r));
  std::fprintf(out, "gxsort %s\n", r.version.c_str());
  std::fprintf(out, "build: %s%s, C++17\n", r.cuda_built ? "CUDA backend built in" : "CPU only (no CUDA backend)",
               r.mpi_built ? ", MPI (sort --distributed)" : ", no MPI");
  std::fprintf(out, "threads: %u (%s)\n", r.threads, threads_source(r).c_str());
  std::fprintf(out, "memory: %s physical; limit %s (%s); --memory default %s (half of the limit)%s\n",
               format_bytes(r.physical_memory).c_str(), format_bytes(r.memory_limit).c_str(), r.memory_limit_source.c_str(),
               format_bytes(r.memory_default).c_str(),
               r.memory_given ? ("; --memory gives " + format_bytes(r.memory_budget)).c_str() : "");
  if (r.gpus.empty())
    std::fprintf(out, "gpus: none usable%s; sorting runs on the CPU\n", r.cuda_built ? "" : " (built without CUDA)");
  for (size_t i = 0; i < r.gpus.size(); ++i) {
    const GpuInfo& d = r.gpus[i];
    std::fprintf(out, "gpu %zu: %s, sm_%d%d, %d SMs, %s total, %s free, device budget %s\n", i, d.name.c_str(), d.sm_major,
                 d.sm_minor, d.multiprocessors, format_bytes(d.total_memory).c_str(), format_bytes(d.free_memory).c_str(),
                 format_bytes(d.budget).c_str());
  }
}

namespace {

// "  TITLE name 1.234 s; ..." on one line, nothing when there are no stages.
void print_stages(const char* title, const std::vector<PhaseStat>& stages) {
  if (stages.empty()) return;
  std::fprintf(stderr, "  %s", title);
  for (const auto& p : stages) std::fprintf(stderr, " %s %.3f s;", p.name.c_str(), p.seconds);
  std::fprintf(stderr, "\n");
}

}  // namespace

void print_summary(const RunStats& s, const char* unit) {
  const double mbps = s.seconds > 0 ? double(std::max(s.input_bytes, s.output_bytes)) / s.seconds / 1e6 : 0;
  // Runs and levels, or buckets: what a sort made (check, reduce and gen make neither).
  const std::string shape = s.buckets ? std::to_string(s.buckets) + " buckets, "
                            : s.runs  ? std::to_string(s.runs) + " runs, " + std::to_string(s.merge_levels) + " merge levels, "
                                      : std::string();
  std::fprintf(stderr, "gxsort %s: %" PRIu64 " %s, %s, backend %s, %s%.3f s, %.1f MB/s\n", s.command.c_str(),
               s.records, unit, s.mode.c_str(), s.backend.c_str(), shape.c_str(), s.seconds, mbps);
  if (!s.resumed.empty()) std::fprintf(stderr, "  %s\n", s.resumed.c_str());
  for (const auto& p : s.phases) std::fprintf(stderr, "  %-18s %8.3f s\n", p.name.c_str(), p.seconds);
  print_stages("run formation, seconds of its buffers and overlapped stages:", s.run_stages);
  print_stages("last merge, seconds of its overlapped stages:", s.merge_stages);
  for (const RankStats& r : s.ranks) {
    std::fprintf(stderr,
                 "  rank %d (%s): %" PRIu64 " records, %s (%" PRIu64 " runs); sent %" PRIu64 ", received %" PRIu64
                 " (%s), kept %" PRIu64 ", %" PRIu64 " rounds; output %" PRIu64
                 " records; sort %.3f s, splitters %.3f s, exchange %.3f s (MPI %.3f s), merge and write %.3f s\n",
                 r.rank, r.backend.c_str(), r.slice_records, r.local.c_str(), r.runs, r.sent, r.received,
                 r.received_in_memory ? "in memory" : "to files", r.kept, r.rounds, r.output_records, r.sort_seconds,
                 r.splitters_seconds, r.exchange_seconds, r.mpi_seconds, r.merge_seconds);
    print_stages("  its own stages:", r.stages);
  }
  if (!s.ranks.empty())
    std::fprintf(stderr, "  ranges: the largest %.3fx the average (regular sampling's bound %.3fx); rounds of up to %" PRIu64
                         " records a rank\n", s.imbalance, s.imbalance_bound, s.round_records);
}

namespace {

// Out of host memory, whatever asked for it: the budget is --memory's (or the RAM and
// cgroup limits under it). Names the command's input, where it ran out, the budget and
// what to change.
std::string out_of_memory(const Command& cmd, uint64_t bytes, const std::string& where) {
  std::string what = cmd.name;
  const bool names_input = !cmd.inputs.empty() && where.rfind(cmd.inputs[0] + ":", 0) == 0;
  if (!cmd.inputs.empty() && !names_input) what += " " + cmd.inputs[0] + (where.empty() ? "" : ":");
  if (!where.empty()) what += " " + where;
  const std::string asked = bytes ? "allocating " + std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB " : "";
  const std::string budget = !cmd.engine.memory.given ? "the default --memory (half of the memory limit)"
                             : cmd.engine.memory.percent > 0 ? "--memory " + std::to_string(int(cmd.engine.memory.percent)) + "%"
                                                             : "--memory " + format_bytes(cmd.engine.memory.bytes);
  return what + ": out of host memory " + asked + "within " + budget +
         ": lower --memory (or --threads), or raise the memory limit of the job (ulimit -v, the cgroup or the batch "
         "scheduler's)";
}

// A thread or a mapping the system refused for want of memory (EAGAIN, ENOMEM).
bool out_of_memory_error(const std::system_error& e) {
  return e.code() == std::errc::resource_unavailable_try_again || e.code() == std::errc::not_enough_memory;
}

// The report of `error`, its message as thrown.
ErrorReport error_lines(const Command& cmd, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const OutOfMemory& e) {
    return {ExitCode::io, out_of_memory(cmd, e.bytes(), e.where())};
  } catch (const Error& e) {
    return {e.code(), e.message()};
  } catch (const std::bad_alloc&) {
    return {ExitCode::io, out_of_memory(cmd, 0, "")};
  } catch (const std::system_error& e) {
    if (out_of_memory_error(e)) return {ExitCode::io, out_of_memory(cmd, 0, std::string("cannot start a thread: ") + e.what())};
    return {ExitCode::io, e.what()};
  } catch (const std::exception& e) {
    return {ExitCode::io, e.what()};
  } catch (...) {
    return {ExitCode::io, "unknown error"};
  }
}

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += "\\x" + std::string(1, "0123456789abcdef"[u >> 4]) + "0123456789abcdef"[u & 15];
  }
  return out;
}

std::string shown(const std::string& library_text) {
  return one_line(spell_options(library_text, OptionStyle::cli));
}

ErrorReport describe_error(const Command& cmd, const std::exception_ptr& error) {
  ErrorReport r = error_lines(cmd, error);
  r.message = shown(r.message);
  return r;
}

}  // namespace gxsort::cli
