// tiled merge (PMPP 12.6). Phase 1: co-rank the start of each block's section of the
// output (co_rank_splits_kernel, into the caller's temp). Phase 2: each block walks its
// section one tile (threads x items outputs) at a time: it loads the next `tile` elements
// of A and of B into shared memory with coalesced loads (the next `tile` outputs can only
// come from those), every thread co-ranks its items within the shared tiles and merges
// them, and the block advances A and B by what the tile consumed.
//
// The consumed count is the co-rank of the tile's output count, computed by every thread
// from the shared tiles before the barrier that precedes the next load, so no thread reads
// a count (or a tile) that another thread is already overwriting. Unconsumed elements are
// loaded again by the next step (about half of what is loaded): the circular kernel fixes
// that.
#include <algorithm>
#include "cuda_check.cuh"
#include "merge/corank.cuh"
#include "merge/merge.cuh"

namespace gxsort::cuda {
namespace {

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads)
    merge_tiled_kernel(const T* a, uint64_t na, const T* b, uint64_t nb, T* out,
                       uint64_t section, const uint64_t* splits) {
  constexpr uint32_t kTile = Policy::tile;
  // Dynamic shared memory: a tile of A then a tile of B (over 48 KB for large policies).
  extern __shared__ __align__(16) unsigned char smem[];
  T* a_s = reinterpret_cast<T*>(smem);
  T* b_s = a_s + kTile;

  const uint64_t total = na + nb;
  const uint64_t k_begin = std::min<uint64_t>(uint64_t(blockIdx.x) * section, total);
  const uint64_t k_end = std::min<uint64_t>(k_begin + section, total);
  uint64_t a_pos = splits[blockIdx.x];
  uint64_t b_pos = k_begin - a_pos;
  const uint64_t a_end = splits[blockIdx.x + 1];
  const uint64_t b_end = k_end - a_end;

  for (uint64_t k = k_begin; k < k_end; k += kTile) {
    const uint32_t tile_out = uint32_t(std::min<uint64_t>(kTile, k_end - k));
    // At most tile_out of each input can appear in the next tile_out outputs.
    const uint32_t a_cnt = uint32_t(std::min<uint64_t>(tile_out, a_end - a_pos));
    const uint32_t b_cnt = uint32_t(std::min<uint64_t>(tile_out, b_end - b_pos));

    __syncthreads();  // every thread is done with the previous tiles
    for (uint32_t t = threadIdx.x; t < a_cnt; t += Policy::threads) a_s[t] = a[a_pos + t];
    for (uint32_t t = threadIdx.x; t < b_cnt; t += Policy::threads) b_s[t] = b[b_pos + t];
    __syncthreads();

    const uint32_t k0 = std::min<uint32_t>(threadIdx.x * Policy::items_per_thread, tile_out);
    const uint32_t k1 = std::min<uint32_t>(k0 + Policy::items_per_thread, tile_out);
    const uint32_t i0 = co_rank_generic<uint32_t>(k0, a_s, a_cnt, b_s, b_cnt);
    const uint32_t i1 = co_rank_generic<uint32_t>(k1, a_s, a_cnt, b_s, b_cnt);
    merge_sequential<T, uint32_t>(a_s, i0, i1, b_s, k0 - i0, k1 - i1, k1 - k0, out + k + k0);

    const uint32_t a_used = co_rank_generic<uint32_t>(tile_out, a_s, a_cnt, b_s, b_cnt);
    a_pos += a_used;
    b_pos += tile_out - a_used;
  }
}

// Sections are whole tiles and there is one per resident block, so each block streams
// through its section without a tail wave.
template <class T, class Policy>
constexpr size_t tiled_smem_bytes() {
  return 2 * size_t(Policy::tile) * sizeof(T);
}

template <class T, class Policy>
void tiled_grid(uint64_t total, uint64_t* section, uint64_t* blocks) {
  int device = 0, sms = 0, per_sm = 0;
  GXSORT_CUDA_CHECK(cudaGetDevice(&device));
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GXSORT_CUDA_CHECK(cudaFuncSetAttribute(merge_tiled_kernel<T, Policy>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(tiled_smem_bytes<T, Policy>())));
  GXSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, merge_tiled_kernel<T, Policy>, Policy::threads, tiled_smem_bytes<T, Policy>()));
  const uint64_t tiles = (total + Policy::tile - 1) / Policy::tile;
  uint64_t want = std::max<uint64_t>(1, uint64_t(sms) * std::max(per_sm, 1));
  want = std::min<uint64_t>({want, tiles, uint64_t(Policy::max_blocks)});
  *section = (tiles + want - 1) / want * Policy::tile;
  *blocks = (total + *section - 1) / *section;
}

}  // namespace

template <class T, class Policy>
void merge_tiled(const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                 size_t temp_bytes, cudaStream_t stream) {
  const uint64_t total = uint64_t(na) + nb;
  if (total == 0) return;
  if (temp == nullptr || temp_bytes < merge_tiled_temp_bytes<Policy>(na, nb))
    throw Error(ExitCode::usage, "merge_tiled: temp storage smaller than merge_temp_bytes()");
  uint64_t section = 0, blocks = 0;
  tiled_grid<T, Policy>(total, &section, &blocks);
  auto* splits = static_cast<uint64_t*>(temp);
  const uint64_t count = blocks + 1;
  co_rank_splits_kernel<T><<<unsigned((count + 127) / 128), 128, 0, stream>>>(a, na, b, nb, section,
                                                                               count, splits);
  GXSORT_CUDA_CHECK_LAUNCH("co_rank_splits_kernel");
  merge_tiled_kernel<T, Policy><<<unsigned(blocks), Policy::threads, tiled_smem_bytes<T, Policy>(), stream>>>(a, na, b, nb, out,
                                                                                  section, splits);
  GXSORT_CUDA_CHECK_LAUNCH("merge_tiled_kernel");
}

#define GXSORT_INSTANTIATE_TILED(T, P)                                                        \
  template void merge_tiled<T, P>(const T*, size_t, const T*, size_t, T*, void*, size_t, \
                                  cudaStream_t);
#define GXSORT_INSTANTIATE_TILED_ALL(T)                  \
  GXSORT_INSTANTIATE_TILED(T, DefaultMergePolicy<T>::tiled) \
  GXSORT_INSTANTIATE_TILED(T, TiledPolicySmall)          \
  GXSORT_INSTANTIATE_TILED(T, TiledPolicyLarge)
GXSORT_INSTANTIATE_TILED_ALL(uint32_t)
GXSORT_INSTANTIATE_TILED_ALL(uint64_t)
GXSORT_INSTANTIATE_TILED_ALL(KeyIndex)

}  // namespace gxsort::cuda
