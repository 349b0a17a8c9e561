// Co-rank of a stable 2-way merge (Programming Massively Parallel Processors, ch. 12;
// the "merge path" of Green, McColl and Bader).
//
// For the stable merge C of sorted A[0..m) and sorted B[0..n), where on equal keys the
// elements of A (the earlier run) come first, co_rank(k) is the number i of elements of A
// among the first k elements of C; the rest, j = k - i, come from B. Every merge kernel
// cuts its output into ranges with it, so each range can be merged independently.
//
// Only operator< of the element type is used, so a type compared by part of its value
// (KeyIndex, compared by key) stays stable.
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define GXSORT_CORANK_HD __host__ __device__
#else
#define GXSORT_CORANK_HD
#endif

namespace gxsort::cuda {

// Generic form: A and B are anything indexable (device pointers, host pointers, views of a
// shared-memory ring buffer) and Index is the size type (uint64_t for whole inputs, uint32_t
// inside a tile, where 32-bit arithmetic is cheaper).
//
// A[t] is among the first k outputs exactly when fewer than k - t elements of B are strictly
// less than it, that is when !(B[k - t - 1] < A[t]). That predicate is true for small t and
// false from some t on, so the co-rank is the first t in the feasible range where it fails,
// found by binary search in O(log(min(m, n, k))) comparisons.
//
// Narrows [lo, hi] to the co-ranks rank k can have: at least k - n of the first k outputs
// come from A, and at most min(k, m).
template <class Index>
GXSORT_CORANK_HD inline void clamp_co_rank_bounds(Index k, Index m, Index n, Index& lo, Index& hi) {
  if (k > n && lo < k - n) lo = k - n;
  if (hi > k) hi = k;
  if (hi > m) hi = m;
}

// co_rank_within searches only [lo, hi], bounds known from the co-ranks of a smaller and a
// larger rank (co-ranks grow with the rank); the answer is the same.
template <class Index, class ItA, class ItB>
GXSORT_CORANK_HD inline Index co_rank_within(Index k, ItA a, Index m, ItB b, Index n, Index lo, Index hi) {
  clamp_co_rank_bounds(k, m, n, lo, hi);
  while (lo < hi) {
    Index mid = lo + (hi - lo) / 2;  // mid < hi <= m, and 0 <= k - mid - 1 < n: both reads in range
    if (b[k - mid - 1] < a[mid]) {
      hi = mid;  // A[mid] comes after B[k - mid - 1]: it is not among the first k
    } else {
      lo = mid + 1;  // A[mid] <= B[k - mid - 1], and ties take A first: it is among them
    }
  }
  return lo;
}

// co_rank_within, first testing whether the co-rank lies in (guess - reach, guess + reach]:
// two probes at once, and if so a search of 2 * reach. A good guess (from the co-ranks of
// two ranks around k) turns ~20 steps of dependent reads into ~12; a bad one costs a step.
template <class Index, class ItA, class ItB>
GXSORT_CORANK_HD inline Index co_rank_guessed(Index k, ItA a, Index m, ItB b, Index n, Index lo, Index hi,
                                              Index guess, Index reach) {
  clamp_co_rank_bounds(k, m, n, lo, hi);
  guess = guess < lo ? lo : guess > hi ? hi : guess;
  const Index t1 = guess > lo + reach ? guess - reach : lo, t2 = guess < hi - reach ? guess + reach : hi;
  // t1 < hi and t2 < hi keep both reads in range, as in co_rank_within's loop.
  const bool after1 = t1 < hi && b[k - t1 - 1] < a[t1], after2 = t2 < hi && b[k - t2 - 1] < a[t2];
  Index lo2 = lo, hi2 = hi;
  if (t1 < hi) {
    if (after1) hi2 = t1;  // a[t1] is not among the first k: the co-rank is at most t1
    else lo2 = t1 + 1;
  }
  if (t2 < hi) {
    if (after2) hi2 = hi2 < t2 ? hi2 : t2;
    else lo2 = lo2 > t2 + 1 ? lo2 : t2 + 1;
  }
  return co_rank_within<Index>(k, a, m, b, n, lo2, hi2);
}

template <class Index, class ItA, class ItB>
GXSORT_CORANK_HD inline Index co_rank_generic(Index k, ItA a, Index m, ItB b, Index n) {
  return co_rank_within<Index>(k, a, m, b, n, Index(0), m);
}

// The co-rank i for output rank k (0 <= k <= m + n); j = k - i.
template <class T>
GXSORT_CORANK_HD inline size_t co_rank(size_t k, const T* a, size_t m, const T* b, size_t n) {
  return co_rank_generic<size_t>(k, a, m, b, n);
}

// Merges the next `count` outputs sequentially, starting from a[i], b[j] (stable: ties
// take a). The caller guarantees that those outputs lie within a[0..m) and b[0..n).
template <class T, class Index, class ItA, class ItB, class OutIt>
GXSORT_CORANK_HD inline void merge_sequential(ItA a, Index i, Index m, ItB b, Index j, Index n,
                                       Index count, OutIt out) {
  for (Index t = 0; t < count; ++t) {
    bool take_a = j >= n || (i < m && !(b[j] < a[i]));
    out[t] = take_a ? a[i++] : b[j++];
  }
}

}  // namespace gxsort::cuda

#ifdef __CUDACC__
#include <stdexcept>
#include "cuda_check.cuh"

