// The in-memory CSR graph: building one from an edge list (tests) and reading CSR files.
#include <algorithm>
#include <cstring>

#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/file.hpp"
#include "platform/sizes.hpp"

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

uint64_t csr_checksum(const CsrHeader& h, uint64_t offsets_hash, uint64_t neighbors_hash) {
  unsigned char bytes[40 + 16];
  std::memcpy(bytes, &h, 40);  // magic, version, id width, n, m, flags
  std::memcpy(bytes + 40, &offsets_hash, 8);
  std::memcpy(bytes + 48, &neighbors_hash, 8);
  return io::xxh3_64(bytes, sizeof bytes);
}

namespace {

// Reads bytes [offset, offset + n) of a CSR file: a regular file on several threads, a
// stream (a pipe) in order.
void read_section(const io::File& f, void* dst, uint64_t n, uint64_t offset) {
  if (!f.is_stream()) return f.read_at_parallel(dst, size_t(n), offset, 8);
  if (f.read_stream(dst, size_t(n)) != n)
    fail_usage(f.path() + ": CSR file ends early (at byte " + std::to_string(f.stream_bytes()) + ")");
}

CsrHeader read_header(const io::File& f) {
  const std::string& path = f.path();
  CsrHeader h{};
  if (!f.is_stream() && f.size() < kCsrHeaderBytes)
    fail_usage(path + ": not a gxsort CSR file (too short for the 64-byte header)");
  read_section(f, &h, sizeof h, 0);
  if (std::memcmp(h.magic, kCsrMagic, 8) != 0) fail_usage(path + ": not a gxsort CSR file (bad magic; build one with `gxsort graph build`)");
  if (h.version != kCsrVersion)
    fail_usage(path + ": CSR version " + std::to_string(h.version) + " is not supported (expected " +
               std::to_string(kCsrVersion) + "; build it again with `gxsort graph build`)");
  if (h.id_bytes != id_bytes_for(h.n)) fail_usage(path + ": CSR header: id width " + std::to_string(h.id_bytes) + " does not match n");
  if (h.n >= (uint64_t(1) << 60) || h.m >= (uint64_t(1) << 60))
    fail_usage(path + ": CSR header: implausible vertex or edge count");
  if (h.flags & ~kKnownFlags) fail_usage(path + ": CSR header: unknown flag bits " + std::to_string(h.flags & ~kKnownFlags));
  bool reserved_zero = h.ids_hash == 0 || (h.flags & kFlagRenumbered);
  for (unsigned char b : h.reserved) reserved_zero = reserved_zero && b == 0;
  if (!reserved_zero) fail_usage(path + ": CSR header: reserved bytes are not zero");
  const uint64_t want = kCsrHeaderBytes + 8 * (h.n + 1) + uint64_t(h.id_bytes) * h.m;
  if (!f.is_stream() && f.size() != want)
    fail_usage(path + ": CSR file is " + std::to_string(f.size()) + " bytes, the header says " + std::to_string(want));
  return h;
}

}  // namespace

CsrHeader read_csr_header(const std::string& path) { return read_header(io::File::open_input(path)); }

CsrHeader read_csr_header(const io::File& f) { return read_header(f); }

CsrGraph read_csr(const std::string& path, uint64_t memory_budget) { return read_csr(io::File::open_input(path), memory_budget); }

CsrGraph read_csr(const io::File& f, uint64_t memory_budget) {
  const CsrHeader h = read_header(f);
  const uint64_t need = 8 * (h.n + 1) + uint64_t(h.id_bytes) * h.m;
  if (memory_budget && need > memory_budget)
    throw Error(ExitCode::io, f.path() + ": loading the graph needs " + format_bytes(need) +
                                  " of memory, more than the " + option_ref("memory") + " budget of " + format_bytes(memory_budget) +
                                  " (raise " + option_ref("memory") + ")");
  CsrGraph g;
  g.n = h.n;
  g.m = h.m;
  g.symmetric = (h.flags & kFlagSymmetric) != 0;
  g.renumbered = (h.flags & kFlagRenumbered) != 0;
  g.ids_hash = h.ids_hash;
  g.offsets.resize(h.n + 1);
  read_section(f, g.offsets.data(), 8 * (h.n + 1), kCsrHeaderBytes);
  const uint64_t nb = kCsrHeaderBytes + 8 * (h.n + 1);
  uint64_t nb_hash;
  if (h.id_bytes == 4) {
    g.ids32.resize(h.m);
    read_section(f, g.ids32.data(), 4 * h.m, nb);
    nb_hash = io::xxh3_64(g.ids32.data(), 4 * h.m);
  } else {
    g.ids64.resize(h.m);
    read_section(f, g.ids64.data(), 8 * h.m, nb);
    nb_hash = io::xxh3_64(g.ids64.data(), 8 * h.m);
  }
  if (f.is_stream()) {
    unsigned char extra;
    if (f.read_stream(&extra, 1) != 0) fail_usage(f.path() + ": CSR stream is longer than its header says");
  }
  f.check_unchanged();
  // The checksum covers the header (the symmetric flag included) and both arrays: a
  // file edited or damaged anywhere is refused before its contents are trusted.
  if (csr_checksum(h, io::xxh3_64(g.offsets.data(), 8 * (h.n + 1)), nb_hash) != h.checksum)
    fail_usage(f.path() + ": CSR checksum does not match its contents (the file was changed or damaged after "
                      "`gxsort graph build` wrote it)");
  if (g.offsets[0] != 0 || g.offsets[h.n] != h.m) fail_usage(f.path() + ": CSR offsets do not span the edges");
  for (uint64_t v = 0; v < h.n; ++v)
    if (g.offsets[v] > g.offsets[v + 1]) fail_usage(f.path() + ": CSR offsets decrease at vertex " + std::to_string(v));
  uint64_t bad = 0;
  if (h.id_bytes == 4) { for (uint32_t x : g.ids32) bad |= uint64_t(x >= h.n); }
  else { for (uint64_t x : g.ids64) bad |= uint64_t(x >= h.n); }
  if (bad) fail_usage(f.path() + ": CSR neighbor id out of range");
  return g;
}

}  // namespace gxsort::graph
