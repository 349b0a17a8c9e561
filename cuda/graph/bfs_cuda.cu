// The CUDA BFS driver: level-synchronous and direction-optimizing (Beamer) on symmetric
// graphs; the kernels are in bfs_kernels.cu.
//   - while the frontier is small, one block of 1024 threads runs level after level in a
//     single launch (no launch and no host round trip per level);
//   - on symmetric graphs, bottom-up steps (every unvisited vertex looks for a parent in
//     the frontier) when the frontier's edges exceed the unexplored edges / alpha, and
//     back to top-down when the frontier has fewer than n / beta vertices.
// Device memory comes from one DeviceMemory arena, laid out as plan_bfs_device says.
// When the neighbor array does not fit beside the resident arrays, the kernels read it
// in place from pinned host memory (zero copy: a search reads each edge at most once,
// bottom-up levels only until a parent is found, so the bus carries less than a copy of
// every partition a level needs). Where pinning is refused, or partitions are forced
// (tests, GXSORT_BFS_STREAM=copy), it is streamed in partitions on every level
// (bfs_stream.cuh): top-down levels copy only the partitions holding an edge of a
// frontier vertex, bottom-up levels copy them all; the single-block kernel is not used
// then (it needs every neighbor on the device). Levels equal the CPU's either way;
// parents may differ but form a valid BFS tree.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "graph/bfs_cuda.cuh"
#include "graph/bfs_kernels.cuh"
#include "graph/bfs_stream.cuh"
#include "graph/direction.hpp"
#include "graph/graph.hpp"
#include "pinned_pool.cuh"

namespace gxsort::graph {
namespace {

using kernels::BfsPolicy;
using kernels::ull;
static_assert(cuda::DeviceMemory::kAlignment == 256, "plan_bfs_device assumes 256-byte arena blocks");
static_assert(sizeof(kernels::SingleState) == 32, "plan_bfs_device counts a 32-byte single-block state");

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The direction switch points and the bottom-up kernel, overridable by Context::tuning
// for tuning runs (tools/bench/bfs_bench.sh: GXSORT_BFS_ALPHA, GXSORT_BFS_BETA,
// GXSORT_BFS_BU=lev: the level-array bottom-up kernel in memory too, as when streamed;
// GXSORT_BFS_PROFILE=1: every level's mode, frontier and time to Context::trace;
// GXSORT_BFS_STREAM=copy: partitions streamed where the plan reads host memory in place).
struct Tuning {
  DirectionSwitch dir;
  bool bitmap = true, profile = false, copy_partitions = false;
  std::function<void(const std::string&)> trace;
  static Tuning from(const Context& context) {
    const gxsort::Tuning& given = context.tuning;
    Tuning t;
    t.copy_partitions = given.bfs_copy_partitions.value_or(false);
    if (given.bfs_alpha) t.dir.alpha = *given.bfs_alpha;
    if (given.bfs_beta) t.dir.beta = *given.bfs_beta;
    t.bitmap = given.bfs_bitmap.value_or(true);
    t.profile = given.bfs_profile && context.trace;
    t.trace = context.trace;
    return t;
  }
};

// The neighbor array pinned where it is and mapped into the device's address space, so
// that the kernels read it over the bus (no device memory, no copies per level).
class HostMappedNeighbors {
 public:
  HostMappedNeighbors() = default;
  HostMappedNeighbors(const HostMappedNeighbors&) = delete;
  HostMappedNeighbors& operator=(const HostMappedNeighbors&) = delete;
  ~HostMappedNeighbors() {
    if (!host_) return;
    cudaDeviceSynchronize();  // a search that threw may still have kernels reading it
    cudaHostUnregister(host_);
  }
  // False, with nothing pinned and no CUDA error left pending, where the system refuses
  // (a locked-memory limit, a driver without mapped memory): the caller streams instead.
  bool map(const CsrGraph& g, int device) {
    if (g.m == 0) return false;
    int read_only = 0;
    cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, device);
    void* host = const_cast<uint32_t*>(g.ids32.data());  // pinned, never written
    unsigned flags = cudaHostRegisterMapped | (read_only ? cudaHostRegisterReadOnly : 0);
    if (cudaHostRegister(host, 4 * g.m, flags) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    host_ = host;
    void* dev = nullptr;
    GXSORT_CUDA_CHECK(cudaHostGetDevicePointer(&dev, host, 0));
    dev_ = static_cast<const uint32_t*>(dev);
    return true;
  }
  const uint32_t* device_pointer() const { return dev_; }