namespace gxsort::cuda {

// Partition (the first phase of the tiled and circular merges): splits[s] is the co-rank
// of output rank min(s * section, m + n) for s in [0, count). One thread per split point
// (a block's section for tiled, a tile for circular), each a binary search in global memory.
template <class T>
__global__ void co_rank_splits_kernel(const T* a, uint64_t m, const T* b, uint64_t n,
                                      uint64_t section, uint64_t count, uint64_t* splits) {
  uint64_t s = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  uint64_t k = s * section;
  if (k > m + n) k = m + n;
  splits[s] = co_rank_generic<uint64_t>(k, a, m, b, n);
}

// The co-rank of k found by a whole warp (every lane calls it with the same k): each round
// its 32 lanes test 32 evenly spaced points of [lo, hi), so a search takes about log33 of
// the range in rounds of dependent reads, not log2.
template <class T>
__device__ uint64_t co_rank_warp(uint64_t k, const T* a, uint64_t m, const T* b, uint64_t n) {
  uint64_t lo = 0, hi = m;
  clamp_co_rank_bounds(k, m, n, lo, hi);
  const uint64_t lane = threadIdx.x % 32;
  while (lo < hi) {
    auto probe = [&](uint64_t l) { return lo + (l + 1) * (hi - lo) / 33; };  // in [lo, hi)
    const uint64_t p = probe(lane);
    const uint32_t after = __ballot_sync(~0u, b[k - p - 1] < a[p]);  // a[p] is not among the first k
    if (after == 0) {
      lo = probe(31) + 1;
    } else {  // the co-rank is in (the last point before the first true one, the first true one]
      const uint32_t f = __ffs(after) - 1;
      const uint64_t lo_next = f ? probe(f - 1) + 1 : lo;
      hi = probe(f);
      lo = lo_next;
    }
  }
  return lo;
}

// The partition in two passes (co_rank_splits_two_pass); same result as
// co_rank_splits_kernel. A full binary search per split point reads its deep steps at
// random across both inputs, a few times per split; bounding each search by two coarse
// neighbours keeps it short and within a small part of the inputs. One block per interval
// between coarse split points (0, stride, 2 stride, ..., and the last): its first two
// warps co-rank the two ends, a warp each (the end it shares with the next interval is
// found twice, alike); then its threads co-rank the points inside, between the ends. The
// blocks need nothing from each other, so one launch does both passes, and no block waits
// for the slowest coarse search of the whole grid.
constexpr uint32_t kCoRankIntervalThreads = 128;
constexpr uint64_t kCoRankGuessReach = 1024;

template <class T>
__global__ void __launch_bounds__(kCoRankIntervalThreads)
    co_rank_interval_kernel(const T* a, uint64_t m, const T* b, uint64_t n, uint64_t section, uint64_t count,
                            uint32_t stride, uint64_t* splits, unsigned long long* zero) {
  __shared__ uint64_t ends[2];
  if (zero && blockIdx.x == 0 && threadIdx.x == 0) *zero = 0;
  const uint64_t c0 = uint64_t(blockIdx.x) * stride;
  const uint64_t c1 = c0 + stride < count - 1 ? c0 + stride : count - 1;
  auto rank = [&](uint64_t s) { return s * section < m + n ? s * section : m + n; };
  const uint32_t warp = threadIdx.x / 32;
  if (warp < 2) {
    const uint64_t r = co_rank_warp(rank(warp ? c1 : c0), a, m, b, n);
    if (threadIdx.x % 32 == 0) ends[warp] = r;
  }
  __syncthreads();
  if (threadIdx.x == 0) splits[c0] = ends[0];
  if (threadIdx.x == 0 && c1 == count - 1) splits[c1] = ends[1];
  // Each guess is where the line between the ends puts the point (inputs of similar spread
  // stay within a few hundred elements of it over an interval).
  const uint64_t k0 = rank(c0), span = rank(c1) - k0;
  const double slope = span ? double(ends[1] - ends[0]) / double(span) : 0.0;
  for (uint64_t s = c0 + 1 + threadIdx.x; s < c1; s += kCoRankIntervalThreads) {
    const uint64_t guess = ends[0] + uint64_t(slope * double(rank(s) - k0));
    splits[s] = co_rank_guessed<uint64_t>(rank(s), a, m, b, n, ends[0], ends[1], guess, kCoRankGuessReach);
  }
}

// splits[s] = the co-rank of output rank min(s * section, m + n) for s in [0, count), count >= 2.
// The same launch sets *zero to 0 where zero is not null (the circular merge's tile counter:
// one launch fewer before the merge).
template <class T>
inline void co_rank_splits_two_pass(const T* a, uint64_t m, const T* b, uint64_t n, uint64_t section,
                                    uint64_t count, uint32_t stride, uint64_t* splits, cudaStream_t stream,
                                    unsigned long long* zero = nullptr) {
  if (count < 2 || stride == 0) throw std::logic_error("co_rank_splits_two_pass: count < 2 or stride 0");
  const uint64_t intervals = (count - 1 + stride - 1) / stride;
  co_rank_interval_kernel<T><<<unsigned(intervals), kCoRankIntervalThreads, 0, stream>>>(a, m, b, n, section,
                                                                                        count, stride, splits, zero);
  GXSORT_CUDA_CHECK_LAUNCH("co_rank_interval_kernel");
}

}  // namespace gxsort::cuda
#endif
