// circular-buffer merge (after PMPP 12.7, rewritten; see docs/merge-kernels.md).
//
// Phase 1 co-ranks the start of every tile (threads x items outputs) of the output
// (co_rank_splits_two_pass), so the elements of A and of B that each tile takes are known
// before anything is loaded. Phase 2: each resident block merges tiles one after another,
// as they are handed out (TileOrder). Shared memory is a ring of Stages + 1 tile slots; a
// slot holds exactly one tile's inputs, its part of A followed by its part of B, so each
// element is copied from global memory once and nothing is loaded that the tile does not
// use. Per tile (p: the tile's position in the block's order):
//
//   1. wait for the copies of this tile, block barrier (every thread is then done with the
//      slot the previous tile used);
//   2. start the asynchronous copies of the tile at position p + Stages into that slot
//      (SlotLoads: bulk copies by the TMA unit on sm_90 and later, cp.async before): they
//      land while this tile and the next Stages - 1 are merged, so global-memory latency
//      is hidden;
//   3. every thread co-ranks its items within the slot's A and B parts and merges them
//      into registers;
//   4. after a second block barrier, each warp passes its results through its own rows of
//      the tile's slot (rows padded so that neither their writes nor their reads conflict
//      in banks; only a warp barrier) and writes its contiguous part of the tile with
//      coalesced 16-byte stores.
//
// Two block barriers per tile; shared memory is the slots (and the 24 bytes of a hand-off),
// so more blocks fit.
// Why the book's circular-buffer bugs cannot happen here:
// - partly filled buffers: a tile's inputs are given by the co-ranks of its two ends, not
//   by what a ring happens to hold; the last tile is min(tile, what is left) outputs.
// - ceil() by integer division: the tile count is (total + tile - 1) / tile in integers,
//   and the last tile's size is min(tile, total - k).
// - consumed counts read from shared memory another thread may be rewriting: the A count
//   of each tile comes from the splits in global memory, read-only during the merge; the
//   copy thread 0 hands through shared memory is written and read between block barriers.
#include <cuda_pipeline_primitives.h>
// Bulk copies need sm_90 and CCCL's cuda::ptx wrappers (CUDA 12.4 and later); elsewhere the
// slots are filled by cp.async alone.
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#include <cuda/ptx>
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GXSORT_BULK_COPIES 1
#endif
#endif
#ifndef GXSORT_BULK_COPIES
#define GXSORT_BULK_COPIES 0
#endif
#include <algorithm>
#include <atomic>
#include <type_traits>
#include "cuda_check.cuh"
#include "merge/corank.cuh"
#include "merge/merge.cuh"

namespace gxsort::cuda {
namespace {

// Elements per 16-byte vector: 4 x u32, 2 x u64, 1 x KeyIndex.
template <class T>
constexpr uint32_t vec_elems() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "4, 8 or 16-byte elements");
  return 16 / sizeof(T);
}

// Element misalignment of p from 16 bytes (0 for 16-byte elements).
template <class T>
__device__ __forceinline__ uint32_t misalignment(const T* p) {
  return uint32_t(reinterpret_cast<uintptr_t>(p) % 16) / sizeof(T);
}

// How p[0, n) splits at 16-byte boundaries: `head` elements up to the first one (at most
// n), then `vecs` whole 16-byte vectors, then the rest (from `tail()`).
template <class T>
struct VectorSplit {
  uint32_t head, vecs;
  __device__ VectorSplit(const T* p, uint32_t n)
      : head(std::min(n, (vec_elems<T>() - misalignment(p)) % vec_elems<T>())),
        vecs((n - head) / vec_elems<T>()) {}
  __device__ uint32_t tail() const { return head + vecs * vec_elems<T>(); }
};

// Issues (does not commit) cp.async copies of src[0, split.head) and src[split.tail(), n)
// to dst, element by element: the parts of a copy outside its 16-byte vectors.
template <class T, uint32_t kThreads>
__device__ __forceinline__ void copy_edges_async(T* dst, const T* src, uint32_t n, const VectorSplit<T>& split) {
  for (uint32_t r = threadIdx.x; r < split.head; r += kThreads) __pipeline_memcpy_async(dst + r, src + r, sizeof(T));
  for (uint32_t r = split.tail() + threadIdx.x; r < n; r += kThreads)
    __pipeline_memcpy_async(dst + r, src + r, sizeof(T));
}

