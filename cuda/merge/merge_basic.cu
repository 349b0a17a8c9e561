// basic merge (PMPP 12.5): every thread owns ItemsPerThread consecutive outputs, finds
// where they start and end in A and B with two co-rank searches in global memory, and
// merges them sequentially from global memory. Simple and correct, but the searches are
// scattered and neighbouring threads read and write far-apart addresses: the baseline the
// tiled and circular kernels improve on.
#include <algorithm>
#include "cuda_check.cuh"
#include "merge/corank.cuh"
#include "merge/merge.cuh"

namespace gxsort::cuda {
namespace {

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads)
    merge_basic_kernel(const T* a, uint64_t na, const T* b, uint64_t nb, T* out) {
  const uint64_t total = na + nb;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x * Policy::items_per_thread;
  // Grid-stride loop over ranges, so any total fits whatever grid the launcher chose.
  for (uint64_t k0 = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * Policy::items_per_thread;
       k0 < total; k0 += stride) {
    uint64_t k1 = std::min<uint64_t>(k0 + Policy::items_per_thread, total);
    uint64_t i0 = co_rank_generic<uint64_t>(k0, a, na, b, nb);
    uint64_t i1 = co_rank_generic<uint64_t>(k1, a, na, b, nb);
    merge_sequential<T, uint64_t>(a, i0, i1, b, k0 - i0, k1 - i1, k1 - k0, out + k0);
  }
}

}  // namespace

template <class T, class Policy>
void merge_basic(const T* a, size_t na, const T* b, size_t nb, T* out, cudaStream_t stream) {
  const uint64_t total = uint64_t(na) + nb;
  if (total == 0) return;
  const uint64_t per_block = uint64_t(Policy::threads) * Policy::items_per_thread;
  // Cap the grid well below the 2^31 - 1 limit; the kernel loops over the rest.
  const uint64_t blocks = std::min<uint64_t>((total + per_block - 1) / per_block, 1u << 20);
  merge_basic_kernel<T, Policy><<<unsigned(blocks), Policy::threads, 0, stream>>>(a, na, b, nb, out);
  GXSORT_CUDA_CHECK_LAUNCH("merge_basic_kernel");
}

#define GXSORT_INSTANTIATE_BASIC(T) \
  template void merge_basic<T, DefaultMergePolicy<T>::basic>(const T*, size_t, const T*, size_t, T*, cudaStream_t);
GXSORT_INSTANTIATE_BASIC(uint32_t)
GXSORT_INSTANTIATE_BASIC(uint64_t)
GXSORT_INSTANTIATE_BASIC(KeyIndex)

}  // namespace gxsort::cuda
