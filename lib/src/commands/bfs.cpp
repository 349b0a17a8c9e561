// gxsort bfs: loads a CSR file, runs one or more searches on the backend --device picks
// (Backend::bfs), and writes the levels and parents of the (single) search.
#include <chrono>
#include <algorithm>
#include <cstring>
#include <unistd.h>

#include "backend/backend.hpp"
#include "format/npy.hpp"
#include "graph/graph_files.hpp"
#include "graph/graph.hpp"
#include "gxsort/gxsort.hpp"
#include "io/space.hpp"
#include "io/output.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "engine/engine.hpp"
#include "kernels/record_hash.hpp"

namespace gxsort {
namespace {

// Levels or parents: raw, or a 1-D .npy of their dtype (little-endian u32 or u64) when
// the output's name ends in .npy, so that numpy.load reads it.
void write_array(io::Output& out, const std::string& name, const void* data, uint64_t count, uint32_t width) {
  const std::string descr = width == 4 ? "'<u4'" : "'<u8'";
  const uint64_t header = npy::has_npy_name(name) ? npy::header_bytes(descr) : 0;
  io::check_space(out.context(), {{out.space_dir(), header + count * width, "the output"}});
  if (header) {
    const std::string bytes = npy::header(descr, count, header);
    out.file().write_at(bytes.data(), bytes.size(), 0);
  }
  out.file().write_at(data, count * width, header);
}

BfsSearch summary(const graph::BfsRun& r, uint64_t source, bool symmetric) {
  BfsSearch s;
  s.source = source;
  s.depth = r.depth;
  s.reached = r.reached;
  s.edges_traversed = r.edges_traversed;
  s.seconds = r.seconds;
  s.gteps = r.seconds > 0 ? double(r.edges_traversed) / r.seconds / 1e9 : 0;
  // Graph500 counts the undirected input edges within the traversed component; a
  // symmetrized CSR stores each of them twice.
  s.graph500_edges = symmetric ? r.edges_traversed / 2 : r.edges_traversed;
  s.graph500_gteps = r.seconds > 0 ? double(s.graph500_edges) / r.seconds / 1e9 : 0;
  s.streamed_bytes = r.streamed_bytes;
  s.partitions_streamed = r.partitions_streamed;
  s.neighbors_host_mapped = r.neighbors_host_mapped;
  return s;
}

}  // namespace

Prepared prepare_bfs(const EngineOptions& opt) { return prepare(opt, plan_request(CommandKind::bfs, opt, 0, false), "/tmp"); }

void plan_bfs_search(Prepared& p, uint64_t vertices, uint64_t edges) {
  p.job.vertices = vertices;
  p.job.edges = edges;
  p.job.graph_known = true;
  // The search's backend, now that the graph's size is known (choose_backend): a graph
  // larger than the GPU searches goes to the CPU under --device auto, planned so.
  MachineFacts machine = machine_facts(p.job);
  machine.max_device_vertices = p.backend->max_bfs_vertices();
  p.device = choose_backend(p.job, machine);
  if (p.device.device == Device::cpu && p.backend->device_budget() > 0) p.backend = make_cpu_backend(p.threads);
  p.plan = make_plan(p.job);
}

namespace {

// A renumbered graph's id map, read from `ids_path` (--ids, else GRAPH.ids); empty for
// any other graph.
std::vector<uint64_t> id_map_of(const graph::CsrGraph& g, const std::string& path, const BfsOptions& b,
                                std::string& ids_path) {
  if (!g.renumbered) {
    if (!b.ids_input.empty()) fail_usage("bfs: " + path + " was not built with " + option_ref("renumber") + ": " + option_ref("ids") + " does not apply");
    return {};
  }
  if (b.ids_input.empty() && path == "-") fail_usage("bfs: stdin is a renumbered graph: name its id map with " + option_ref("ids", "FILE"));
  ids_path = b.ids_input.empty() ? graph::default_ids_path(path) : b.ids_input;
  if (b.ids_input.empty() && ::access(ids_path.c_str(), F_OK) != 0)
    fail_usage(path + ": built with " + option_ref("renumber") + ", but its id map " + ids_path + " is missing (name it with " + option_ref("ids", "FILE") + ")");
  return graph::read_id_map(ids_path, path, g.n, g.ids_hash);
}

// --source's vertex: the id itself, or in a renumbered graph the vertex whose original
// id it is.
uint64_t source_vertex(const graph::CsrGraph& g, const std::vector<uint64_t>& ids, uint64_t source, const std::string& path,
                       const std::string& ids_path) {
  if (ids.empty()) {
    if (source >= g.n)
      fail_usage(option_ref("source", std::to_string(source)) + " is out of range (" + path + " has " + std::to_string(g.n) + " vertices)");
    return source;
  }
  const auto it = std::find(ids.begin(), ids.end(), source);
  if (it == ids.end())
    fail_usage(option_ref("source", std::to_string(source)) + " is not a vertex of " + path + " (renumbered: its vertices' ids are in " + ids_path + ")");
  return uint64_t(it - ids.begin());
}

// The searches' sources: --source (checked), or --random-sources vertices with an edge.
std::vector<uint64_t> search_sources(const graph::CsrGraph& g, const std::vector<uint64_t>& ids, const std::string& ids_path,
                                     const BfsOptions& b, const std::string& path, const EngineOptions& opt) {
  std::vector<uint64_t> sources;
  if (b.random_sources == 0) {
    sources.push_back(source_vertex(g, ids, b.source, path, ids_path));
    if (g.degree(sources[0]) == 0 && opt.note)  // exit 0 with "reached 1" would look like a bug
      opt.note(option_ref("source", std::to_string(b.source)) + " has no edge out of it in " + path +
               ": the search reaches it alone (every other vertex unreachable)");
  } else {
    // Graph500 style: random vertices with at least one edge. More searches than
    // vertices is a mistake (a count meant for another graph, or 2^64-1), not a job.
    if (b.random_sources > g.n)
      fail_usage(path + ": " + option_ref("random-sources", std::to_string(b.random_sources)) + " is more than its " +
                 std::to_string(g.n) + " vertices");
    uint64_t with_edges = 0;
    for (uint64_t v = 0; v < g.n && with_edges == 0; ++v) with_edges += g.degree(v) > 0;
    if (with_edges == 0) fail_usage(path + ": no vertex has an edge; give " + option_ref("source"));
    for (uint64_t i = 0; sources.size() < b.random_sources; ++i) {
      const uint64_t v = mix64(b.seed * 0x9e3779b97f4a7c15ULL + i) % g.n;
      if (g.degree(v) > 0) sources.push_back(v);
    }
  }
  return sources;
}

}  // namespace

// A bfs's plan's parts: the graph plan() opened, and the size its search was planned for
// (a regular file's header; a stream's is read by the run, which plans the search then).
template <>
struct CommandPlan<BfsRequest>::State : PlanStateBase<BfsRequest> {
  io::File graph;
  bool sized = false;
  uint64_t vertices = 0, edges = 0;
};

PlanReport report_of(const CommandPlan<BfsRequest>::State& s) {
  return command_report(s.prepared, s.request.graph, s.request.options);
}

template class CommandPlan<BfsRequest>;

// Planned before the graph is read (the load's budget), then with its size.
CommandPlan<BfsRequest> plan(BfsRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<BfsRequest>::State>();
  s->request = std::move(request);
  s->prepared = prepare_bfs(s->request.options);
  s->graph = io::File::open_input(s->request.graph);
  if (!s->graph.is_stream()) {
    const graph::CsrHeader h = graph::read_csr_header(s->graph);
    plan_bfs_search(s->prepared, h.n, h.m);
    s->sized = true;
    s->vertices = h.n;
    s->edges = h.m;
  }
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<BfsRequest>(std::move(s));
}

BfsResult run(CommandPlan<BfsRequest> planned) {
  CommandPlan<BfsRequest>::State& s = PlanAccess::state(planned);
  const auto t0 = Clock::now() - s.planning;
  const std::string& path = s.request.graph;
  const BfsOptions& b = s.request.bfs;
  const EngineOptions& opt = s.request.options;
  if (b.random_sources > 0 && (!b.levels_output.empty() || !b.parents_output.empty()))
    fail_usage("bfs: -o and " + option_ref("parents") + " take a single " + option_ref("source") + ", not " + option_ref("random-sources"));
  if (io::same_target(b.levels_output, false, b.parents_output, false))
    fail_usage("bfs: -o and " + option_ref("parents") + " name the same file " + b.levels_output);
  for (const std::string* out : {&b.levels_output, &b.parents_output})
    if (!io::input_named_by(*out, {path}).empty())
      fail_usage(*out + ": names the input graph; the levels and parents go to another file");
  // The outputs are checked (and their temp files made) before the graph is loaded.
  io::Output levels_out, parents_out;
  if (!b.levels_output.empty())
    levels_out = io::Output::open(opt.context, b.levels_output, temp_dirs(opt, default_temp_dir(b.levels_output))[0]);
  if (!b.parents_output.empty())
    parents_out = io::Output::open(opt.context, b.parents_output, temp_dirs(opt, default_temp_dir(b.parents_output))[0], "out", {},
                                   option_ref("parents"));
  Prepared& p = s.prepared;
  graph::CsrGraph g = graph::read_csr(s.graph, p.plan.bfs.load_budget);
  if (!s.sized || g.n != s.vertices || g.m != s.edges) plan_bfs_search(p, g.n, g.m);
  BfsResult res;
  res.vertices = g.n;
  res.edges = g.m;
  res.symmetric = g.symmetric;

  std::string ids_path;
  const std::vector<uint64_t> ids = id_map_of(g, path, b, ids_path);  // renumbered: original ids, reported
  const std::vector<uint64_t> sources = search_sources(g, ids, ids_path, b, path, opt);
  res.load_seconds = since(t0);
  const std::vector<graph::BfsRun> runs = p.backend->bfs(g, sources, p.plan.bfs.device);
  res.backend = runs.front().backend;
  for (size_t i = 0; i < runs.size(); ++i)
    res.searches.push_back(summary(runs[i], ids.empty() ? sources[i] : ids[sources[i]], g.symmetric));
  res.stats.command = "bfs";
  res.stats.backend = res.backend;
  res.stats.mode = res.searches.size() > 1 ? "random sources" : "one source";
  res.stats.records = g.n;
  res.stats.input_bytes = graph::kCsrHeaderBytes + 8 * (g.n + 1) + uint64_t(graph::id_bytes_for(g.n)) * g.m;
  res.stats.phases.push_back({"load", res.load_seconds, res.stats.input_bytes, 0});
  double search = 0;
  for (const BfsSearch& b : res.searches) search += b.seconds;
  res.stats.phases.push_back({"search", search, 0, 0});
  std::vector<io::Output*> outputs;
  if (sources.size() == 1) {
    const graph::BfsRun& r = runs[0];
    if (!b.levels_output.empty()) {
      write_array(levels_out, b.levels_output, r.levels.data(), g.n, 4);
      outputs.push_back(&levels_out);
    }
    if (!b.parents_output.empty()) {
      if (g.wide()) {
        write_array(parents_out, b.parents_output, r.parents.data(), g.n, 8);
      } else {
        std::vector<uint32_t> p32(g.n);
        for (uint64_t v = 0; v < g.n; ++v) p32[v] = uint32_t(r.parents[v]);
        write_array(parents_out, b.parents_output, p32.data(), g.n, 4);
      }
      outputs.push_back(&parents_out);
    }
  }
  // Both written, then both readied, then both made real (io::commit_all).
  if (!outputs.empty()) commit_outputs(outputs, res.stats, t0, opt);
  res.stats.seconds = since(t0);
  return res;
}

BfsResult bfs_file(const std::string& path, const BfsOptions& b, const EngineOptions& opt) {
  return run(plan(BfsRequest{path, b, opt}));
}

}  // namespace gxsort