// Issues (does not commit) asynchronous copies of src[0, n) to dst[0, n), where dst and src
// are equally misaligned from 16 bytes: 16-byte vectors, and the elements around them.
template <class T, uint32_t kThreads>
__device__ __forceinline__ void copy_async(T* dst, const T* src, uint32_t n) {
  constexpr uint32_t V = vec_elems<T>();
  const VectorSplit<T> split(src, n);
  copy_edges_async<T, kThreads>(dst, src, n, split);
#pragma unroll 4
  for (uint32_t v = threadIdx.x; v < split.vecs; v += kThreads)
    __pipeline_memcpy_async(dst + split.head + v * V, src + split.head + v * V, 16);
}

// Where one tile's inputs are, in global memory and in its slot: a[a0, a0 + la) at slot
// offset off_a, b[b0, b0 + lb) at off_b. The offsets keep each part as misaligned from 16
// bytes as its source, so the copies can use 16-byte vectors whatever a's and b's alignment.
template <class T>
struct TileSpan {
  const T* a;
  const T* b;
  uint32_t la, lb, off_a, off_b;

  // Tile t, whose first output is k = t * tile, takes a[s0, s1) and b[k - s0, k_end - s1).
  __device__ TileSpan(const T* a_all, const T* b_all, uint64_t k, uint32_t out, uint64_t s0, uint64_t s1) {
    constexpr uint32_t V = vec_elems<T>();
    a = a_all + s0;
    b = b_all + (k - s0);
    la = uint32_t(s1 - s0);
    lb = out - la;
    off_a = misalignment(a);
    off_b = off_a + la;
    off_b += (misalignment(b) + V - off_b % V) % V;
  }
};

// Staging rows of whole 16-byte vectors (items a multiple of the vector's elements, 4 or 8-
// byte T): they are written and read 16 bytes at a time. 16-byte elements are vectors anyway.
template <class T, class Policy>
constexpr bool vector_rows() {
  return vec_elems<T>() > 1 && Policy::items_per_thread % vec_elems<T>() == 0;
}

// Row stride (in elements) of the staging rows: thread t writes row t. Vector rows: an odd
// number of vectors, so that the 8 lanes that one 16-byte access serves at a time hit
// distinct banks, writing rows or reading along them. Otherwise an odd stride, which
// spreads a warp's rows over distinct banks for 4, 8 and 16-byte elements.
template <class T, class Policy>
constexpr uint32_t stage_stride() {
  constexpr uint32_t V = vec_elems<T>(), kItems = Policy::items_per_thread;
  if constexpr (vector_rows<T, Policy>()) return (kItems / V) % 2 ? kItems : kItems + V;
  return kItems % 2 ? kItems : kItems + 1;
}

// Slot size in elements: a tile plus the two parts' alignment padding (which also holds the
// element past the B part that step 3 reads but never takes), or the staging rows
// of step 4 (which reuse the slot of the tile just merged) if they are larger; a whole
// number of 16-byte vectors so that every slot starts 16-byte aligned.
template <class T, class Policy>
constexpr uint32_t slot_elems() {
  constexpr uint32_t V = vec_elems<T>();
  constexpr uint32_t inputs = uint32_t(Policy::tile) + 2 * V;
  constexpr uint32_t rows = uint32_t(Policy::threads) * stage_stride<T, Policy>();
  return ((inputs > rows ? inputs : rows) + V - 1) / V * V;
}

// A tile and the co-ranks of its first output and of the next tile's: the elements of A
// and B it takes. t >= the tile count: no tile.
struct TileRef {
  uint64_t t, s0, s1;
};

