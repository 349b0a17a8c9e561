// Sort + unique with a bit-range radix sort and the low bits resolved by the unique (see
// sort_unique.cuh).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "cuda_check.cuh"
#include "gxsort/error.hpp"
#include "sort_unique.cuh"

namespace gxsort::cuda {
namespace {

struct HighBits {
  int low;
  __host__ __device__ uint32_t operator()(uint32_t k) const { return k >> low; }
};
struct LowBit {
  uint32_t mask;
  __host__ __device__ uint32_t operator()(uint32_t k) const { return 1u << (k & mask); }
};
struct BitOr {
  __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a | b; }
};
struct PopCount {
  __host__ __device__ uint32_t operator()(uint32_t m) const {
#if defined(__CUDA_ARCH__)
    return uint32_t(__popc(m));
#else
    return uint32_t(__builtin_popcount(m));
#endif
  }
};

using HighIt = thrust::transform_iterator<HighBits, const uint32_t*>;
using LowIt = thrust::transform_iterator<LowBit, const uint32_t*>;
using PopIt = thrust::transform_iterator<PopCount, const uint32_t*>;

// One thread per group: its distinct keys, (high << low) | bit for each set bit of its mask.
__global__ void expand_kernel(const uint32_t* __restrict__ highs, const uint32_t* __restrict__ masks,
                              const uint32_t* __restrict__ offsets, size_t groups, int low, uint32_t* __restrict__ out) {
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  uint32_t m = masks[g];
  const uint32_t base = highs[g] << low;
  uint32_t* o = out + offsets[g];
  while (m) {
    *o++ = base | uint32_t(__ffs(int(m)) - 1);
    m &= m - 1;
  }
}

// Work area: [0] max key, [1] run or key count; then highs, masks, offsets (n each); CUB temp.
struct Layout {
  size_t n;
  size_t array_bytes() const { return (std::max<size_t>(n, 1) * 4 + 255) / 256 * 256; }
  uint32_t* scalars(void* w) const { return static_cast<uint32_t*>(w); }
  uint32_t* array(void* w, int i) const {
    return reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(w) + 256 + size_t(i) * array_bytes());
  }
  void* temp(void* w) const { return static_cast<unsigned char*>(w) + 256 + 3 * array_bytes(); }
};

// The reduce, select, reduce-by-key and scan count items in 32 bits (faster CUB paths; the
// header asks n < 2^31); the radix sort keeps the size_t count its reference call uses.
size_t cub_temp_bytes(size_t n_) {
  const int n = int(n_);
  const uint32_t* k = nullptr;
  uint32_t* o = nullptr;
  size_t a = 0, b = 0, c = 0, d = 0, e = 0;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, a, k, o, n));
  GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, k, o, n_));
  GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, c, k, o, o, n));
  GXSORT_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, d, HighIt(k, HighBits{0}), o, LowIt(k, LowBit{0}), o, o,
                                                   BitOr{}, n));
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, e, PopIt(k, PopCount{}), o, n));
  return std::max({a, b, c, d, e, size_t(1)});
}

uint32_t read_word(const uint32_t* d, cudaStream_t s) {
  uint32_t v = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&v, d, 4, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return v;
}

}  // namespace

size_t sort_unique_work_bytes(size_t n) {
  const Layout l{n};
  return 256 + 3 * l.array_bytes() + cub_temp_bytes(n) + 256;
}

size_t sort_unique_u32(const uint32_t* d_keys, size_t n_, uint32_t* d_sorted, uint32_t* d_out, void* work,
                       cudaStream_t s) {
  if (n_ == 0) return 0;
  if (n_ >= (size_t(1) << 31)) throw Error(ExitCode::usage, "sort_unique_u32: at most 2^31 - 1 keys");
  const int n = int(n_);
  const Layout l{n_};
  uint32_t* sc = l.scalars(work);
  void* temp = l.temp(work);
  size_t tb = cub_temp_bytes(n_);
  size_t t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::Max(temp, t, d_keys, sc, n, s));
  const uint32_t mx = read_word(sc, s);
  const int bits = mx ? 32 - __builtin_clz(mx) : 0;
  const int low = sort_unique_low_bits(bits);
  const uint32_t* sorted = d_keys;  // no bits above the low ones: one group, nothing to sort
  if (bits > low) {
    t = tb;
    GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, t, d_keys, d_sorted, n_, low, bits, s));
    sorted = d_sorted;
  }
  if (low == 0) {
    t = tb;
    GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(temp, t, sorted, d_out, sc + 1, n, s));
    return read_word(sc + 1, s);
  }
  uint32_t* highs = l.array(work, 0);
  uint32_t* masks = l.array(work, 1);
  uint32_t* offsets = l.array(work, 2);
  t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp, t, HighIt(sorted, HighBits{low}), highs,
                                                   LowIt(sorted, LowBit{(1u << low) - 1}), masks, sc + 1, BitOr{}, n, s));
  const size_t groups = read_word(sc + 1, s);
  t = tb;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, t, PopIt(masks, PopCount{}), offsets, int(groups), s));
  expand_kernel<<<unsigned((groups + 255) / 256), 256, 0, s>>>(highs, masks, offsets, groups, low, d_out);
  GXSORT_CUDA_CHECK_LAUNCH("sort unique expand");
  uint32_t last[2];
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&last[0], offsets + groups - 1, 4, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&last[1], masks + groups - 1, 4, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return size_t(last[0]) + size_t(PopCount{}(last[1]));
}

}  // namespace gxsort::cuda