 private:
  void* host_ = nullptr;
  const uint32_t* dev_ = nullptr;
};

// The graph on the device: the resident arrays, allocated in the order plan_bfs_device
// counts them, and the neighbors: resident, read in place from host memory, or streamed.
struct DeviceGraph {
  cuda::device_buffer<uint64_t> off;
  cuda::device_buffer<uint32_t> lev, par, qa, qb;
  cuda::device_buffer<ull> cnt;
  cuda::device_buffer<kernels::SingleState> st;
  cuda::device_buffer<uint32_t> nbr;      // resident neighbors
  HostMappedNeighbors mapped;              // or read in place from host memory
  std::unique_ptr<NeighborStream> stream;  // or streamed in partitions (else null)
  const uint32_t* whole_nbr = nullptr;     // resident or mapped: every edge, for the kernels

  DeviceGraph(cuda::DeviceMemory& mem, const CsrGraph& g, const BfsDevicePlan& plan, unsigned copy_threads,
              bool copy_partitions) {
    const size_t nq = std::max<size_t>(g.n, 1);
    off = mem.buffer<uint64_t>(g.n + 1, "BFS offsets");
    lev = mem.buffer<uint32_t>(nq, "BFS levels");
    par = mem.buffer<uint32_t>(nq, "BFS parents");
    qa = mem.buffer<uint32_t>(nq, "BFS queue");
    qb = mem.buffer<uint32_t>(nq, "BFS queue");
    cnt = mem.buffer<ull>(2, "BFS counters");
    st = mem.buffer<kernels::SingleState>(1, "BFS state");
    GXSORT_CUDA_CHECK(cudaMemcpy(off.data(), g.offsets.data(), 8 * (g.n + 1), cudaMemcpyHostToDevice));
    if (!plan.streamed) {
      nbr = mem.buffer<uint32_t>(std::max<uint64_t>(g.m, 1), "BFS neighbors");
      if (g.m) GXSORT_CUDA_CHECK(cudaMemcpy(nbr.data(), g.ids32.data(), 4 * g.m, cudaMemcpyHostToDevice));
      whole_nbr = nbr.data();
    } else if (plan.host_mapped && !copy_partitions && mapped.map(g, mem.device())) {
      whole_nbr = mapped.device_pointer();
    } else {
      stream = std::make_unique<NeighborStream>(g, mem, plan.partition_edges, copy_threads);
    }
  }
  bool host_mapped() const { return mapped.device_pointer() != nullptr; }
};

// One level's kernels over the resident arrays, with the neighbors resident (`whole`)
// or streamed (`stream`), and the two level counters (frontier vertices, their edges).
struct LevelKernels {
  const CsrGraph& g;
  kernels::BfsArrays a;
  kernels::EdgeWindow whole;  // valid when stream is null
  NeighborStream* stream;
  unsigned bu_blocks;
  // Pinned: a device-to-host copy into pageable memory costs a staging copy and a
  // synchronous call on every level.
  HostBuffer host = cuda::allocate_pinned(sizeof(kernels::SingleState) + 16);
  kernels::SingleState* host_st() { return reinterpret_cast<kernels::SingleState*>(host.data()); }
  ull* host_cnt() { return reinterpret_cast<ull*>(host.data() + sizeof(kernels::SingleState)); }

  void counters_zero() { GXSORT_CUDA_CHECK(cudaMemsetAsync(a.cnt, 0, 16, 0)); }
  void counters_read(ull c[2]) {
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(host_cnt(), a.cnt, 16, cudaMemcpyDeviceToHost, 0));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(0));
    c[0] = host_cnt()[0];
    c[1] = host_cnt()[1];
  }