// The slots, then one mbarrier a slot (used by the bulk copies; 16 or 32 bytes for nothing
// where there are none), then the TileRef that thread 0 hands to the block (TileOrder).
template <class T, class Policy>
constexpr size_t circular_smem_bytes() {
  return size_t(Policy::stages + 1) * (slot_elems<T, Policy>() * sizeof(T) + sizeof(uint64_t)) + sizeof(TileRef);
}

#if GXSORT_BULK_COPIES
// Bulk copies of a tile's two parts: the 16-byte aligned middle of each by the TMA unit
// (issued by thread 0, counted in bytes by the slot's mbarrier), the head and tail (under 16
// bytes each) by cp.async. One instruction moves a whole part, where cp.async takes one per
// 16 bytes through the load/store unit that the merge's shared-memory accesses need.
template <class T, uint32_t kThreads>
__device__ __forceinline__ void copy_bulk(T* dst_a, const T* a, uint32_t la, T* dst_b, const T* b, uint32_t lb,
                                          uint64_t* bar) {
  namespace ptx = ::cuda::ptx;
  const VectorSplit<T> sa(a, la), sb(b, lb);
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, (sa.vecs + sb.vecs) * 16);
    if (sa.vecs)
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst_a + sa.head, a + sa.head, sa.vecs * 16, bar);
    if (sb.vecs)
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst_b + sb.head, b + sb.head, sb.vecs * 16, bar);
  }
  copy_edges_async<T, kThreads>(dst_a, a, la, sa);
  copy_edges_async<T, kThreads>(dst_b, b, lb, sb);
}
#endif

// The asynchronous loads of tiles into the slots (steps 1 and 2).
template <class T, class Policy>
struct SlotLoads {
  static constexpr uint32_t kSlots = Policy::stages + 1;
  static constexpr uint32_t kSlot = slot_elems<T, Policy>();
  static_assert(kSlot * sizeof(T) < (1u << 20), "an mbarrier counts under 1 MiB of copies a phase");
  T* const slots;
  uint64_t* const bars;  // one a slot: its bulk copies' completion
  uint32_t phases = 0;   // bit s: the parity of slot s's next completion

  __device__ explicit SlotLoads(unsigned char* smem)
      : slots(reinterpret_cast<T*>(smem)),
        bars(reinterpret_cast<uint64_t*>(smem + size_t(kSlots) * kSlot * sizeof(T))) {
#if GXSORT_BULK_COPIES
    if (threadIdx.x == 0) {
      for (uint32_t s = 0; s < kSlots; ++s) ::cuda::ptx::mbarrier_init(bars + s, 1);
      ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
    }
    __syncthreads();
#endif
  }

  __device__ T* slot(uint32_t s) const { return slots + s * kSlot; }
  __device__ TileRef* handoff() const { return reinterpret_cast<TileRef*>(bars + kSlots); }

  // Starts the copies of a tile's inputs into slot s; they are one cp.async group.
  __device__ void issue(uint32_t s, const TileSpan<T>& sp) {
    T* const dst = slot(s);
#if GXSORT_BULK_COPIES
    copy_bulk<T, Policy::threads>(dst + sp.off_a, sp.a, sp.la, dst + sp.off_b, sp.b, sp.lb, bars + s);
#else
    copy_async<T, Policy::threads>(dst + sp.off_a, sp.a, sp.la);
    copy_async<T, Policy::threads>(dst + sp.off_b, sp.b, sp.lb);
#endif
  }

  // Waits until the copies into slot s (issued Stages groups ago) have landed; a block
  // barrier must follow before other threads' copies are read.
  __device__ void wait(uint32_t s) {
    __pipeline_wait_prior(Policy::stages - 1);
#if GXSORT_BULK_COPIES
    while (!::cuda::ptx::mbarrier_try_wait_parity(bars + s, (phases >> s) & 1)) {
    }
    phases ^= 1u << s;
#endif
  }

  // After this thread's last writes to a slot (the staging rows), before a bulk copy (the
  // async proxy) may refill it: orders them before the copy's writes.
  __device__ static void writes_done() {
#if GXSORT_BULK_COPIES
    ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
#endif
  }
};

