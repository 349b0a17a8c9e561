// circular-buffer merge (after PMPP 12.7, rewritten; see docs/merge-kernels.md).
//
// Phase 1 co-ranks the start of each block's output section (co_rank_splits_kernel).
// Phase 2: each block walks its section one tile (threads x items outputs) at a time. A and
// B live in two shared-memory rings; a ring holds the unconsumed elements of its input, in
// slots chosen so that the same element always has the same slot, and each element is
// copied from global memory exactly once. Per tile:
//
//   1. wait for the copies that this tile needs, block barrier; advance both rings by what
//      the previous tile consumed;
//   2. start the asynchronous copies (cp.async) that refill the slots earlier tiles
//      consumed, up to `ring` elements ahead: they land while this tile and the next
//      Stages - 1 tiles are merged, so global-memory latency is hidden;
//   3. every thread co-ranks its items within the rings and merges them into registers;
//      the last thread's end point is the tile's A count, published in shared memory;
//   4. each warp passes its results through its own part of a staging buffer (rows padded
//      to an odd stride: no bank conflicts; only a warp barrier) and writes its contiguous
//      part of the tile with coalesced 16-byte stores.
//
// One block barrier per tile. Why the book's bugs cannot happen here:
// - partly filled tiles: what each ring holds is tracked as global watermarks (pos, the
//   first unconsumed element; ready, the end of what has landed), and each tile is merged
//   from exactly [pos, ready), which always covers min(tile, what is left) elements;
//   nothing assumes a ring is full.
// - ceil() by integer division: the loop runs over output positions, k += tile while
//   k < end, and the last tile's size is min(tile, end - k): no tile count is computed.
// - consumed counts from stale shared memory: tile t writes its A count to slot t % 2 and
//   tile t + 1 reads it after its barrier; the slot is written again only by tile t + 2,
//   after the barrier of tile t + 2, which every reader has passed by then.
#include <cuda_pipeline_primitives.h>
#include <algorithm>
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

template <class T>
struct alignas(16) Vec16 {
  T v[vec_elems<T>()];
};

// One input's ring buffer in shared memory. Slot of src[g] = (g + skew) mod kRing, where
// skew is src's misalignment in elements: a 16-byte aligned global address then always
// maps to a 16-byte aligned slot (kRing is a multiple of 4 elements), so 16-byte copies
// can be used whatever the alignment of src, and a vector never wraps around the ring.
template <class T, uint32_t kRing, uint32_t kThreads>
struct Ring {
  T* slots;
  const T* src;
  uint64_t pos;     // first element not consumed yet
  uint64_t loaded;  // copies have been issued for [pos, loaded)
  uint64_t end;     // end of this block's part of src
  uint32_t base;    // slot of src[pos]

  __device__ Ring(T* s, const T* p, uint64_t begin, uint64_t e)
      : slots(s), src(p), pos(begin), loaded(begin), end(e) {
    const uint64_t skew = (reinterpret_cast<uintptr_t>(p) % 16) / sizeof(T);
    base = uint32_t((begin + skew) % kRing);
  }

  // r is relative to pos, r < kRing.
  __device__ uint32_t slot(uint32_t r) const {
    const uint32_t s = base + r;
    if constexpr ((kRing & (kRing - 1)) == 0) return s & (kRing - 1);
    return s >= kRing ? s - kRing : s;
  }
  __device__ const T& operator[](uint32_t r) const { return slots[slot(r)]; }

  // Issues (does not commit) copies of src[loaded, min(end, up_to)). The caller makes sure
  // those slots are free: they hold elements consumed before the last barrier.
  __device__ void issue(uint64_t up_to) {
    constexpr uint32_t V = vec_elems<T>();
    const uint64_t hi = up_to < end ? up_to : end;
    if (loaded >= hi) return;
    const T* p = src + pos;
    const uint32_t rlo = uint32_t(loaded - pos), rhi = uint32_t(hi - pos);
    // Scalars up to the first 16-byte aligned slot, 16-byte vectors, then scalars.
    uint32_t vbegin = rlo + (V - (base + rlo) % V) % V;
    if (vbegin > rhi) vbegin = rhi;
    const uint32_t nvec = (rhi - vbegin) / V;
    const uint32_t vend = vbegin + nvec * V;
    for (uint32_t r = rlo + threadIdx.x; r < vbegin; r += kThreads)
      __pipeline_memcpy_async(&slots[slot(r)], p + r, sizeof(T));
#pragma unroll 4
    for (uint32_t v = threadIdx.x; v < nvec; v += kThreads) {
      const uint32_t r = vbegin + v * V;
      __pipeline_memcpy_async(&slots[slot(r)], p + r, 16);
    }
    for (uint32_t r = vend + threadIdx.x; r < rhi; r += kThreads)
      __pipeline_memcpy_async(&slots[slot(r)], p + r, sizeof(T));
    loaded = hi;
  }

