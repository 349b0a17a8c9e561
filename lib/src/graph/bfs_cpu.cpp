// CPU BFS: the sequential oracle, the parallel level-synchronous search, and the
// Graph500-style validation of a BFS tree.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "plan/sizes.hpp"

namespace gxsort::graph {
namespace {
constexpr uint64_t kNoParent = ~uint64_t(0);
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
void check_source(const CsrGraph& g, uint64_t s) {
  if (s >= g.n) fail_usage("--source " + std::to_string(s) + " is out of range (the graph has " + std::to_string(g.n) + " vertices)");
}
}  // namespace

void bfs_summarize(const CsrGraph& g, BfsRun& r) {
  r.depth = 0;
  r.reached = 0;
  r.edges_traversed = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    if (r.levels[v] == kUnreached) continue;
    r.reached++;
    r.edges_traversed += g.degree(v);
    r.depth = std::max(r.depth, r.levels[v] + 1);
  }
}

BfsRun bfs_sequential(const CsrGraph& g, uint64_t source) {
  check_source(g, source);
  BfsRun r;
  r.backend = "cpu-sequential";
  const double t0 = now_s();
  r.levels.assign(g.n, kUnreached);
  r.parents.assign(g.n, kNoParent);
  std::vector<uint64_t> q;
  q.push_back(source);
  r.levels[source] = 0;
  r.parents[source] = source;
  for (size_t h = 0; h < q.size(); ++h) {
    const uint64_t u = q[h];
    for (uint64_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      const uint64_t v = g.neighbor(e);
      if (r.levels[v] == kUnreached) { r.levels[v] = r.levels[u] + 1; r.parents[v] = u; q.push_back(v); }
    }
  }
  r.seconds = now_s() - t0;
  bfs_summarize(g, r);
  return r;
}

namespace {
template <class Id>
void bfs_parallel(const CsrGraph& g, const Id* nbr, uint64_t source, unsigned threads, BfsRun& r) {
  uint32_t* lev = r.levels.data();
  uint64_t* par = r.parents.data();
  std::vector<uint64_t> frontier{source}, next;
  lev[source] = 0;
  par[source] = source;
  std::vector<std::vector<uint64_t>> local(threads);
  for (uint32_t level = 0; !frontier.empty(); ++level) {
    const uint32_t nl = level + 1;
    // Expands frontier[lo, hi) into out; a vertex is claimed by the CAS that moves its
    // level from kUnreached to nl, so each vertex enters one next frontier once.
    auto expand = [&](size_t lo, size_t hi, std::vector<uint64_t>& out) {
      for (size_t i = lo; i < hi; ++i) {
        const uint64_t u = frontier[i];
        for (uint64_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
          const uint64_t v = nbr[e];
          if (__atomic_load_n(&lev[v], __ATOMIC_RELAXED) != kUnreached) continue;
          uint32_t expect = kUnreached;
          if (__atomic_compare_exchange_n(&lev[v], &expect, nl, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            par[v] = u;
            out.push_back(v);
          }
        }
      }
    };
    next.clear();
    uint64_t work = 0;
    if (frontier.size() > 256) for (uint64_t u : frontier) work += g.degree(u);
    if (threads <= 1 || frontier.size() <= 256 || work < 65536) {
      expand(0, frontier.size(), next);
    } else {
      // Split the frontier into pieces of about equal edge counts, handed out dynamically.
      std::atomic<size_t> cursor{0};
      const size_t piece = std::max<size_t>(64, frontier.size() / (threads * 16));
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        local[t].clear();
        pool.emplace_back([&, t] {
          for (;;) {
            size_t lo = cursor.fetch_add(piece);
            if (lo >= frontier.size()) break;
            expand(lo, std::min(frontier.size(), lo + piece), local[t]);
          }
        });
      }
      for (auto& th : pool) th.join();
      for (unsigned t = 0; t < threads; ++t) next.insert(next.end(), local[t].begin(), local[t].end());
    }
    frontier.swap(next);
  }
}
}  // namespace

BfsRun bfs_cpu(const CsrGraph& g, uint64_t source, unsigned threads) {
  check_source(g, source);
  if (threads == 0) threads = hardware_threads();
  BfsRun r;
  r.backend = "cpu";
  r.levels.assign(g.n, kUnreached);
  r.parents.assign(g.n, kNoParent);
  const double t0 = now_s();
  if (g.wide()) bfs_parallel(g, g.ids64.data(), source, threads, r);
  else bfs_parallel(g, g.ids32.data(), source, threads, r);
  r.seconds = now_s() - t0;
  bfs_summarize(g, r);
  return r;
}

std::string validate_bfs(const CsrGraph& g, uint64_t source, const std::vector<uint32_t>& levels,
                         const std::vector<uint64_t>& parents) {
  if (levels.size() != g.n || parents.size() != g.n) return "levels/parents have the wrong length";
  if (source >= g.n) return "source out of range";
  if (levels[source] != 0) return "the source's level is not 0";
  if (parents[source] != source) return "the source is not its own parent";
  for (uint64_t v = 0; v < g.n; ++v) {
    if (levels[v] == kUnreached) {
      if (parents[v] != kNoParent) return "unreached vertex " + std::to_string(v) + " has a parent";
      continue;
    }
    if (v == source) continue;
    const uint64_t p = parents[v];
    if (p >= g.n) return "vertex " + std::to_string(v) + " has no valid parent";
    if (levels[p] == kUnreached || levels[p] + 1 != levels[v])
      return "parent of " + std::to_string(v) + " is not one level up";
    bool edge = false;
    for (uint64_t e = g.offsets[p]; e < g.offsets[p + 1] && !edge; ++e) edge = g.neighbor(e) == v;
    if (!edge) return "no edge from parent " + std::to_string(p) + " to " + std::to_string(v);
  }
  for (uint64_t u = 0; u < g.n; ++u) {
    if (levels[u] == kUnreached) continue;
    for (uint64_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      const uint64_t v = g.neighbor(e);
      if (levels[v] == kUnreached) return "edge " + std::to_string(u) + "->" + std::to_string(v) + " leaves the reached set";
      if (levels[v] > levels[u] + 1) return "edge " + std::to_string(u) + "->" + std::to_string(v) + " spans more than one level";
    }
  }
  return "";
}

}  // namespace gxsort::graph