// Step 3: this thread's outputs [k0, k0 + count) of the tile, merged from the tile's
// ra[0, m) (its part of A) and rb[0, n) (of B) in shared memory into items.
template <class T, uint32_t kItems>
__device__ __forceinline__ void merge_thread_items(const T* ra, uint32_t m, const T* rb, uint32_t n, uint32_t k0,
                                                   uint32_t count, T (&items)[kItems]) {
  uint32_t i = co_rank_generic<uint32_t>(k0, ra, m, rb, n);
  uint32_t j = k0 - i;
  // ra[m] and rb[n], one past each part, are read but never taken: they lie inside the
  // slot (slot_elems leaves room), so the loads need no bounds test.
  T va = ra[i];
  T vb = rb[j];
  // Sequential stable merge; instantiated twice so that full tiles (all but the last)
  // run without the per-item count test.
  auto merge_items = [&](auto full) {
#pragma unroll
    for (uint32_t t = 0; t < kItems; ++t) {
      if (decltype(full)::value || t < count) {
        const bool take_a = j >= n || (i < m && !(vb < va));  // ties take A: stable
        items[t] = take_a ? va : vb;
        if (take_a)
          va = ra[++i];
        else
          vb = rb[++j];
      }
    }
  };
  if (count == kItems)
    merge_items(std::true_type{});
  else
    merge_items(std::false_type{});
}

// Writes elements q, q + 1, ... of a 16-byte vector (from staged(q + e)) to the 16-byte
// aligned o with one 16-byte store instruction. In PTX, because nvcc split a ulonglong2 or
// uint4 assignment into 8 or 4-byte stores, which touch each 32-byte sector twice.
template <class T, class Staged>
__device__ __forceinline__ void store16(T* o, const Staged& staged, uint32_t q) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(o), "l"(staged(q)), "l"(staged(q + 1)) : "memory");
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(o), "r"(staged(q)), "r"(staged(q + 1)),
                 "r"(staged(q + 2)), "r"(staged(q + 3))
                 : "memory");
  } else {
    static_assert(sizeof(T) == 16, "uint32_t, uint64_t or a 16-byte element");
    *reinterpret_cast<uint4*>(o) = *reinterpret_cast<const uint4*>(&staged(q));
  }
}