  void bottom_up(uint32_t level) {
    if (!stream) { kernels::launch_bottom_up(a, whole, 0, g.n, level, bu_blocks, 0); return; }
    std::vector<uint64_t> all(stream->partitions());
    for (uint64_t p = 0; p < all.size(); ++p) all[p] = p;
    stream->run(all, [&](const kernels::EdgeWindow& w, uint64_t p, cudaStream_t s) {
      kernels::launch_bottom_up(a, w, stream->first_vertex(p), stream->end_vertex(p), level, bu_blocks, s);
    });
  }

  void top_down(const uint32_t* q_in, uint32_t n_f, ull m_f, uint32_t* q_out, uint32_t level) {
    if (!stream) { kernels::launch_top_down(a, whole, q_in, n_f, m_f, q_out, level + 1, 0); return; }
    const uint64_t np = stream->partitions();
    if (np == 0) return;
    std::vector<unsigned char> flags(np);
    GXSORT_CUDA_CHECK(cudaMemset(stream->device_flags(), 0, np));
    kernels::launch_mark_partitions(a.off, q_in, n_f, stream->part_edges(), stream->device_flags(), 0);
    GXSORT_CUDA_CHECK(cudaMemcpy(flags.data(), stream->device_flags(), np, cudaMemcpyDeviceToHost));
    std::vector<uint64_t> need;
    for (uint64_t p = 0; p < np; ++p)
      if (flags[p]) need.push_back(p);
    stream->run(need, [&](const kernels::EdgeWindow& w, uint64_t, cudaStream_t s) {
      kernels::launch_top_down(a, w, q_in, n_f, m_f, q_out, level + 1, s);
    });
  }
};

// Tuning::profile: every step's mode, level, frontier and time (the device synchronized
// after each step, so the times are the steps' own), to Tuning::trace.
struct Profile {
  struct Step {
    const char* mode;
    uint32_t level;
    uint64_t n_f, m_f;
    double s;
  };
  bool on = false;
  double last = 0;
  std::vector<Step> steps;

  void start() {
    steps.clear();
    last = on ? now_s() : 0;
  }
  void step(const char* mode, uint32_t level, uint64_t n_f, uint64_t m_f) {
    if (!on) return;
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const double t = now_s();
    steps.push_back({mode, level, n_f, m_f, t - last});
    last = t;
  }
  void print(uint64_t source, double seconds, const Tuning& tune, bool bitmap) const {
    if (!on) return;
    char line[256];
    std::snprintf(line, sizeof line, "bfs profile: source %llu, %.1f us (alpha %g, beta %g, %s bottom-up)",
                  (unsigned long long)source, seconds * 1e6, tune.dir.alpha, tune.dir.beta,
                  bitmap ? "bitmap" : "level-array");
    tune.trace(line);
    for (const auto& s : steps) {
      std::snprintf(line, sizeof line, "  %-9s level %2u  frontier %10llu  edges %12llu  %8.1f us", s.mode, s.level,
                    (unsigned long long)s.n_f, (unsigned long long)s.m_f, s.s * 1e6);
      tune.trace(line);
    }
  }
};

// One search's level loop: the direction switch (Beamer's, on symmetric graphs), then a
// bottom-up level, a run of small top-down levels in the single-block kernel, or a
// top-down level. Parents of unreached vertices are left undefined (the caller maps
// them by level).
class Search {
 public:
  Search(const CsrGraph& g, DeviceGraph& d, unsigned bu_blocks, const Tuning& tune);
  void run(uint32_t source);
  void print_profile(uint64_t source, double seconds) const { profile_.print(source, seconds, tune_, bitmap_); }

  uint32_t bottom_up_levels = 0;

 private:
  void switch_direction();
  void bottom_up_level();
  void top_down_level();
  void finish_level(const char* mode);  // the level's counters become the next frontier
  void single_block_levels();          // small top-down levels in one launch, until the frontier grows

