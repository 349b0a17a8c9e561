// The flat and CUB reductions, and the host entry point for all three GPU algorithms
// (the nested one lives in cuda/cdp/reduce_nested.cu). See reduce_kernels.cuh.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "reduce/reduce_kernels.cuh"

namespace gxsort::cuda {


namespace {

// ---------------------------------------------------------------- flat kernels

// Single pass: CTA c reduces blocks c, c + grid, ... and writes slot c.
template <KeyType K>
__global__ void __launch_bounds__(kReduceThreads) flat_reduce_kernel(ReduceArgs a, size_t nblocks,
                                                                      DevPartial* slots) {
  cta_reduce<K>(a, blockIdx.x, nblocks, gridDim.x, slots + blockIdx.x);
}

// The small final pass: one CTA combines the grid's slots.
__global__ void __launch_bounds__(kReduceThreads) flat_finalize_kernel(const DevPartial* slots,
                                                                        size_t count, bool is_float,
                                                                        DevPartial* out) {
  finalize_partials(slots, count, is_float, out);
}

// ---------------------------------------------------------------- CUB pieces

// 128-bit sum, min and max of order words: the value CUB reduces.
struct CubAcc {
  unsigned long long lo, hi, mn, mx;
};

struct CubCombine {
  __host__ __device__ CubAcc operator()(const CubAcc& a, const CubAcc& b) const {
    CubAcc r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    r.mn = a.mn < b.mn ? a.mn : b.mn;
    r.mx = a.mx > b.mx ? a.mx : b.mx;
    return r;
  }
};

// Record index -> CubAcc of its key (float keys contribute no integer sum).
template <KeyType K>
struct KeyToAcc {
  ReduceArgs a;
  __device__ CubAcc operator()(unsigned long long i) const {
    using T = KeyTraits<K>;
    const typename T::Word w = load_key<K>(a, i);
    const unsigned long long o = T::order(w);
    CubAcc r{0, 0, o, o};
    if constexpr (K == KeyType::i32 || K == KeyType::i64) {
      const long long v = K == KeyType::i32 ? (long long)(int)w : (long long)w;
      r.lo = (unsigned long long)v;
      r.hi = v < 0 ? ~0ull : 0;
    } else if constexpr (!T::is_float) {
      r.lo = w;
    }
    return r;
  }
};

// Block tree sums of float keys, one per block (the same tree as every algorithm).
template <KeyType K>
__global__ void __launch_bounds__(kReduceThreads) block_sums_kernel(ReduceArgs a, size_t nblocks,
                                                                     double* sums) {
  __shared__ double s_warp[kTreeWarps];
  for (size_t blk = blockIdx.x; blk < nblocks; blk += gridDim.x) {
    typename KeyTraits<K>::Word w[KeyTraits<K>::Q][KeyTraits<K>::V];
    unsigned m;
    load_block<K>(a, blk, w, m);
    const double s = block_tree_sum<K>(w, s_warp);
    if (threadIdx.x == 0) sums[blk] = s;
  }
}

// Segment k < kExactLimbs: the exact piece of each block sum that lands in limb k;
// segments kExactLimbs + 0/1/2 count NaN, +inf and -inf block sums.
constexpr int kCubSegments = kExactLimbs + 3;

struct PieceOf {
  const double* sums;
  unsigned long long nblocks;
  __device__ long long operator()(unsigned long long i) const {
    const int seg = int(i / nblocks);
    const double d = sums[i % nblocks];
    if (seg >= kExactLimbs) {
      if (seg == kExactLimbs) return isnan(d) ? 1 : 0;
      if (!isinf(d)) return 0;
      return (seg == kExactLimbs + 1) == (d > 0) ? 1 : 0;
    }
    if (isnan(d) || isinf(d)) return 0;
    int k;
    int64_t p[3];
    ExactSum::split(d, k, p);
    return seg >= k && seg < k + 3 ? p[seg - k] : 0;
  }
};

struct SegmentStart {
  unsigned long long nblocks;
  __host__ __device__ unsigned long long operator()(unsigned long long k) const { return k * nblocks; }
};

using Counting = thrust::counting_iterator<unsigned long long>;

// ---------------------------------------------------------------- planning

constexpr size_t kAlign = 256;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

bool is_float_key(KeyType k) { return k == KeyType::f32 || k == KeyType::f64; }

unsigned sm_count() {
  int dev = 0, sms = 0;
  GXSORT_CUDA_CHECK(cudaGetDevice(&dev));
  GXSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return unsigned(std::max(sms, 1));
}

size_t blocks_of(size_t n) { return (n + kReduceBlock - 1) / kReduceBlock; }

// CTAs of the flat kernel; per leaf of the nested one.
size_t flat_ctas(size_t nblocks) { return std::min<size_t>(nblocks, size_t(sm_count()) * kCtasPerSm); }
size_t leaf_ctas(size_t nblocks) {
  const size_t per_leaf = (nblocks + kNestedLeaves - 1) / kNestedLeaves;
  return std::max<size_t>(1, std::min<size_t>(per_leaf, size_t(sm_count()) * kCtasPerSm / kNestedLeaves));
}

ReduceArgs make_args(const Format& f, const unsigned char* d, size_t n) {
  const size_t w = key_type_width(f.key_type);
  ReduceArgs a;
  a.data = d;
  a.n = n;
  a.record_size = f.record_size;
  a.key_offset = f.key_offset;
  a.vector = f.flat() && f.key_offset == 0 && reinterpret_cast<uintptr_t>(d) % 16 == 0;
  a.aligned = f.record_size % w == 0 && f.key_offset % w == 0 && reinterpret_cast<uintptr_t>(d) % w == 0;
  return a;
}

template <KeyType K>
size_t cub_temp_bytes(const ReduceArgs& a, size_t nblocks, cudaStream_t stream) {
  size_t t1 = 0, t2 = 0;
  CubAcc* out = nullptr;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, t1, Counting(0), out, a.n, CubCombine{},
                                                       KeyToAcc<K>{a}, CubAcc{0, 0, ~0ull, 0}, stream));
  if (is_float_key(K)) {
    auto in = thrust::make_transform_iterator(Counting(0), PieceOf{nullptr, nblocks});
    auto starts = thrust::make_transform_iterator(Counting(0), SegmentStart{nblocks});
    GXSORT_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, t2, in, static_cast<long long*>(nullptr),
                                                      kCubSegments, starts, starts + 1, stream));
  }
  return std::max(t1, t2);
}