  __device__ void consume(uint32_t count) {
    pos += count;
    base = slot(count);
  }
};

template <class Policy>
constexpr uint32_t stage_stride() {
  // Odd row stride (in elements) of the staging buffer: thread t writes row t, and an odd
  // stride spreads a warp's rows over distinct banks for 4, 8 and 16-byte elements.
  return Policy::items_per_thread % 2 ? Policy::items_per_thread : Policy::items_per_thread + 1;
}

template <class T, class Policy>
constexpr size_t circular_smem_bytes() {
  return (2 * size_t(Policy::ring) + size_t(Policy::threads) * stage_stride<Policy>()) * sizeof(T);
}

// Watermarks of the copy groups in flight, oldest first: when group t has landed,
// [pos, a[0]) of A and [pos, b[0]) of B are in the rings.
template <int kStages>
struct Watermarks {
  uint64_t a[kStages], b[kStages];

  // Commits the copies issued since the last commit as the newest group, in slot s.
  template <class RingT>
  __device__ __forceinline__ void commit(int s, const RingT& ra, const RingT& rb) {
    __pipeline_commit();
    a[s] = ra.loaded;
    b[s] = rb.loaded;
  }
  // Drops the oldest group (landed) and commits the newest.
  template <class RingT>
  __device__ __forceinline__ void shift_commit(const RingT& ra, const RingT& rb) {
    __pipeline_commit();
#pragma unroll
    for (int s = 0; s + 1 < kStages; ++s) {
      a[s] = a[s + 1];
      b[s] = b[s + 1];
    }
    a[kStages - 1] = ra.loaded;
    b[kStages - 1] = rb.loaded;
  }
};

// Step 3: this thread's outputs [k0, k0 + count) of the tile, merged from the rings'
// first m (A) and n (B) elements into items; returns where its range ends in A.
template <class T, uint32_t kItems, class RingT>
__device__ __forceinline__ uint32_t merge_thread_items(const RingT& ra, uint32_t m, const RingT& rb, uint32_t n,
                                                       uint32_t k0, uint32_t count, T (&items)[kItems]) {
  uint32_t i = co_rank_generic<uint32_t>(k0, ra, m, rb, n);
  uint32_t j = k0 - i;
  T va = i < m ? ra[i] : T{};
  T vb = j < n ? rb[j] : T{};
  // Sequential stable merge; instantiated twice so that full tiles (all but the last)
  // run without the per-item count test.
  auto merge_items = [&](auto full) {
#pragma unroll
    for (uint32_t t = 0; t < kItems; ++t) {
      if (decltype(full)::value || t < count) {
        const bool take_a = j >= n || (i < m && !(vb < va));  // ties take A: stable
        items[t] = take_a ? va : vb;
        if (take_a) {
          if (++i < m) va = ra[i];
        } else {
          if (++j < n) vb = rb[j];
        }
      }
    }
  };
  if (count == kItems)
    merge_items(std::true_type{});
  else
    merge_items(std::false_type{});
  return i;
}