  const CsrGraph& g_;
  LevelKernels k_;
  uint32_t* qa_;
  uint32_t* qb_;
  kernels::SingleState* st_;
  Tuning tune_;
  bool bitmap_;
  uint32_t words_;
  Profile profile_;
  // The level loop's state.
  uint32_t* q_in_ = nullptr;
  uint32_t* q_out_ = nullptr;
  uint32_t* bits_front_ = nullptr;
  uint32_t* bits_next_ = nullptr;
  uint64_t n_f_ = 0, m_f_ = 0, visited_deg_ = 0;
  uint32_t level_ = 0;
  bool bu_ = false;
};

Search::Search(const CsrGraph& g, DeviceGraph& d, unsigned bu_blocks, const Tuning& tune)
    : g_(g), k_{g, {d.off.data(), d.lev.data(), d.par.data(), d.cnt.data()}, {d.whole_nbr, 0, g.m}, d.stream.get(), bu_blocks},
      qa_(d.qa.data()), qb_(d.qb.data()), st_(d.st.data()), tune_(tune),
      // Bitmap bottom-up (in memory): the frontier bitmaps live in the queue that is free
      // during bottom-up levels (2 * ceil(n / 32) words <= n, as n > the frontier >
      // kMinBottomUpFrontier there).
      bitmap_(tune.bitmap && !d.stream), words_(uint32_t((g.n + 31) / 32)) {
  static_assert(DirectionSwitch::kMinBottomUpFrontier >= 64, "two frontier bitmaps must fit a queue of n entries");
  profile_.on = tune.profile;
}

void Search::run(uint32_t source) {
  bottom_up_levels = 0;
  profile_.start();
  kernels::launch_init(k_.a, uint32_t(g_.n), source, qa_, k_.bu_blocks, 0);
  profile_.step("init", 0, 0, 0);
  q_in_ = qa_;
  q_out_ = qb_;
  n_f_ = 1;
  m_f_ = visited_deg_ = g_.degree(source);
  level_ = 0;
  bu_ = false;
  while (n_f_ > 0) {
    switch_direction();
    if (bu_) bottom_up_level();
    else if (!k_.stream && n_f_ <= BfsPolicy::kSmallFrontier && m_f_ <= BfsPolicy::kSmallEdges) single_block_levels();
    else top_down_level();
  }
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
}

void Search::switch_direction() {
  const double m_u = double(g_.m - std::min<uint64_t>(g_.m, visited_deg_));
  if (g_.symmetric && !bu_ && tune_.dir.to_bottom_up(m_f_, m_u, n_f_)) {
    bu_ = true;
    if (bitmap_) {
      bits_front_ = q_out_;
      bits_next_ = q_out_ + words_;
      kernels::launch_queue_to_bitmap(q_in_, uint32_t(n_f_), uint32_t(g_.n), bits_front_, 0);
      profile_.step("q->bits", level_, n_f_, m_f_);
    }
  } else if (bu_ && tune_.dir.to_top_down(n_f_, g_.n)) {
    bu_ = false;
    k_.counters_zero();
    if (bitmap_) kernels::launch_bitmap_to_queue(k_.a, bits_front_, uint32_t(g_.n), q_in_, k_.bu_blocks, 0);
    else kernels::launch_levels_to_queue(k_.a, uint32_t(g_.n), level_, q_in_, k_.bu_blocks, 0);
    profile_.step("->queue", level_, n_f_, m_f_);
  }
}

void Search::bottom_up_level() {
  k_.counters_zero();
  if (bitmap_) {
    kernels::launch_bottom_up_bitmap(k_.a, k_.whole.nbr, uint32_t(g_.n), level_, bits_front_, bits_next_, k_.bu_blocks, 0);
    std::swap(bits_front_, bits_next_);
  } else {
    k_.bottom_up(level_);
  }
  ++bottom_up_levels;
  finish_level("bottom-up");
}

void Search::top_down_level() {
  k_.counters_zero();
  k_.top_down(q_in_, uint32_t(n_f_), m_f_, q_out_, level_);
  std::swap(q_in_, q_out_);
  finish_level("top-down");
}

void Search::finish_level(const char* mode) {
  ull c[2];
  k_.counters_read(c);
  profile_.step(mode, level_, n_f_, m_f_);
  ++level_;
  n_f_ = c[0];
  m_f_ = c[1];
  visited_deg_ += m_f_;
}

