// gxsort gen --graph rmat|uniform: deterministic edge lists (graph/generators.cpp),
// written as binary u32 pairs (scale < 32) or u64 pairs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "commands/command_plan.hpp"
#include "engine/engine.hpp"
#include "graph/graph.hpp"
#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

// A gen --graph plan's parts: the request checked, the pairs' width and where the
// output's temp file goes.
template <>
struct CommandPlan<GenGraphRequest>::State : PlanStateBase<GenGraphRequest> {
  std::string temp_dir;
  size_t width = 4;    // bytes of a vertex id: u32 pairs below scale 32, else u64 pairs
  uint64_t edges = 0;
};

PlanReport report_of(const CommandPlan<GenGraphRequest>::State& s) {
  PlanReport p;
  p.command = CommandKind::gen;
  p.output = s.request.output;
  p.backend = "cpu";
  p.format = s.width == 4 ? "bin32" : "bin64";  // as graph build names edge lists
  p.threads = std::max(1u, s.request.options.threads);
  p.records = s.edges;
  p.record_size = 2 * s.width;
  p.temp_dirs = {s.temp_dir};
  return p;
}

template class CommandPlan<GenGraphRequest>;

CommandPlan<GenGraphRequest> plan(GenGraphRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<GenGraphRequest>::State>();
  s->request = std::move(request);
  const GraphGenOptions& g = s->request.graph;
  const std::string& output = s->request.output;
  if (g.kind == GraphKind::none) fail_usage("gen " + option_ref("graph") + ": expected rmat or uniform");
  if (g.scale < 1 || g.scale > 40) fail_usage(option_ref("scale") + ": expected 1 to 40");
  if (g.edge_factor < 1 || g.edge_factor > 1024) fail_usage(option_ref("edge-factor") + ": expected 1 to 1024");
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  s->edges = g.edge_factor << g.scale;
  s->width = g.scale < 32 ? 4 : 8;
  s->temp_dir = temp_dirs(s->request.options, default_temp_dir(output))[0];
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<GenGraphRequest>(std::move(s));
}

RunStats run(CommandPlan<GenGraphRequest> plan) {
  CommandPlan<GenGraphRequest>::State& state = PlanAccess::state(plan);
  const auto t0 = Clock::now() - state.planning;
  const GraphGenOptions& g = state.request.graph;
  const EngineOptions& opt = state.request.options;
  const bool rmat = g.kind == GraphKind::rmat;
  const uint64_t edges = state.edges;
  const size_t w = state.width;
  const uint64_t bytes = edges * 2 * w;
  io::Output out = io::Output::open(opt.context, state.request.output, state.temp_dir, "gen");
  io::check_space(opt.context, {{out.space_dir(), bytes, "the output"}});
  const unsigned threads = std::max(1u, opt.threads);
  const uint64_t chunk = uint64_t(1) << 22;  // edges per chunk
  std::vector<unsigned char> buf(chunk * 2 * w);
  for (uint64_t first = 0; first < edges; first += chunk) {
    const uint64_t n = std::min(chunk, edges - first);
    parallel::parallel_for_ranges(size_t(n), threads, [&](size_t b, size_t e, unsigned) {
      for (uint64_t i = b; i < e; ++i) {
        uint64_t s, d;
        graph::gen_edge(rmat, g.scale, g.seed, first + i, s, d);
        if (w == 4) { uint32_t p[2] = {uint32_t(s), uint32_t(d)}; std::memcpy(&buf[i * 8], p, 8); }
        else { uint64_t p[2] = {s, d}; std::memcpy(&buf[i * 16], p, 16); }
      }
    });
    out.file().write_at(buf.data(), n * 2 * w, first * 2 * w);
    if (opt.progress) opt.progress({"generate", (first + n) * 2 * w, bytes});
  }
  RunStats stats;
  stats.command = command_name(CommandKind::gen);
  stats.backend = "cpu";
  stats.records = edges;
  stats.output_bytes = bytes;
  stats.phases.push_back({"generate", since(t0), 0, bytes});
  commit_outputs({&out}, stats, t0, opt);
  return stats;
}

RunStats gen_graph(const std::string& output, const GraphGenOptions& g, const EngineOptions& opt) {
  return run(plan(GenGraphRequest{output, g, opt}));
}

}  // namespace gxsort