// Step 4: warp-staged stores. The warp's outputs [warp_first, warp_end) of the tile are
// contiguous, so it can write them to o (the tile's start in the output) coalesced after
// a warp barrier. The warp's stage rows are reused by the next tile only after the block
// barrier of step 1.
template <class T, class Policy>
__device__ __forceinline__ void store_warp_outputs(T* stage, const T (&items)[Policy::items_per_thread],
                                                   uint32_t count, T* o, uint32_t tile_out, uint32_t lane,
                                                   uint32_t warp_first) {
  constexpr uint32_t kItems = Policy::items_per_thread;
  constexpr uint32_t kStride = stage_stride<Policy>();
  constexpr uint32_t V = vec_elems<T>();
#pragma unroll
  for (uint32_t t = 0; t < kItems; ++t)
    if (t < count) stage[threadIdx.x * kStride + t] = items[t];
  __syncwarp();
  if (warp_first >= tile_out) return;
  auto staged = [&](uint32_t q) -> const T& {
    return stage[(q / kItems) * kStride + q % kItems];
  };
  const uint32_t warp_end = std::min<uint32_t>(warp_first + 32 * kItems, tile_out);
  // Scalars up to the first 16-byte boundary of out, 16-byte vectors, then scalars.
  uint32_t vbegin = warp_first + uint32_t((16 - reinterpret_cast<uintptr_t>(o + warp_first) % 16) %
                                          16 / sizeof(T));
  if (vbegin > warp_end) vbegin = warp_end;
  const uint32_t nvec = (warp_end - vbegin) / V;
  for (uint32_t q = warp_first + lane; q < vbegin; q += 32) o[q] = staged(q);
#pragma unroll 4
  for (uint32_t v = lane; v < nvec; v += 32) {
    const uint32_t q = vbegin + v * V;
    Vec16<T> w;
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) w.v[e] = staged(q + e);
    *reinterpret_cast<Vec16<T>*>(o + q) = w;
  }
  for (uint32_t q = vbegin + nvec * V + lane; q < warp_end; q += 32) o[q] = staged(q);
}

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads)
    merge_circular_kernel(const T* a, uint64_t na, const T* b, uint64_t nb, T* out,
                          uint64_t section, const uint64_t* splits) {
  constexpr uint32_t kThreads = Policy::threads;
  constexpr uint32_t kItems = Policy::items_per_thread;
  constexpr uint32_t kTile = Policy::tile;
  constexpr uint32_t kRing = Policy::ring;
  constexpr int kStages = Policy::stages;
  static_assert(kRing % 4 == 0 && kRing >= (kStages + 1) * kTile, "ring too small");

  static_assert(kThreads % 32 == 0, "whole warps");

  extern __shared__ __align__(16) unsigned char smem[];
  T* const stage = reinterpret_cast<T*>(smem) + 2 * kRing;
  __shared__ uint32_t s_a_used[2];  // A count of the last two tiles (see the top comment)

  const uint64_t total = na + nb;
  const uint64_t k_begin = std::min<uint64_t>(uint64_t(blockIdx.x) * section, total);
  const uint64_t k_end = std::min<uint64_t>(k_begin + section, total);
  const uint64_t a_begin = splits[blockIdx.x], a_end = splits[blockIdx.x + 1];
  Ring<T, kRing, kThreads> ra(reinterpret_cast<T*>(smem), a, a_begin, a_end);
  Ring<T, kRing, kThreads> rb(reinterpret_cast<T*>(smem) + kRing, b, k_begin - a_begin,
                              k_end - a_end);

  Watermarks<kStages> ready;
  // Prologue: group s holds what tile s needs beyond tiles 0..s-1.
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
    ra.issue(ra.pos + uint64_t(s + 1) * kTile);
    rb.issue(rb.pos + uint64_t(s + 1) * kTile);
    ready.commit(s, ra, rb);
  }

  const uint32_t lane = threadIdx.x % 32;
  const uint32_t warp_first = (threadIdx.x - lane) * kItems;  // the warp's first tile output
  uint32_t parity = 0;
  for (uint64_t k = k_begin; k < k_end; k += kTile, parity ^= 1) {
    const uint32_t tile_out = uint32_t(std::min<uint64_t>(kTile, k_end - k));

    // 1. Group t (this tile's) has landed once at most kStages - 1 newer ones are pending.
    // Group t was issued kStages tiles ago up to pos_then + ring >= pos + tile, so it
    // holds min(tile, what is left) elements of each input.
    __pipeline_wait_prior(kStages - 1);
    __syncthreads();
    if (k != k_begin) {
      const uint32_t a_used = s_a_used[parity ^ 1];
      ra.consume(a_used);
      rb.consume(kTile - a_used);  // every tile but the last is full
    }
    const uint32_t m = uint32_t(std::min<uint64_t>(ready.a[0] - ra.pos, tile_out));
    const uint32_t n = uint32_t(std::min<uint64_t>(ready.b[0] - rb.pos, tile_out));

    // 2. Refill. The slots outside [pos, loaded) were consumed before the barrier above.
    ra.issue(ra.pos + kRing);
    rb.issue(rb.pos + kRing);
    ready.shift_commit(ra, rb);

    // 3. This thread's items: outputs [k0, k0 + count) of the tile.
    const uint32_t k0 = std::min<uint32_t>(threadIdx.x * kItems, tile_out);
    const uint32_t count = std::min<uint32_t>(kItems, tile_out - k0);
    T items[kItems];
    const uint32_t i = merge_thread_items<T, kItems>(ra, m, rb, n, k0, count, items);
    if (threadIdx.x == kThreads - 1) s_a_used[parity] = i;  // its range ends at tile_out

    // 4. Warp-staged stores.
    store_warp_outputs<T, Policy>(stage, items, count, out + k, tile_out, lane, warp_first);
  }
  // Every copy issued was for an element of this section, all consumed by now; wait
  // anyway so that no copy into shared memory outlives the block.
  __pipeline_wait_prior(0);
}

