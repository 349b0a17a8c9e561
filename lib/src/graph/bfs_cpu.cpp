// CPU BFS: the sequential oracle, the parallel level-synchronous direction-optimizing
// search, and the Graph500-style validation of a BFS tree.
#include <algorithm>
#include <atomic>
#include <chrono>

#include "graph/direction.hpp"
#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "parallel/parallel_for.hpp"

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

// Runs body(lo, hi, t) over [0, total) in pieces of `piece` handed out dynamically to
// `threads` tasks, t being the task's index (its per-task state stays its own), or on
// the caller's thread alone when one piece would do.
template <class Body>
void for_pieces(uint64_t total, uint64_t piece, unsigned threads, const Body& body) {
  if (threads <= 1 || total <= piece) { if (total) body(uint64_t(0), total, 0u); return; }
  std::atomic<uint64_t> cursor{0};
  parallel::parallel_for(threads, threads, [&](size_t t) {
    for (uint64_t lo; (lo = cursor.fetch_add(piece)) < total;) body(lo, std::min(total, lo + piece), unsigned(t));
  });
}

uint32_t load(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
void store(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

// The frontier of a bottom-up step as one bit a vertex: each unvisited vertex tests its
// neighbors against it, and n/8 bytes stay in cache where the n 4-byte levels did not
// (GAP's bitmap frontier). Words are written by one thread each: pieces of vertices are
// whole words.
class Bitmap {
 public:
  explicit Bitmap(uint64_t n) : words_((n + 63) / 64) {}
  bool test(uint64_t v) const { return words_[v >> 6] >> (v & 63) & 1; }
  void set(uint64_t v) { words_[v >> 6] |= uint64_t(1) << (v & 63); }
  void set_atomic(uint64_t v) { __atomic_fetch_or(&words_[v >> 6], uint64_t(1) << (v & 63), __ATOMIC_RELAXED); }
  void clear(unsigned threads) {
    for_pieces(words_.size(), 1 << 14, threads, [&](uint64_t lo, uint64_t hi, unsigned) {
      std::fill(words_.begin() + lo, words_.begin() + hi, 0);
    });
  }
  void swap(Bitmap& o) { words_.swap(o.words_); }
  size_t size_words() const { return words_.size(); }

 private:
  std::vector<uint64_t> words_;
};

template <class Id>
void bfs_parallel(const CsrGraph& g, const Id* nbr, uint64_t source, unsigned threads, bool dir_opt, BfsRun& r) {
  uint32_t* lev = r.levels.data();
  uint64_t* par = r.parents.data();
  const uint64_t* off = g.offsets.data();
  std::vector<uint64_t> frontier{source}, next;
  lev[source] = 0;
  par[source] = source;
  struct alignas(64) Local { std::vector<uint64_t> out; uint64_t found = 0, deg = 0; };
  std::vector<Local> local(threads);
  uint64_t n_f = 1, m_f = g.degree(source), visited_deg = m_f;
  bool bottom_up = false;
  Bitmap front(0), found(0);  // sized when the search first goes bottom-up
  for (uint32_t level = 0; n_f > 0; ++level) {
    const uint32_t nl = level + 1;
    const double m_u = double(g.m - std::min<uint64_t>(g.m, visited_deg));
    if (dir_opt && g.symmetric && !bottom_up && DirectionSwitch{}.to_bottom_up(m_f, m_u, n_f)) {
      bottom_up = true;
      // The frontier's bits from its queue.
      if (front.size_words() == 0) { front = Bitmap(g.n); found = Bitmap(g.n); }
      else front.clear(threads);
      for_pieces(frontier.size(), 1 << 14, threads, [&](uint64_t lo, uint64_t hi, unsigned) {
        for (uint64_t i = lo; i < hi; ++i) front.set_atomic(frontier[i]);
      });
    } else if (bottom_up && DirectionSwitch{}.to_top_down(n_f, g.n)) {
      // back to top-down: the frontier is the vertices at `level`, in vertex order
      bottom_up = false;
      for (auto& l : local) l.out.clear();
      for_pieces(g.n, 1 << 16, threads, [&](uint64_t lo, uint64_t hi, unsigned t) {
        for (uint64_t v = lo; v < hi; ++v)
          if (load(&lev[v]) == level) local[t].out.push_back(v);
      });
      frontier.clear();
      for (auto& l : local) frontier.insert(frontier.end(), l.out.begin(), l.out.end());
    }
    for (auto& l : local) { l.out.clear(); l.found = 0; l.deg = 0; }
    if (bottom_up) {
      r.bottom_up_levels++;
      // Every unvisited vertex looks for a neighbor in the frontier; one thread owns each
      // vertex (and each word of `found`: pieces are whole words), so its level is stored
      // without a CAS.
      found.clear(threads);
      for_pieces(g.n, 4096, threads, [&](uint64_t lo, uint64_t hi, unsigned t) {
        Local& l = local[t];
        for (uint64_t v = lo; v < hi; ++v) {
          if (load(&lev[v]) != kUnreached) continue;
          for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
            const uint64_t w = nbr[e];
            if (front.test(w)) {
              store(&lev[v], nl);
              par[v] = w;
              found.set(v);
              l.found++;
              l.deg += off[v + 1] - off[v];
              break;
            }
          }
        }
      });
      front.swap(found);
    } else {
      // Expands frontier pieces; a vertex is claimed by the CAS that moves its level from
      // kUnreached to nl, so each vertex enters one next frontier once.
      uint64_t work = 0;
      if (frontier.size() > 256) for (uint64_t u : frontier) work += off[u + 1] - off[u];
      const unsigned tt = frontier.size() <= 256 || work < 65536 ? 1 : threads;
      const uint64_t piece = std::max<uint64_t>(64, frontier.size() / (uint64_t(tt) * 16));
      for_pieces(frontier.size(), piece, tt, [&](uint64_t lo, uint64_t hi, unsigned t) {
        Local& l = local[t];
        for (uint64_t i = lo; i < hi; ++i) {
          const uint64_t u = frontier[i];
          for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
            const uint64_t v = nbr[e];
            if (load(&lev[v]) != kUnreached) continue;
            uint32_t expect = kUnreached;
            if (__atomic_compare_exchange_n(&lev[v], &expect, nl, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
              par[v] = u;
              l.out.push_back(v);
              l.deg += off[v + 1] - off[v];
            }
          }
        }
      });
      next.clear();
      for (auto& l : local) { next.insert(next.end(), l.out.begin(), l.out.end()); l.found = l.out.size(); }
      frontier.swap(next);
    }
    n_f = 0;
    m_f = 0;
    for (auto& l : local) { n_f += l.found; m_f += l.deg; }
    visited_deg += m_f;
  }
}
}  // namespace

BfsRun bfs_cpu(const CsrGraph& g, uint64_t source, unsigned threads, bool direction_optimizing) {
  check_source(g, source);
  threads = std::max(1u, threads);  // the caller's (the plan's) count
  BfsRun r;
  r.backend = "cpu";
  r.levels.assign(g.n, kUnreached);
  r.parents.assign(g.n, kNoParent);
  const double t0 = now_s();
  if (g.wide()) bfs_parallel(g, g.ids64.data(), source, threads, direction_optimizing, r);
  else bfs_parallel(g, g.ids32.data(), source, threads, direction_optimizing, r);
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
