// CPU BFS: the sequential oracle, the parallel level-synchronous direction-optimizing
// search, and the Graph500-style validation of a BFS tree.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "graph/direction.hpp"
#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort::graph {
namespace {
constexpr uint64_t kNoParent = ~uint64_t(0);
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
void check_source(const CsrGraph& g, uint64_t s) {
  if (s >= g.n) fail_usage(option_ref("source", std::to_string(s)) + " is out of range (the graph has " + std::to_string(g.n) + " vertices)");
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

// Tuning::bfs_profile (GXSORT_BFS_PROFILE=1): every step's mode, level, frontier
// (vertices and edges), the vertices it found and its time to Context::trace, as the GPU
// search reports its levels, to see where a search's time goes.
class Profile {
 public:
  explicit Profile(const Context& context) : trace_(context.trace), on_(context.tuning.bfs_profile && context.trace) {}
  void start(double t0) { last_ = t0; }
  void step(const char* mode, uint32_t level, uint64_t n_f, uint64_t m_f, uint64_t found) {
    if (!on_) return;
    const double t = now_s();
    steps_.push_back({mode, level, n_f, m_f, found, t - last_});
    last_ = t;
  }
  void print(uint64_t source, double seconds, const DirectionSwitch& dir) const {
    if (!on_) return;
    char line[256];
    std::snprintf(line, sizeof line, "bfs profile (cpu): source %llu, %.1f us (alpha %g, beta %g, bottom-up from %llu vertices)",
                  (unsigned long long)source, seconds * 1e6, dir.alpha, dir.beta,
                  (unsigned long long)dir.min_bottom_up_frontier);
    trace_(line);
    for (const Step& s : steps_) {
      std::snprintf(line, sizeof line, "  %-9s level %2u  frontier %10llu  edges %12llu  found %10llu  %8.1f us", s.mode,
                    s.level, (unsigned long long)s.n_f, (unsigned long long)s.m_f, (unsigned long long)s.found, s.s * 1e6);
      trace_(line);
    }
  }

 private:
  struct Step {
    const char* mode;
    uint32_t level;
    uint64_t n_f, m_f, found;
    double s;
  };
  std::function<void(const std::string&)> trace_;
  bool on_ = false;
  double last_ = 0;
  std::vector<Step> steps_;
};

// The CPU's switch points; Tuning's (GXSORT_BFS_ALPHA, GXSORT_BFS_BETA and
// GXSORT_BFS_MINBU: the smallest frontier that goes bottom-up) override them for tuning runs.
DirectionSwitch cpu_switch(const Tuning& tuning) {
  DirectionSwitch d = DirectionSwitch::cpu();
  if (tuning.bfs_alpha) d.alpha = *tuning.bfs_alpha;
  if (tuning.bfs_beta) d.beta = *tuning.bfs_beta;
  if (tuning.bfs_min_bottom_up) d.min_bottom_up_frontier = *tuning.bfs_min_bottom_up;
  return d;
}

// One bit a vertex: the visited set (the search's only membership test: n/8 bytes stay
// in L2 where the 4n-byte levels did not) and the bottom-up frontiers.
class Bitmap {
 public:
  explicit Bitmap(uint64_t n = 0) : size_((n + 63) / 64), words_(new uint64_t[size_]) {}  // not cleared
  uint64_t size() const { return size_; }
  uint64_t* data() { return words_.get(); }
  uint64_t& word(uint64_t i) { return words_[i]; }
  bool test(uint64_t v) const { return words_[v >> 6] >> (v & 63) & 1; }
  void set(uint64_t v) { words_[v >> 6] |= uint64_t(1) << (v & 63); }
  // Sets v's bit; true when it was clear. No locked instruction: one drains the store
  // buffer and holds back the loads behind it, and claims that way took half of a big
  // top-down level. When two threads set bits of one word at the same instant one bit
  // may be lost, so the top-down step sets its claims' bits again afterwards and drops
  // a vertex claimed twice (Search::settle). Bits of earlier levels are never lost:
  // every store writes back a word loaded during this level.
  bool claim(uint64_t v) {
    uint64_t* w = &words_[v >> 6];
    const uint64_t bit = uint64_t(1) << (v & 63);
    const uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
    if (old & bit) return false;
    __atomic_store_n(w, old | bit, __ATOMIC_RELAXED);
    return true;
  }

 private:
  uint64_t size_;
  std::unique_ptr<uint64_t[]> words_;
};

// The parallel level-synchronous search, direction-optimizing on symmetric graphs.
// Top-down frontiers are queues of ids, split by degree: a vertex of at least kHeavy
// edges is expanded in kHeavy-edge chunks, so a hub (RMAT's reach 10^5 edges) does not
// leave one thread working alone at the end of its level. Bottom-up frontiers are
// bitmaps. Each vertex's level and parent are written once. Parents are of the graph's
// id width (Id).
template <class Id>
class Search {
 public:
  Search(const CsrGraph& g, const Id* nbr, Id* parents, unsigned threads, const DirectionSwitch& dir, BfsRun& r,
         Profile& prof)
      : g_(g), off_(g.offsets.data()), nbr_(nbr), lev_(r.levels.data()), par_(parents), threads_(threads),
        dir_(dir), r_(r), prof_(prof), visited_(g.n), local_(threads) {
    std::fill(visited_.data(), visited_.data() + visited_.size(), 0);
    for (uint64_t v = g.n; v < visited_.size() * 64; ++v) visited_.set(v);  // the last word's tail: never searched
  }
  void run(uint64_t source, bool dir_opt);

 private:
  static constexpr uint64_t kHeavy = 1024;             // edges: a vertex expanded in chunks of this many
  static constexpr uint64_t kLightPiece = 64;          // light vertices a top-down task expands
  static constexpr uint64_t kParallelEdges = 8192;     // a top-down level of fewer edges stays on one thread
  static constexpr unsigned kRangeBits = 15;           // claims settled by ranges of 2^15 vertices
  static constexpr uint64_t kBottomUpWords = 16;       // 1024 vertices a bottom-up task
  static constexpr uint64_t kParallelWords = 1 << 18;  // a bottom-up level over more words is shared
  static constexpr size_t kAhead = 16;                 // bottom-up: neighbors prefetched this many vertices ahead
  struct Claim { Id v, u; };  // u claimed v in visited_; v's level and parent not yet written
  struct Chunk { Id u; uint64_t e0, e1; };
  struct Candidate { uint64_t v, e0, e1; };  // an unvisited vertex of a bottom-up task and its edges
  struct alignas(64) Local {  // one thread's: the next frontier's part, scratch
    std::vector<Id> light, heavy;  // a top-down frontier, by degree
    uint64_t found = 0, deg = 0;   // vertices found, their edges
    std::vector<std::vector<Claim>> claims;  // by range of vertices
    std::vector<Candidate> candidates;
  };

  void push(Local& l, uint64_t v) {
    const uint64_t d = off_[v + 1] - off_[v];
    (d >= kHeavy ? l.heavy : l.light).push_back(Id(v));
    l.found++;
    l.deg += d;
  }
  void expand(uint64_t u, uint64_t e0, uint64_t e1, Local& l);
  void settle(Local& l, std::vector<Claim>& claims, uint32_t nl);
  void top_down(uint32_t nl);
  void scan_range(uint64_t lo, uint64_t hi, uint32_t nl, Local& l);
  void bottom_up(uint32_t nl);
  void queue_to_bitmap();
  void bitmap_to_queue();
  void gather();

  const CsrGraph& g_;
  const uint64_t* off_;
  const Id* nbr_;
  uint32_t* lev_;
  Id* par_;  // the parents of visited vertices (others' are left as they are)
  const unsigned threads_;
  const DirectionSwitch dir_;
  BfsRun& r_;
  Profile& prof_;
  Bitmap visited_, front_, next_;  // front_ and next_: sized when the search first goes bottom-up
  std::vector<Local> local_;
  std::vector<Id> light_, heavy_;  // the top-down frontier
  std::vector<Chunk> chunks_;
  uint64_t n_f_ = 0, m_f_ = 0;     // the frontier's vertices and edges
  uint64_t unexplored_ = 0;        // the edges of the unvisited vertices
  unsigned shift_ = 63;            // a claim of v goes to claims[v >> shift_]
};

template <class Id>
void Search<Id>::expand(uint64_t u, uint64_t e0, uint64_t e1, Local& l) {
  for (uint64_t e = e0; e < e1; ++e) {
    const uint64_t v = nbr_[e];
    if (visited_.claim(v)) l.claims[v >> shift_].push_back({Id(v), Id(u)});
  }
}

// Writes the level and parent of claimed vertices and queues them, after the claims:
// kept apart, the cache misses of these stores stayed out of the claiming loop. One
// thread settles each range of vertices, so it may set their bits again (a racing
// claim may have cleared one) and know a vertex claimed twice by its level.
template <class Id>
void Search<Id>::settle(Local& l, std::vector<Claim>& claims, uint32_t nl) {
  for (const Claim& c : claims) {
    if (lev_[c.v] == nl) continue;
    visited_.set(c.v);
    lev_[c.v] = nl;
    par_[c.v] = c.u;
    push(l, c.v);
  }
  claims.clear();
}

// One top-down level: tasks are the heavy vertices' edge chunks, then pieces of light
// vertices, handed out dynamically. A level of few edges stays on the calling thread
// (waking the pool costs more than it saves) and settles each task's claims at once. On
// several threads, claims are kept by range of 2^kRangeBits vertices (whole words of
// visited_) and settled range by range: one thread owns each range's bits, and the
// levels, parents and offsets a big level touches are read once, range by range,
// instead of at random (the 2 cores of the CPU machine share about 7 GB/s).
template <class Id>
void Search<Id>::top_down(uint32_t nl) {
  chunks_.clear();
  for (Id u : heavy_)
    for (uint64_t e = off_[u]; e < off_[u + 1]; e += kHeavy) chunks_.push_back({u, e, std::min(e + kHeavy, off_[u + 1])});
  const uint64_t tasks = chunks_.size() + (light_.size() + kLightPiece - 1) / kLightPiece;
  const bool shared = threads_ > 1 && m_f_ >= kParallelEdges;
  shift_ = shared ? kRangeBits : 63;
  const uint64_t ranges = ((g_.n - 1) >> shift_) + 1;
  for (Local& l : local_) l.claims.resize(std::max<size_t>(l.claims.size(), ranges));
  for_pieces(tasks, 1, shared ? threads_ : 1, [&](uint64_t lo, uint64_t hi, unsigned t) {
    Local& l = local_[t];
    for (uint64_t k = lo; k < hi; ++k) {
      if (k < chunks_.size()) {
        expand(chunks_[k].u, chunks_[k].e0, chunks_[k].e1, l);
      } else {
        const uint64_t i0 = (k - chunks_.size()) * kLightPiece, i1 = std::min<uint64_t>(light_.size(), i0 + kLightPiece);
        for (uint64_t i = i0; i < i1; ++i) expand(light_[i], off_[light_[i]], off_[light_[i] + 1], l);
      }
      if (!shared) settle(l, l.claims[0], nl);
    }
  });
  prof_.step("td-claim", nl - 1, n_f_, m_f_, 0);
  if (shared)
    for_pieces(ranges, 1, threads_, [&](uint64_t lo, uint64_t hi, unsigned t) {
      for (uint64_t b = lo; b < hi; ++b)
        for (Local& from : local_) settle(local_[t], from.claims[b], nl);
    });
  gather();
}

// The unvisited vertices of words [lo, hi) look for a parent in the frontier. One thread
// owns each word of visited_ and next_ during a bottom-up level: no atomics, and next_'s
// words are written whole (never cleared). A vertex without edges can never be reached
// (the graph is symmetric): it is marked visited so that later levels skip it. The
// first line of each vertex's neighbors is a memory miss in a graph larger than the
// cache, and a scan that stops at a data-dependent edge keeps few misses in flight:
// the candidates are listed first and each list is prefetched kAhead candidates early.
template <class Id>
void Search<Id>::scan_range(uint64_t lo, uint64_t hi, uint32_t nl, Local& l) {
  std::vector<Candidate>& cand = l.candidates;
  cand.clear();
  for (uint64_t w = lo; w < hi; ++w) {
    uint64_t dead = 0;
    for (uint64_t todo = ~visited_.word(w); todo; todo &= todo - 1) {
      const unsigned b = unsigned(__builtin_ctzll(todo));
      const uint64_t v = w * 64 + b, e0 = off_[v], e1 = off_[v + 1];
      if (e0 == e1) dead |= uint64_t(1) << b;
      else cand.push_back({v, e0, e1});
    }
    visited_.word(w) |= dead;
    next_.word(w) = 0;
  }
  for (size_t i = 0; i < cand.size(); ++i) {
    if (i + kAhead < cand.size()) __builtin_prefetch(&nbr_[cand[i + kAhead].e0]);
    const Candidate& c = cand[i];
    for (uint64_t e = c.e0; e < c.e1; ++e) {
      const uint64_t u = nbr_[e];
      if (!front_.test(u)) continue;
      next_.set(c.v);
      lev_[c.v] = nl;
      par_[c.v] = Id(u);
      l.found++;
      l.deg += c.e1 - c.e0;
      break;
    }
  }
  for (uint64_t w = lo; w < hi; ++w) visited_.word(w) |= next_.word(w);
}

// One bottom-up level. The last ones of a search find a few vertices among few
// unexplored edges in ~50 us, less than waking a second thread takes on the CPU machine.
template <class Id>
void Search<Id>::bottom_up(uint32_t nl) {
  const bool shared = unexplored_ >= 4 * kParallelEdges || visited_.size() >= kParallelWords;
  for_pieces(visited_.size(), kBottomUpWords, shared ? threads_ : 1,
             [&](uint64_t lo, uint64_t hi, unsigned t) { scan_range(lo, hi, nl, local_[t]); });
  std::swap(front_, next_);
  gather();
}

// Top-down -> bottom-up: the queue's bits. Each thread clears and fills its own range of
// words, reading the whole queue (no atomics, no separate clearing pass).
template <class Id>
void Search<Id>::queue_to_bitmap() {
  if (front_.size() == 0) front_ = Bitmap(g_.n), next_ = Bitmap(g_.n);
  parallel::parallel_for_ranges(front_.size(), threads_, [&](size_t b, size_t e, unsigned) {
    std::fill(front_.data() + b, front_.data() + e, 0);
    for (const std::vector<Id>* q : {&light_, &heavy_})
      for (Id v : *q)
        if (v >> 6 >= b && v >> 6 < e) front_.set(v);
  });
}

// Bottom-up -> top-down: the frontier bitmap's vertices, queued by degree (n_f_ and m_f_
// come out the same).
template <class Id>
void Search<Id>::bitmap_to_queue() {
  for_pieces(front_.size(), 1 << 12, threads_, [&](uint64_t lo, uint64_t hi, unsigned t) {
    for (uint64_t w = lo; w < hi; ++w)
      for (uint64_t bits = front_.word(w); bits; bits &= bits - 1) push(local_[t], w * 64 + unsigned(__builtin_ctzll(bits)));
  });
  gather();
}

// The threads' parts of the next frontier into one.
template <class Id>
void Search<Id>::gather() {
  light_.clear();
  heavy_.clear();
  n_f_ = m_f_ = 0;
  for (Local& l : local_) {
    light_.insert(light_.end(), l.light.begin(), l.light.end());
    heavy_.insert(heavy_.end(), l.heavy.begin(), l.heavy.end());
    n_f_ += l.found;
    m_f_ += l.deg;
    l.light.clear();
    l.heavy.clear();
    l.found = l.deg = 0;
  }
}

// The level loop and Beamer's switch (the CPU's points: DirectionSwitch::cpu). Unlike
// the GPU's search, it stays bottom-up while the frontier's edges exceed the unexplored
// edges / alpha: a bottom-up level skips visited vertices 64 at a time and the ones
// without edges after the first, so when few unexplored edges are left it costs less
// than converting and expanding even a small frontier.
template <class Id>
void Search<Id>::run(uint64_t source, bool dir_opt) {
  lev_[source] = 0;
  par_[source] = Id(source);
  visited_.set(source);
  push(local_[0], source);
  gather();
  uint64_t seen_edges = m_f_;  // the degrees of every vertex visited
  bool bottom_up_now = false;
  for (uint32_t level = 0; n_f_ > 0; ++level) {
    unexplored_ = g_.m - std::min(g_.m, seen_edges);
    if (dir_opt && g_.symmetric && !bottom_up_now && dir_.to_bottom_up(m_f_, double(unexplored_), n_f_)) {
      bottom_up_now = true;
      queue_to_bitmap();
      prof_.step("q->bits", level, n_f_, m_f_, 0);
    } else if (bottom_up_now && dir_.to_top_down(n_f_, g_.n) && double(m_f_) <= double(unexplored_) / dir_.alpha) {
      bottom_up_now = false;
      bitmap_to_queue();
      prof_.step("->queue", level, n_f_, m_f_, 0);
    }
    const uint64_t n_in = n_f_, m_in = m_f_;
    if (bottom_up_now) bottom_up(level + 1), r_.bottom_up_levels++;
    else top_down(level + 1);
    seen_edges += m_f_;
    prof_.step(bottom_up_now ? "bottom-up" : "td-settle", level, n_in, m_in, n_f_);
  }
}
}  // namespace

BfsRun bfs_cpu(const CsrGraph& g, uint64_t source, unsigned threads, bool direction_optimizing,
               const Context& context) {
  check_source(g, source);
  threads = std::max(1u, threads);  // the caller's (the plan's) count
  BfsRun r;
  r.backend = "cpu";
  r.levels.assign(g.n, kUnreached);
  const DirectionSwitch dir = cpu_switch(context.tuning);
  Profile prof(context);
  if (g.wide()) {
    r.parents.assign(g.n, kNoParent);
    const double t0 = now_s();
    prof.start(t0);
    Search<uint64_t>(g, g.ids64.data(), r.parents.data(), threads, dir, r, prof).run(source, direction_optimizing);
    r.seconds = now_s() - t0;
  } else {
    // The search writes 4-byte parents, as the GPU's does (a bottom-up level writes the
    // parents of up to half the vertices: 8-byte ones were a sixth of its memory
    // traffic); they are widened into BfsRun's after it, as the GPU's are copied back.
    std::vector<uint32_t> par32(g.n);  // its pages touched here, not in the search
    const double t0 = now_s();
    prof.start(t0);
    Search<uint32_t>(g, g.ids32.data(), par32.data(), threads, dir, r, prof).run(source, direction_optimizing);
    r.seconds = now_s() - t0;
    r.parents.resize(g.n);
    for (uint64_t v = 0; v < g.n; ++v) r.parents[v] = r.levels[v] == kUnreached ? kNoParent : par32[v];
  }
  prof.print(source, r.seconds, dir);
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