// One section per resident block (sections are whole tiles): the rings stream through
// long sections, and the pipeline fills once per block.
template <class T, class Policy>
void circular_grid(uint64_t total, uint64_t* section, uint64_t* blocks) {
  int device = 0, sms = 0, per_sm = 0;
  GXSORT_CUDA_CHECK(cudaGetDevice(&device));
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GXSORT_CUDA_CHECK(cudaFuncSetAttribute(merge_circular_kernel<T, Policy>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(circular_smem_bytes<T, Policy>())));
  GXSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, merge_circular_kernel<T, Policy>, Policy::threads, circular_smem_bytes<T, Policy>()));
  if (per_sm < 1)
    throw Error(ExitCode::device, "merge_circular: policy needs more shared memory than a block gets");
  const uint64_t tiles = (total + Policy::tile - 1) / Policy::tile;
  const uint64_t want = std::min<uint64_t>({uint64_t(sms) * per_sm, tiles, uint64_t(Policy::max_blocks)});
  *section = (tiles + want - 1) / want * Policy::tile;
  *blocks = (total + *section - 1) / *section;
}

}  // namespace

template <class T, class Policy>
void merge_circular(const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                    size_t temp_bytes, cudaStream_t stream) {
  const uint64_t total = uint64_t(na) + nb;
  if (total == 0) return;
  if (temp == nullptr || temp_bytes < merge_circular_temp_bytes<Policy>(na, nb))
    throw Error(ExitCode::usage, "merge_circular: temp storage smaller than merge_temp_bytes()");
  uint64_t section = 0, blocks = 0;
  circular_grid<T, Policy>(total, &section, &blocks);
  auto* splits = static_cast<uint64_t*>(temp);
  const uint64_t count = blocks + 1;
  co_rank_splits_kernel<T>
      <<<unsigned((count + 127) / 128), 128, 0, stream>>>(a, na, b, nb, section, count, splits);
  GXSORT_CUDA_CHECK_LAUNCH("co_rank_splits_kernel");
  merge_circular_kernel<T, Policy><<<unsigned(blocks), Policy::threads,
                                     circular_smem_bytes<T, Policy>(), stream>>>(
      a, na, b, nb, out, section, splits);
  GXSORT_CUDA_CHECK_LAUNCH("merge_circular_kernel");
}

#define GXSORT_INSTANTIATE_CIRCULAR(T, P)                                                        \
  template void merge_circular<T, P>(const T*, size_t, const T*, size_t, T*, void*, size_t, \
                                     cudaStream_t);
#define GXSORT_INSTANTIATE_CIRCULAR_ALL(T)                     \
  GXSORT_INSTANTIATE_CIRCULAR(T, DefaultMergePolicy<T>::circular) \
  GXSORT_INSTANTIATE_CIRCULAR(T, CircularPolicySmall)          \
  GXSORT_INSTANTIATE_CIRCULAR(T, CircularPolicyOdd)
GXSORT_INSTANTIATE_CIRCULAR_ALL(uint32_t)
GXSORT_INSTANTIATE_CIRCULAR_ALL(uint64_t)
GXSORT_INSTANTIATE_CIRCULAR_ALL(KeyIndex)

// The benchmark's tuning sweep (uint64_t only).
#define GXSORT_INSTANTIATE_TUNE(P) GXSORT_INSTANTIATE_CIRCULAR(uint64_t, P)
GXSORT_CIRCULAR_TUNE_LIST(GXSORT_INSTANTIATE_TUNE)

}  // namespace gxsort::cuda
