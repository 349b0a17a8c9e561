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
template <class Index, class ItA, class ItB>
GXSORT_CORANK_HD inline Index co_rank_generic(Index k, ItA a, Index m, ItB b, Index n) {
  Index lo = k > n ? k - n : Index(0);  // at least k - n elements must come from A
  Index hi = k < m ? k : m;             // at most min(k, m) can
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

}  // namespace gxsort::cuda
#endif
