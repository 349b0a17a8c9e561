#include "check_kernels.cuh"

#include <algorithm>

#include "cuda_check.cuh"
#include "device_keys.cuh"

namespace gxsort::cuda {
namespace {

constexpr int kThreads = 256;

// out[0]: smallest violating index (relative), out[1]: duplicates, out[2]: checksum.
__global__ void check_kernel(const unsigned char* recs, size_t n, KeySpec s, unsigned long long* out) {
  unsigned long long first = ~0ULL, dups = 0, sum = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned char* rec = recs + i * s.record_size;
    sum += record_hash(rec, s.record_size);
    if (i == 0) continue;
    const int c = device_compare_keys(rec - s.record_size, rec, s);
    if (c > 0 && i < first) first = i;
    if (c == 0) ++dups;
  }
  for (int o = 16; o > 0; o /= 2) {  // warp totals first: one atomic per warp
    first = min(first, __shfl_down_sync(0xffffffffu, first, o));
    dups += __shfl_down_sync(0xffffffffu, dups, o);
    sum += __shfl_down_sync(0xffffffffu, sum, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (first != ~0ULL) atomicMin(&out[0], first);
    atomicAdd(&out[1], dups);
    atomicAdd(&out[2], sum);
  }
}

}  // namespace

CheckPartial check_chunk_gpu(DeviceMemory& mem, const Format& f, const unsigned char* d_records, size_t n,
                             uint64_t first_index, cudaStream_t stream) {
  CheckPartial p;
  if (n == 0) return p;
  DeviceAllocation acc = mem.allocate(3 * sizeof(unsigned long long), "check counters");
  auto* d = static_cast<unsigned long long*>(acc.get());
  const unsigned long long init[3] = {~0ULL, 0, 0};
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(d, init, sizeof init, cudaMemcpyHostToDevice, stream));
  const unsigned grid = unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 132 * 16));
  check_kernel<<<grid, kThreads, 0, stream>>>(d_records, n, KeySpec::of(f), d);
  GXSORT_CUDA_CHECK_LAUNCH("check_kernel");
  unsigned long long h[3];
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (h[0] != ~0ULL) p.first_violation = first_index + h[0];
  p.duplicates = h[1];
  p.checksum = h[2];
  return p;
}

}  // namespace gxsort::cuda