// 16-byte shared-memory accesses of a vector row: a store of vals[0, 16 / sizeof(T)) to
// the 16-byte aligned p, and a copy from the aligned shared s to the aligned global o (in
// PTX for the same reason as store16).
template <class T>
__device__ __forceinline__ void store_shared16(T* p, const T* vals) {
  uint4 v;
  memcpy(&v, vals, 16);
  const uint32_t addr = uint32_t(__cvta_generic_to_shared(p));
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

template <class T>
__device__ __forceinline__ void copy16_shared_to_global(T* o, const T* s) {
  uint4 v;
  const uint32_t addr = uint32_t(__cvta_generic_to_shared(s));
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(o), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// Step 4: warp-staged stores. The warp's outputs [warp_first, warp_end) of the tile are
// contiguous, so it can write them to o (the tile's start in the output) coalesced after
// a warp barrier. The stage rows are the slot of the tile just merged: the block barrier
// before this step means no thread reads its inputs any more, and the slot is loaded
// again only after the block barrier of step 1.
template <class T, class Policy>
__device__ __forceinline__ void store_warp_outputs(T* stage, const T (&items)[Policy::items_per_thread],
                                                   uint32_t count, T* o, uint32_t tile_out, uint32_t lane,
                                                   uint32_t warp_first) {
  constexpr uint32_t kItems = Policy::items_per_thread;
  constexpr uint32_t kStride = stage_stride<T, Policy>();
  constexpr uint32_t V = vec_elems<T>();
  constexpr uint32_t kStep = vector_rows<T, Policy>() ? V : 1;
#pragma unroll
  for (uint32_t t = 0; t < kItems; t += kStep) {
    if (t >= count) continue;
    if constexpr (kStep > 1)
      store_shared16(stage + threadIdx.x * kStride + t, items + t);
    else
      stage[threadIdx.x * kStride + t] = items[t];
  }
  __syncwarp();
  if (warp_first >= tile_out) return;
  auto staged = [&](uint32_t q) -> const T& {
    return stage[(q / kItems) * kStride + q % kItems];
  };
  const uint32_t warp_end = std::min<uint32_t>(warp_first + 32 * kItems, tile_out);
  // Scalars up to the first 16-byte boundary of out, 16-byte vectors, then scalars.
  const VectorSplit<T> split(o + warp_first, warp_end - warp_first);
  const uint32_t vbegin = warp_first + split.head, nvec = split.vecs;
  for (uint32_t q = warp_first + lane; q < vbegin; q += 32) o[q] = staged(q);
  if (vector_rows<T, Policy>() && vbegin % V == 0) {  // out aligned: whole vectors of a row
#pragma unroll 4
    for (uint32_t v = lane; v < nvec; v += 32) copy16_shared_to_global(o + vbegin + v * V, &staged(vbegin + v * V));
  } else {
#pragma unroll 4
    for (uint32_t v = lane; v < nvec; v += 32) store16(o + vbegin + v * V, staged, vbegin + v * V);
  }
  for (uint32_t q = vbegin + nvec * V + lane; q < warp_end; q += 32) o[q] = staged(q);
}

// The order in which a block merges tiles: its first kFixed are fixed (block b of G takes b,
// b + G, b + 2G, ...); after them one tile at a time comes from a counter in global memory
// (tile kFixed * G + the counter's old value). So the blocks whose SMs get more of the
// memory bandwidth merge more tiles, and all end within about a tile of each other (fixed
// runs of tiles left the SMs idle for 4% of the time at the end, docs/merge-kernels.md).
// A block gets its tiles in increasing order, so after its first t >= tiles it has none.
// Thread 0 fetches ahead: the counter two tiles before the tile's co-ranks are handed to
// the block, the co-ranks one tile before, so neither latency stalls the merge.
template <uint32_t kFixed>
struct TileOrder {
  const uint64_t* splits;
  uint64_t tiles;
  unsigned long long* counter;
  TileRef fetched{};     // thread 0: the next TileRef to hand out (its co-ranks' loads in flight)
  uint64_t pending = 0;  // thread 0: the tile after it (its counter increment in flight)

  __device__ uint64_t fixed(uint32_t q) const { return blockIdx.x + uint64_t(q) * gridDim.x; }
  __device__ TileRef ref(uint64_t t) const {
    return t < tiles ? TileRef{t, splits[t], splits[t + 1]} : TileRef{tiles, 0, 0};
  }
  // Thread 0, before the first hand_out: the last two fixed positions.
  __device__ void start() {
    fetched = ref(fixed(kFixed - 2));
    pending = fixed(kFixed - 1);
  }
  // Thread 0, once a tile: hands out the fetched TileRef and starts fetching the next two.
  __device__ void hand_out(TileRef* to) {
    *to = fetched;
    fetched = ref(pending);
    if (pending < tiles) pending = uint64_t(kFixed) * gridDim.x + atomicAdd(counter, 1ull);
  }
};

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads)
    merge_circular_kernel(const T* a, const T* b, uint64_t total, T* out, uint64_t tiles, const uint64_t* splits,
                          unsigned long long* counter) {
  constexpr uint32_t kThreads = Policy::threads;
  constexpr uint32_t kItems = Policy::items_per_thread;
  constexpr uint32_t kTile = Policy::tile;
  constexpr uint32_t kStages = Policy::stages;
  constexpr uint32_t kSlots = kStages + 1;
  static_assert(kThreads % 32 == 0, "whole warps");

  extern __shared__ __align__(16) unsigned char smem[];
  SlotLoads<T, Policy> loads(smem);
  auto span = [&](const TileRef& r) {
    const uint64_t k = r.t * kTile;
    return TileSpan<T>(a, b, k, uint32_t(std::min<uint64_t>(kTile, total - k)), r.s0, r.s1);
  };

  // ring[i]: the tile at position p + i of the block's order, for the tile being merged (p)
  // and the kStages being loaded; thread 0's fetches are positions p + kStages + 1 and + 2.
  TileOrder<kStages + 3> order{splits, tiles, counter};
  TileRef ring[kStages + 1];
#pragma unroll
  for (uint32_t i = 0; i <= kStages; ++i) ring[i] = order.ref(order.fixed(i));
  if (threadIdx.x == 0) order.start();
  // Prologue: group s holds the copies of position s.
#pragma unroll
  for (uint32_t s = 0; s < kStages; ++s) {
    if (ring[s].t < tiles) loads.issue(s, span(ring[s]));
    __pipeline_commit();
  }

  const uint32_t lane = threadIdx.x % 32;
  const uint32_t warp_first = (threadIdx.x - lane) * kItems;  // the warp's first tile output
  uint32_t slot = 0;
  while (ring[0].t < tiles) {
    // 1. This tile's copies have landed (at most kStages - 1 newer groups are pending).
    loads.wait(slot);
    __syncthreads();
    // Position p + kStages + 1, read by every thread after the barrier of step 4 (and
    // written again only after the next step 1's).
    if (threadIdx.x == 0) order.hand_out(loads.handoff());
    // 2. Position p + kStages goes into the slot position p - 1 used.
    const uint32_t load_slot = slot + kStages < kSlots ? slot + kStages : slot + kStages - kSlots;
    if (ring[kStages].t < tiles) loads.issue(load_slot, span(ring[kStages]));
    __pipeline_commit();

    // 3. This thread's items: outputs [k0, k0 + count) of the tile.
    const TileSpan<T> cur = span(ring[0]);
    const uint32_t tile_out = cur.la + cur.lb;
    const T* const tile_in = loads.slot(slot);
    const uint32_t k0 = std::min<uint32_t>(threadIdx.x * kItems, tile_out);
    const uint32_t count = std::min<uint32_t>(kItems, tile_out - k0);
    T items[kItems];
    merge_thread_items<T, kItems>(tile_in + cur.off_a, cur.la, tile_in + cur.off_b, cur.lb, k0, count, items);

    // 4. Warp-staged stores, through this tile's slot once every thread has merged.
    __syncthreads();
    store_warp_outputs<T, Policy>(loads.slot(slot), items, count, out + ring[0].t * kTile, tile_out, lane,
                                  warp_first);
    loads.writes_done();

#pragma unroll
    for (uint32_t i = 0; i < kStages; ++i) ring[i] = ring[i + 1];
    ring[kStages] = *loads.handoff();
    slot = slot + 1 < kSlots ? slot + 1 : 0;
  }
  // Every copy issued was for a tile merged by now; wait anyway so that no copy into
  // shared memory outlives the block.
  __pipeline_wait_prior(0);
}

// How many blocks of this kernel one SM of the current device holds (0: none, the policy
// needs more shared memory than a block may have there), and the device's SM count. Found
// once per device: the queries cost microseconds a call, which small merges would feel.
// (The kernel's shared-memory attribute set here lasts as long as the device's context:
// gxsort never resets a device.)
template <class T, class Policy>
int circular_blocks_per_sm(int* sms) {
  constexpr int kCachedDevices = 64;
  // process-wide: facts of the process's devices (their SMs, and blocks per SM + 1; 0: not
  // yet), the same for every caller; racing first calls store the same values.
  static std::atomic<int> cached[kCachedDevices][2];
  int device = 0;
  GXSORT_CUDA_CHECK(cudaGetDevice(&device));
  if (device < kCachedDevices && cached[device][1].load() != 0) {
    *sms = cached[device][0].load();
    return cached[device][1].load() - 1;
  }
  int optin = 0, per_sm = 0;
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device));
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  constexpr size_t smem = circular_smem_bytes<T, Policy>();
  if (smem <= size_t(optin)) {
    GXSORT_CUDA_CHECK(cudaFuncSetAttribute(merge_circular_kernel<T, Policy>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    GXSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, merge_circular_kernel<T, Policy>,
                                                                    Policy::threads, smem));
  }
  if (device < kCachedDevices) {
    cached[device][0].store(*sms);
    cached[device][1].store(per_sm + 1);
  }
  return per_sm;
}