void Search::single_block_levels() {
  const kernels::SingleState in{level_, uint32_t(n_f_), q_in_ == qb_ ? 1u : 0u, 0, 0, 0};
  kernels::launch_single_block(k_.a, k_.whole, qa_, qb_, in, st_, 0);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(k_.host_st(), st_, sizeof in, cudaMemcpyDeviceToHost, 0));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(0));
  const kernels::SingleState h = *k_.host_st();
  profile_.step("single", level_, n_f_, m_f_);
  n_f_ = h.n;
  m_f_ = h.deg_last;
  visited_deg_ += h.deg_visited;
  level_ = h.level;
  q_in_ = h.in_b ? qb_ : qa_;
  q_out_ = h.in_b ? qa_ : qb_;
}

void check_searchable(const CsrGraph& g, const std::vector<uint64_t>& sources) {
  if (g.wide()) fail_usage("the GPU BFS needs fewer than 2^32 vertices");
  for (uint64_t s : sources)
    if (s >= g.n) fail_usage(option_ref("source", std::to_string(s)) + " is out of range (the graph has " + std::to_string(g.n) + " vertices)");
}

// The levels (and with `parents`, the parents; an unreached vertex's is ~0) of the search
// that just ran, and its summary.
BfsRun collect(const CsrGraph& g, const DeviceGraph& d, bool parents) {
  BfsRun r;
  r.backend = "cuda";
  r.levels.resize(g.n);
  if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(r.levels.data(), d.lev.data(), 4 * g.n, cudaMemcpyDeviceToHost));
  bfs_summarize(g, r);
  if (!parents) {
    r.keep_summary_only();
    return r;
  }
  std::vector<uint32_t> p(g.n);
  if (g.n) GXSORT_CUDA_CHECK(cudaMemcpy(p.data(), d.par.data(), 4 * g.n, cudaMemcpyDeviceToHost));
  r.parents.resize(g.n);
  for (uint64_t v = 0; v < g.n; ++v) r.parents[v] = r.levels[v] == kernels::kUnvisited ? ~uint64_t(0) : p[v];
  return r;
}

}  // namespace

std::vector<BfsRun> bfs_on_device(cuda::DeviceMemory& mem, const CsrGraph& g, const std::vector<uint64_t>& sources,
                                  uint64_t force_partition_edges) {
  return bfs_on_device(mem, g, sources, plan_bfs_device(g.n, g.m, mem.budget(), force_partition_edges));
}

std::vector<BfsRun> bfs_on_device(cuda::DeviceMemory& mem, const CsrGraph& g, const std::vector<uint64_t>& sources,
                                  const BfsDevicePlan& plan, unsigned copy_threads, const Context& context) {
  check_searchable(g, sources);
  GXSORT_CUDA_CHECK(cudaSetDevice(mem.device()));
  if (plan.need_bytes > mem.budget()) fail_usage(bfs_budget_message(plan, mem.budget()));
  const Tuning tune = Tuning::from(context);
  DeviceGraph d(mem, g, plan, copy_threads, tune.copy_partitions);
  kernels::preload();
  int sms = 0;
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, mem.device()));
  Search search(g, d, unsigned(sms) * 16, tune);

  std::vector<BfsRun> runs;
  for (uint64_t source : sources) {
    const uint64_t bytes0 = d.stream ? d.stream->bytes_copied : 0, parts0 = d.stream ? d.stream->partitions_copied : 0;
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const double t0 = now_s();
    search.run(uint32_t(source));
    const double seconds = now_s() - t0;
    search.print_profile(source, seconds);
    BfsRun r = collect(g, d, sources.size() == 1);
    r.seconds = seconds;
    r.bottom_up_levels = search.bottom_up_levels;
    r.neighbors_host_mapped = d.host_mapped();
    if (d.stream) {
      r.streamed_bytes = d.stream->bytes_copied - bytes0;
      r.partitions_streamed = d.stream->partitions_copied - parts0;
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace gxsort::graph
