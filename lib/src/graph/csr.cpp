// The in-memory CSR graph: building one from an edge list (tests) and reading CSR files.
#include <algorithm>
#include <cstring>

#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "io/file.hpp"

namespace gxsort::graph {

CsrGraph csr_from_edges(std::vector<std::pair<uint64_t, uint64_t>> edges, bool symmetrize, bool keep_self_loops,
                        bool keep_duplicates, uint64_t min_n) {
  CsrGraph g;
  uint64_t max_id = 0;
  bool any = false;
  for (auto& e : edges) { max_id = std::max({max_id, e.first, e.second}); any = true; }
  g.n = std::max<uint64_t>(any ? max_id + 1 : 0, min_n);
  std::vector<std::pair<uint64_t, uint64_t>> all;
  all.reserve(edges.size() * (symmetrize ? 2 : 1));
  for (auto& e : edges) {
    if (e.first == e.second && !keep_self_loops) continue;
    all.push_back(e);
    if (symmetrize) all.push_back({e.second, e.first});
  }
  std::sort(all.begin(), all.end());
  if (!keep_duplicates) all.erase(std::unique(all.begin(), all.end()), all.end());
  g.symmetric = symmetrize;
  g.m = all.size();
  g.offsets.assign(g.n + 1, 0);
  for (auto& e : all) g.offsets[e.first + 1]++;
  for (uint64_t v = 0; v < g.n; ++v) g.offsets[v + 1] += g.offsets[v];
  if (g.wide()) { g.ids64.resize(g.m); for (size_t i = 0; i < all.size(); ++i) g.ids64[i] = all[i].second; }
  else { g.ids32.resize(g.m); for (size_t i = 0; i < all.size(); ++i) g.ids32[i] = uint32_t(all[i].second); }
  return g;
}

CsrHeader read_csr_header(const std::string& path) {
  io::File f = io::File::open_read(path);
  const uint64_t size = f.size();
  CsrHeader h{};
  if (size < kCsrHeaderBytes) fail_usage(path + ": not a gxsort CSR file (too short for the 64-byte header)");
  f.read_at(&h, sizeof h, 0);
  if (std::memcmp(h.magic, kCsrMagic, 8) != 0) fail_usage(path + ": not a gxsort CSR file (bad magic; build one with `gxsort graph build`)");
  if (h.version != kCsrVersion) fail_usage(path + ": CSR version " + std::to_string(h.version) + " is not supported (expected 1)");
  if (h.id_bytes != id_bytes_for(h.n)) fail_usage(path + ": CSR header: id width " + std::to_string(h.id_bytes) + " does not match n");
  if (h.n >= (uint64_t(1) << 60) || h.m >= (uint64_t(1) << 60))
    fail_usage(path + ": CSR header: implausible vertex or edge count");
  const uint64_t want = kCsrHeaderBytes + 8 * (h.n + 1) + uint64_t(h.id_bytes) * h.m;
  if (size != want)
    fail_usage(path + ": CSR file is " + std::to_string(size) + " bytes, the header says " + std::to_string(want));
  return h;
}

CsrGraph read_csr(const std::string& path) {
  CsrHeader h = read_csr_header(path);
  io::File f = io::File::open_read(path);
  CsrGraph g;
  g.n = h.n;
  g.m = h.m;
  g.symmetric = (h.flags & kFlagSymmetric) != 0;
  g.offsets.resize(h.n + 1);
  const unsigned threads = 8;
  f.read_at_parallel(g.offsets.data(), 8 * (h.n + 1), kCsrHeaderBytes, threads);
  const uint64_t nb = kCsrHeaderBytes + 8 * (h.n + 1);
  if (h.id_bytes == 4) { g.ids32.resize(h.m); f.read_at_parallel(g.ids32.data(), 4 * h.m, nb, threads); }
  else { g.ids64.resize(h.m); f.read_at_parallel(g.ids64.data(), 8 * h.m, nb, threads); }
  if (g.offsets[0] != 0 || g.offsets[h.n] != h.m) fail_usage(path + ": CSR offsets do not span the edges");
  for (uint64_t v = 0; v < h.n; ++v)
    if (g.offsets[v] > g.offsets[v + 1]) fail_usage(path + ": CSR offsets decrease at vertex " + std::to_string(v));
  uint64_t bad = 0;
  if (h.id_bytes == 4) { for (uint32_t x : g.ids32) bad |= uint64_t(x >= h.n); }
  else { for (uint64_t x : g.ids64) bad |= uint64_t(x >= h.n); }
  if (bad) fail_usage(path + ": CSR neighbor id out of range");
  return g;
}

}  // namespace gxsort::graph