// Scratch layout of the CUB algorithm.
struct CubLayout {
  size_t acc, pieces, sums, cub, total, cub_bytes;
};
template <KeyType K>
CubLayout cub_layout(const ReduceArgs& a, size_t nblocks, cudaStream_t stream) {
  CubLayout l;
  l.acc = 0;
  l.pieces = align_up(sizeof(CubAcc));
  l.sums = l.pieces + align_up(kCubSegments * sizeof(long long));
  l.cub = l.sums + align_up((is_float_key(K) ? nblocks : 0) * sizeof(double));
  l.cub_bytes = cub_temp_bytes<K>(a, nblocks, stream);
  l.total = l.cub + align_up(l.cub_bytes);
  return l;
}

template <KeyType K>
ReducePartial reduce_cub(const ReduceArgs& a, uint64_t first, void* d_temp, size_t temp_bytes,
                         cudaStream_t stream) {
  const size_t nblocks = blocks_of(a.n);
  const CubLayout l = cub_layout<K>(a, nblocks, stream);
  if (temp_bytes < l.total) fail_io("reduce: device scratch too small for the cub reduction");
  auto* base = static_cast<unsigned char*>(d_temp);
  auto* d_acc = reinterpret_cast<CubAcc*>(base + l.acc);
  auto* d_pieces = reinterpret_cast<long long*>(base + l.pieces);
  auto* d_sums = reinterpret_cast<double*>(base + l.sums);
  size_t cub_bytes = l.cub_bytes;
  GXSORT_CUDA_CHECK(cub::DeviceReduce::TransformReduce(base + l.cub, cub_bytes, Counting(0), d_acc, a.n,
                                                       CubCombine{}, KeyToAcc<K>{a},
                                                       CubAcc{0, 0, ~0ull, 0}, stream));
  long long pieces[kCubSegments] = {};
  if (is_float_key(K)) {
    const unsigned ctas = unsigned(flat_ctas(nblocks));
    block_sums_kernel<K><<<ctas, kReduceThreads, 0, stream>>>(a, nblocks, d_sums);
    GXSORT_CUDA_CHECK_LAUNCH("block_sums_kernel");
    auto in = thrust::make_transform_iterator(Counting(0), PieceOf{d_sums, nblocks});
    auto starts = thrust::make_transform_iterator(Counting(0), SegmentStart{nblocks});
    cub_bytes = l.cub_bytes;
    GXSORT_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(base + l.cub, cub_bytes, in, d_pieces, kCubSegments,
                                                      starts, starts + 1, stream));
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(pieces, d_pieces, sizeof pieces, cudaMemcpyDeviceToHost, stream));
  }
  CubAcc acc;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&acc, d_acc, sizeof acc, cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));

  ReducePartial p;
  p.first = first;
  p.count = a.n;
  p.isum = (unsigned __int128)acc.hi << 64 | acc.lo;
  p.min_order = acc.mn;
  p.max_order = acc.mx;
  if (is_float_key(K)) {
    for (int k = 0; k < kExactLimbs; ++k) p.fsum.limb[k] = pieces[k];
    p.fsum.normalize();
    p.nan_blocks = (unsigned long long)pieces[kExactLimbs];
    p.pinf_blocks = (unsigned long long)pieces[kExactLimbs + 1];
    p.ninf_blocks = (unsigned long long)pieces[kExactLimbs + 2];
  }
  return p;
}