// As many blocks as the SMs hold at once (at most max_blocks, when not 0) and no more than
// tiles: each merges tiles until none are left, so the pipeline fills once per block.
template <class T, class Policy>
uint64_t circular_grid(uint64_t tiles, uint64_t max_blocks) {
  int sms = 0;
  const int per_sm = circular_blocks_per_sm<T, Policy>(&sms);
  if (per_sm < 1)
    throw Error(ExitCode::device, "merge_circular: policy needs more shared memory than a block gets");
  const uint64_t blocks = std::min<uint64_t>(uint64_t(sms) * per_sm, tiles);
  return max_blocks ? std::min(blocks, max_blocks) : blocks;
}

}  // namespace

template <class T, class Policy>
bool merge_circular_fits() {
  int sms = 0;
  return circular_blocks_per_sm<T, Policy>(&sms) > 0;
}

template <class T, class Policy>
void merge_circular(const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                    size_t temp_bytes, cudaStream_t stream, uint64_t max_blocks) {
  const uint64_t total = uint64_t(na) + nb;
  if (total == 0) return;
  if (temp == nullptr || temp_bytes < merge_circular_temp_bytes<Policy>(na, nb))
    throw Error(ExitCode::usage, "merge_circular: temp storage smaller than merge_temp_bytes()");
  const uint64_t tiles = (total + Policy::tile - 1) / Policy::tile;
  const uint64_t blocks = circular_grid<T, Policy>(tiles, max_blocks);
  // temp: the tiles + 1 split points, then the tile counter (merge_circular_temp_bytes).
  auto* splits = static_cast<uint64_t*>(temp);
  auto* counter = reinterpret_cast<unsigned long long*>(splits + tiles + 1);
  co_rank_splits_two_pass<T>(a, na, b, nb, Policy::tile, tiles + 1, kCoarseSplitStride, splits, stream, counter);
  merge_circular_kernel<T, Policy><<<unsigned(blocks), Policy::threads, circular_smem_bytes<T, Policy>(), stream>>>(
      a, b, total, out, tiles, splits, counter);
  GXSORT_CUDA_CHECK_LAUNCH("merge_circular_kernel");
}

