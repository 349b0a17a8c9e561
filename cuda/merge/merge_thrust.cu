// thrust::merge, the stable reference, and the public dispatch of merge.cuh
// (merge_temp_bytes, merge) for all kernels.
#include <thrust/execution_policy.h>
#include <thrust/merge.h>
#include <algorithm>
#include <thrust/system/cuda/execution_policy.h>
#include "cuda_check.cuh"
#include "merge/merge.cuh"

namespace gxsort::cuda {

template <class T>
void merge_thrust(const T* a, size_t na, const T* b, size_t nb, T* out, cudaStream_t stream) {
  if (na + nb == 0) return;
  // Exception to "the caller owns device memory": thrust::merge allocates its temporary
  // storage (its merge-path partitions) itself, through thrust's default allocator. This
  // is the reference kernel, not the production path. par_nosync: enqueue on `stream`
  // without the synchronization thrust does by default.
  // thrust reports CUDA errors as thrust::system_error; turn them into gxsort::Error.
  try {
    thrust::merge(thrust::cuda::par_nosync.on(stream), a, a + na, b, b + nb, out);
  } catch (const thrust::system_error& e) {
    throw Error(ExitCode::device, std::string("thrust::merge: ") + e.what());
  }
  GXSORT_CUDA_CHECK_LAUNCH("thrust::merge");
}

template <class T>
size_t merge_temp_bytes(MergeKernel k, size_t na, size_t nb) {
  using P = DefaultMergePolicy<T>;
  switch (k) {
    case MergeKernel::tiled: return merge_tiled_temp_bytes<typename P::tiled>(na, nb);
    case MergeKernel::automatic:  // the backend's default kernel
    case MergeKernel::circular:  // either policy merge() may take
      return std::max(merge_circular_temp_bytes<typename P::circular>(na, nb),
                      merge_circular_temp_bytes<typename P::circular_fallback>(na, nb));
    case MergeKernel::basic:
    case MergeKernel::thrust: return 0;
  }
  return 0;
}

template <class T>
void merge(MergeKernel k, const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
           size_t temp_bytes, cudaStream_t stream) {
  using P = DefaultMergePolicy<T>;
  switch (k) {
    case MergeKernel::basic:
      return merge_basic<T, typename P::basic>(a, na, b, nb, out, stream);
    case MergeKernel::tiled:
      return merge_tiled<T, typename P::tiled>(a, na, b, nb, out, temp, temp_bytes, stream);
    case MergeKernel::automatic:
    case MergeKernel::circular:
      if (merge_circular_fits<T, typename P::circular>())
        return merge_circular<T, typename P::circular>(a, na, b, nb, out, temp, temp_bytes, stream);
      return merge_circular<T, typename P::circular_fallback>(a, na, b, nb, out, temp, temp_bytes, stream);
    case MergeKernel::thrust:
      return merge_thrust<T>(a, na, b, nb, out, stream);
  }
}

#define GXSORT_INSTANTIATE_MERGE(T)                                                           \
  template void merge_thrust<T>(const T*, size_t, const T*, size_t, T*, cudaStream_t);       \
  template size_t merge_temp_bytes<T>(MergeKernel, size_t, size_t);                           \
  template void merge<T>(MergeKernel, const T*, size_t, const T*, size_t, T*, void*, size_t, \
                         cudaStream_t);
GXSORT_INSTANTIATE_MERGE(uint32_t)
GXSORT_INSTANTIATE_MERGE(uint64_t)
GXSORT_INSTANTIATE_MERGE(KeyIndex)

}  // namespace gxsort::cuda