// ---------------------------------------------------------------- dispatch

template <class F>
auto dispatch_key(KeyType k, F&& f) {
  switch (k) {
    case KeyType::u32: return f(std::integral_constant<KeyType, KeyType::u32>{});
    case KeyType::i32: return f(std::integral_constant<KeyType, KeyType::i32>{});
    case KeyType::f32: return f(std::integral_constant<KeyType, KeyType::f32>{});
    case KeyType::u64: return f(std::integral_constant<KeyType, KeyType::u64>{});
    case KeyType::i64: return f(std::integral_constant<KeyType, KeyType::i64>{});
    case KeyType::f64: return f(std::integral_constant<KeyType, KeyType::f64>{});
    default: fail_usage("reduce needs a typed key");
  }
}

size_t slot_count(ReduceAlgo algo, size_t nblocks) {
  return algo == ReduceAlgo::nested ? kNestedLeaves * leaf_ctas(nblocks) : flat_ctas(nblocks);
}

ReducePartial from_device(const DevPartial& d, uint64_t first, size_t n, bool is_float) {
  ReducePartial p;
  p.first = first;
  p.count = n;
  p.isum = (unsigned __int128)d.sum_hi << 64 | d.sum_lo;
  p.min_order = d.min_o;
  p.max_order = d.max_o;
  if (is_float) {
    for (int k = 0; k < kExactLimbs; ++k) p.fsum.limb[k] = d.limb[k];
    p.fsum.normalize();
    p.nan_blocks = d.nan_blocks;
    p.pinf_blocks = d.pinf_blocks;
    p.ninf_blocks = d.ninf_blocks;
  }
  return p;
}

}  // namespace

size_t reduce_gpu_temp_bytes(ReduceAlgo algo, const Format& f, size_t n) {
  if (key_type_width(f.key_type) == 0) fail_usage("reduce needs a typed key");
  if (n == 0) return 0;
  const size_t nblocks = blocks_of(n);
  if (algo == ReduceAlgo::cub) {
    // The layout depends only on n and the key type, not on where the keys are.
    const ReduceArgs a = make_args(f, nullptr, n);
    return dispatch_key(f.key_type, [&](auto k) { return cub_layout<decltype(k)::value>(a, nblocks, 0).total; });
  }
  return (slot_count(algo, nblocks) + 1) * sizeof(DevPartial);
}

ReducePartial reduce_chunk_gpu(ReduceAlgo algo, const Format& f, const unsigned char* d_records, size_t n,
                               uint64_t first_index, void* d_temp, size_t temp_bytes,
                               cudaStream_t stream) {
  check_reducible(f, first_index);
  if (n == 0) {
    ReducePartial p;
    p.first = first_index;
    return p;
  }
  const ReduceArgs a = make_args(f, d_records, n);
  const size_t nblocks = blocks_of(n);
  const bool is_float = is_float_key(f.key_type);
  if (algo == ReduceAlgo::cub)
    return dispatch_key(f.key_type, [&](auto k) {
      return reduce_cub<decltype(k)::value>(a, first_index, d_temp, temp_bytes, stream);
    });

  const size_t slots = slot_count(algo, nblocks);
  if (temp_bytes < (slots + 1) * sizeof(DevPartial))
    fail_io("reduce: device scratch too small for the " + std::string(reduce_algo_name(algo)) + " reduction");
  auto* d_slots = static_cast<DevPartial*>(d_temp);
  DevPartial* d_result = d_slots + slots;
  if (algo == ReduceAlgo::flat) {
    dispatch_key(f.key_type, [&](auto k) {
      flat_reduce_kernel<decltype(k)::value><<<unsigned(slots), kReduceThreads, 0, stream>>>(a, nblocks, d_slots);
      return 0;
    });
    GXSORT_CUDA_CHECK_LAUNCH("flat_reduce_kernel");
    flat_finalize_kernel<<<1, kReduceThreads, 0, stream>>>(d_slots, slots, is_float, d_result);
    GXSORT_CUDA_CHECK_LAUNCH("flat_finalize_kernel");
  } else {
    launch_reduce_nested(f.key_type, a, unsigned(leaf_ctas(nblocks)), d_slots, d_result, stream);
  }
  DevPartial result;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&result, d_result, sizeof result, cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (algo == ReduceAlgo::nested && result.pad != 0)
    throw Error(ExitCode::device, std::string("reduce: a device-side launch of the nested reduction failed: ") +
                                      cudaGetErrorName(cudaError_t(result.pad)));
  return from_device(result, first_index, n, is_float);
}

}  // namespace gxsort::cuda