#define GXSORT_INSTANTIATE_CIRCULAR(T, P)                                                        \
  template bool merge_circular_fits<T, P>();                                                     \
  template void merge_circular<T, P>(const T*, size_t, const T*, size_t, T*, void*, size_t, \
                                     cudaStream_t, uint64_t);
#define GXSORT_INSTANTIATE_CIRCULAR_ALL(T)                              \
  GXSORT_INSTANTIATE_CIRCULAR(T, DefaultMergePolicy<T>::circular)          \
  GXSORT_INSTANTIATE_CIRCULAR(T, DefaultMergePolicy<T>::circular_fallback) \
  GXSORT_INSTANTIATE_CIRCULAR(T, CircularPolicySmall)          \
  GXSORT_INSTANTIATE_CIRCULAR(T, CircularPolicyOdd)
GXSORT_INSTANTIATE_CIRCULAR_ALL(uint32_t)
GXSORT_INSTANTIATE_CIRCULAR_ALL(uint64_t)
GXSORT_INSTANTIATE_CIRCULAR_ALL(KeyIndex)

// The benchmark's tuning sweeps.
#define GXSORT_INSTANTIATE_TUNE(P) GXSORT_INSTANTIATE_CIRCULAR(uint64_t, P)
GXSORT_CIRCULAR_TUNE_LIST(GXSORT_INSTANTIATE_TUNE)
#define GXSORT_INSTANTIATE_TUNE_PAIRS(P) GXSORT_INSTANTIATE_CIRCULAR(KeyIndex, P)
GXSORT_CIRCULAR_TUNE_LIST_PAIRS(GXSORT_INSTANTIATE_TUNE_PAIRS)
#define GXSORT_INSTANTIATE_TUNE_U32(P) GXSORT_INSTANTIATE_CIRCULAR(uint32_t, P)
GXSORT_CIRCULAR_TUNE_LIST_U32(GXSORT_INSTANTIATE_TUNE_U32)

}  // namespace gxsort::cuda
