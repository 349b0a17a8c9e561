// gxsort gen --graph rmat|uniform: deterministic edge lists (graph/generators.cpp),
// written as binary u32 pairs (scale < 32) or u64 pairs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "engine/engine.hpp"
#include "graph/graph.hpp"
#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

RunStats gen_graph(const std::string& output, const GraphGenOptions& g, const EngineOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  if (g.kind == GraphKind::none) fail_usage("gen " + option_ref("graph") + ": expected rmat or uniform");
  if (g.scale < 1 || g.scale > 40) fail_usage(option_ref("scale") + ": expected 1 to 40");
  if (g.edge_factor < 1 || g.edge_factor > 1024) fail_usage(option_ref("edge-factor") + ": expected 1 to 1024");
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  const bool rmat = g.kind == GraphKind::rmat;
  const uint64_t edges = g.edge_factor << g.scale;
  const size_t w = g.scale < 32 ? 4 : 8;
  const uint64_t bytes = edges * 2 * w;
  io::Output out = io::Output::open(opt.context, output, temp_dirs(opt, default_temp_dir(output))[0], "gen");
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
  RunStats s;
  s.command = "gen";
  s.backend = "cpu";
  s.records = edges;
  s.output_bytes = bytes;
  s.phases.push_back({"generate", since(t0), 0, bytes});
  commit_outputs({&out}, s, t0, opt);
  return s;
}

}  // namespace gxsort
