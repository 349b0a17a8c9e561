// GPU reductions of a chunk of records already in device memory.
//
// Three algorithms give the same ReducePartial, bit for bit, as reduce_chunk_cpu:
//   flat    one single-pass kernel (grid-stride over blocks of kReduceBlock records,
//           16-byte vector loads for flat key files, warp shuffles) + one tiny final pass
//   nested  dynamic parallelism (CDP2, cuda/cdp/reduce_nested.cu): a parent kernel
//           launches child grids from the device; a kernel in cudaStreamTailLaunch
//           combines their partials once every descendant has finished
//   cub     cub::DeviceReduce::TransformReduce for sum/min/max, and for float sums
//           our block-tree kernel followed by cub::DeviceSegmentedReduce::Sum of the
//           block sums' exact 32-bit pieces
// Float sums depend on a fixed per-block tree (reduce.hpp): every algorithm computes a
// block with one 256-thread CTA through block_tree_sum() below, and everything past
// the block is exact integer arithmetic, so neither grid size nor order matters.
//
// The caller owns device memory: d_temp holds at least reduce_gpu_temp_bytes() bytes;
// nothing here allocates. reduce_chunk_gpu() synchronizes `stream` before returning.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cuda_check.cuh"
#include "gxsort/format.hpp"
#include "kernels/reduce.hpp"

namespace gxsort::cuda {

// The algorithms are gxsort::ReduceAlgo (gxsort/options.hpp).
inline const char* reduce_algo_name(ReduceAlgo a) { return choice_name(a, kReduceAlgos); }

// Bytes of device scratch reduce_chunk_gpu(algo, f, ..., n, ...) needs on the current device.
size_t reduce_gpu_temp_bytes(ReduceAlgo algo, const Format& f, size_t n);

// Reduce n records of format f at d_records (device memory); first_index is the
// index of the first record in the file (a multiple of kReduceBlock).
ReducePartial reduce_chunk_gpu(ReduceAlgo algo, const Format& f, const unsigned char* d_records,
                               size_t n, uint64_t first_index, void* d_temp, size_t temp_bytes,
                               cudaStream_t stream);

// ---------------------------------------------------------------- device pieces
// Shared by reduce_flat.cu and cdp/reduce_nested.cu (and the tests).

// One CTA's partial result (also the final result of a chunk) in device memory.
struct DevPartial {
  unsigned long long sum_lo, sum_hi;  // integer sum, 128-bit two's complement
  unsigned long long min_o, max_o;    // order words
  unsigned long long nan_blocks, pinf_blocks, ninf_blocks;
  unsigned long long pad;  // result only: a device-side launch error (nested), else 0
  long long limb[kExactLimbs];  // ExactSum limbs (not normalized)
};

// Where the keys are and how to load them.
struct ReduceArgs {
  const unsigned char* data;
  size_t n;            // records
  size_t record_size;  // bytes
  size_t key_offset;   // bytes
  bool vector;         // flat key file, 16-byte aligned: load 16-byte vectors
  bool aligned;        // every key is aligned to its width: load it as one word
};

constexpr unsigned kReduceThreads = kTreeThreads;  // 256: the tree is defined for it
constexpr unsigned kCtasPerSm = 4;                 // enough bytes in flight to saturate HBM
constexpr unsigned kNestedLeaves = 8;              // leaves of the nested launch tree

template <KeyType K>
struct KeyTraits {
  static constexpr bool wide = K == KeyType::u64 || K == KeyType::i64 || K == KeyType::f64;
  static constexpr unsigned W = wide ? 8 : 4;                    // key bytes
  static constexpr unsigned V = 16 / W;                          // keys per 16-byte vector
  static constexpr unsigned Q = kReduceBlock / (kReduceThreads * V);  // vectors per thread
  static constexpr bool is_float = K == KeyType::f32 || K == KeyType::f64;
  using Word = std::conditional_t<wide, unsigned long long, unsigned>;

  __device__ __forceinline__ static unsigned long long order(Word w) {
    if constexpr (wide) return order64(K, w, false);
    else return order32(K, w, false);
  }
  __device__ __forceinline__ static double to_double(Word w) {
    if constexpr (K == KeyType::f32) return double(__uint_as_float(w));
    else return __longlong_as_double((long long)w);
  }
};

// Key i (an index into the chunk) of a record file.
template <KeyType K>
__device__ __forceinline__ typename KeyTraits<K>::Word load_key(const ReduceArgs& a, size_t i) {
  using Word = typename KeyTraits<K>::Word;
  const unsigned char* p = a.data + i * a.record_size + a.key_offset;
  if (a.aligned) return __ldg(reinterpret_cast<const Word*>(p));
  Word w = 0;  // little-endian bytes
  for (unsigned b = 0; b < KeyTraits<K>::W; ++b) w |= Word(__ldg(p + b)) << (8 * b);
  return w;
}

// Loads this thread's keys of block `blk`: key j of vector q is block key
// j + V*t + V*256*q (the layout the tree is defined on). Keys past the chunk read 0,
// which is +0.0 for floats and adds nothing to integer sums.
template <KeyType K>
__device__ __forceinline__ void load_block(const ReduceArgs& a, size_t blk,
                                           typename KeyTraits<K>::Word (&w)[KeyTraits<K>::Q][KeyTraits<K>::V],
                                           unsigned& valid_hint) {
  using T = KeyTraits<K>;
  const size_t base = blk * kReduceBlock;
  const unsigned t = threadIdx.x;
  const bool full = a.n - base >= kReduceBlock;
  valid_hint = full ? kReduceBlock : unsigned(a.n - base);
  if (full && a.vector) {
    const uint4* v = reinterpret_cast<const uint4*>(a.data) + base / T::V;
    uint4 r[T::Q];
#pragma unroll
    for (unsigned q = 0; q < T::Q; ++q) r[q] = __ldg(v + t + kReduceThreads * q);  // all in flight
#pragma unroll
    for (unsigned q = 0; q < T::Q; ++q) {
      if constexpr (T::W == 4) {
        w[q][0] = r[q].x; w[q][1] = r[q].y; w[q][2] = r[q].z; w[q][3] = r[q].w;
      } else {
        w[q][0] = (unsigned long long)r[q].y << 32 | r[q].x;
        w[q][1] = (unsigned long long)r[q].w << 32 | r[q].z;
      }
    }
  } else {
#pragma unroll
    for (unsigned q = 0; q < T::Q; ++q)
#pragma unroll
      for (unsigned j = 0; j < T::V; ++j) {
        const unsigned i = j + T::V * t + T::V * kReduceThreads * q;
        w[q][j] = (full || i < valid_hint) ? load_key<K>(a, base + i) : 0;
      }
  }
}

// The block's tree sum (reduce.hpp's steps a-d); the result is valid in thread 0.
// Every thread of the CTA must call it (it synchronizes through s_warp).
template <KeyType K>
__device__ __forceinline__ double block_tree_sum(
    const typename KeyTraits<K>::Word (&w)[KeyTraits<K>::Q][KeyTraits<K>::V], double* s_warp) {
  using T = KeyTraits<K>;
  double v[T::Q];
#pragma unroll
  for (unsigned q = 0; q < T::Q; ++q) {
    if constexpr (T::V == 4)
      v[q] = (T::to_double(w[q][0]) + T::to_double(w[q][1])) +
             (T::to_double(w[q][2]) + T::to_double(w[q][3]));
    else
      v[q] = T::to_double(w[q][0]) + T::to_double(w[q][1]);
  }
#pragma unroll
  for (unsigned s = T::Q / 2; s >= 1; s /= 2)
#pragma unroll
    for (unsigned q = 0; q < s; ++q) v[q] += v[q + s];
  double x = v[0];
#pragma unroll
  for (unsigned s = 16; s >= 1; s /= 2) x += __shfl_down_sync(0xffffffffu, x, s);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) s_warp[warp] = x;
  __syncthreads();
  double y = 0.0;
  if (warp == 0) {
    y = lane < kTreeWarps ? s_warp[lane] : 0.0;
#pragma unroll
    for (unsigned s = kTreeWarps / 2; s >= 1; s /= 2) y += __shfl_down_sync(0xffffffffu, y, s);
  }
  __syncthreads();  // s_warp is free again for the next block
  return y;
}

__device__ __forceinline__ unsigned __int128 shfl_down_u128(unsigned __int128 v, unsigned s) {
  const unsigned long long lo = __shfl_down_sync(0xffffffffu, (unsigned long long)v, s);
  const unsigned long long hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(v >> 64), s);
  return (unsigned __int128)hi << 64 | lo;
}

// Per-CTA scratch of cta_reduce().
struct CtaShared {
  double warp[kTreeWarps];
  unsigned long long sum_lo[kTreeWarps], sum_hi[kTreeWarps], mn[kTreeWarps], mx[kTreeWarps];
  long long limb[kExactLimbs];
};

// The CTA's partial from each thread's sum, min and max order words and thread 0's float
// block counts: warp shuffles, then the 8 warps through shared memory.
// A 32-bit key's identity stays 0xffffffff: a chunk always holds a real key <= it.
template <bool IsFloat>
__device__ void write_cta_partial(unsigned __int128 sum, unsigned long long mn64, unsigned long long mx64,
                                  unsigned long long nan_b, unsigned long long pinf_b, unsigned long long ninf_b,
                                  CtaShared& sh, DevPartial* out) {
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
#pragma unroll
  for (unsigned s = 16; s >= 1; s /= 2) {
    sum += shfl_down_u128(sum, s);
    const unsigned long long a1 = __shfl_down_sync(0xffffffffu, mn64, s);
    const unsigned long long a2 = __shfl_down_sync(0xffffffffu, mx64, s);
    mn64 = a1 < mn64 ? a1 : mn64;
    mx64 = a2 > mx64 ? a2 : mx64;
  }
  if (lane == 0) {
    sh.sum_lo[warp] = (unsigned long long)sum;
    sh.sum_hi[warp] = (unsigned long long)(sum >> 64);
    sh.mn[warp] = mn64;
    sh.mx[warp] = mx64;
  }
  __syncthreads();
  if (t == 0) {
    unsigned __int128 s = 0;
    unsigned long long a1 = ~0ull, a2 = 0;
    for (unsigned i = 0; i < kTreeWarps; ++i) {
      s += (unsigned __int128)sh.sum_hi[i] << 64 | sh.sum_lo[i];
      a1 = sh.mn[i] < a1 ? sh.mn[i] : a1;
      a2 = sh.mx[i] > a2 ? sh.mx[i] : a2;
    }
    out->sum_lo = (unsigned long long)s;
    out->sum_hi = (unsigned long long)(s >> 64);
    out->min_o = a1;
    out->max_o = a2;
    out->nan_blocks = nan_b;
    out->pinf_blocks = pinf_b;
    out->ninf_blocks = ninf_b;
    out->pad = 0;
  }
  for (unsigned k = t; k < kExactLimbs; k += blockDim.x)
    out->limb[k] = IsFloat ? sh.limb[k] : 0;
}

// One CTA reduces blocks first, first + step, ... < last into *out.
template <KeyType K>
__device__ void cta_reduce(const ReduceArgs& a, size_t first, size_t last, size_t step,
                           DevPartial* out) {
  using T = KeyTraits<K>;
  using Word = typename T::Word;
  __shared__ CtaShared sh;
  const unsigned t = threadIdx.x;
  if constexpr (T::is_float)
    for (unsigned k = t; k < kExactLimbs; k += blockDim.x) sh.limb[k] = 0;
  __syncthreads();

  unsigned __int128 sum = 0;
  Word mn = ~Word(0), mx = 0;
  unsigned long long nan_b = 0, pinf_b = 0, ninf_b = 0;  // meaningful in thread 0
  for (size_t blk = first; blk < last; blk += step) {
    Word w[T::Q][T::V];
    unsigned m;
    load_block<K>(a, blk, w, m);
    const bool full = m == kReduceBlock;
    // min/max over the valid keys; integer sums (padding reads 0 and adds nothing)
    using Acc = std::conditional_t<K == KeyType::i32, long long, unsigned long long>;
    Acc s32 = 0;  // a thread's 16 32-bit keys of one block fit 64 bits
#pragma unroll
    for (unsigned q = 0; q < T::Q; ++q)
#pragma unroll
      for (unsigned j = 0; j < T::V; ++j) {
        const Word o = Word(T::order(w[q][j]));
        if (full || j + T::V * t + T::V * kReduceThreads * q < m) {
          mn = o < mn ? o : mn;
          mx = o > mx ? o : mx;
        }
        if constexpr (!T::is_float) {
          if constexpr (K == KeyType::i32) s32 += (long long)(int)w[q][j];
          else if constexpr (K == KeyType::u32) s32 += w[q][j];
          else if constexpr (K == KeyType::i64) sum += (unsigned __int128)(__int128)(long long)w[q][j];
          else sum += w[q][j];
        }
      }
    if constexpr (!T::is_float && !T::wide) sum += (unsigned __int128)(__int128)s32;
    if constexpr (T::is_float) {
      const double bs = block_tree_sum<K>(w, sh.warp);
      if (t == 0) {
        if (isnan(bs)) ++nan_b;
        else if (isinf(bs)) ++(bs > 0 ? pinf_b : ninf_b);
        else {
          int k;
          int64_t p[3];
          ExactSum::split(bs, k, p);
          sh.limb[k] += p[0];
          sh.limb[k + 1] += p[1];
          sh.limb[k + 2] += p[2];
        }
      }
    }
  }

  write_cta_partial<T::is_float>(sum, mn, mx, nan_b, pinf_b, ninf_b, sh, out);
}

// Combines slots[0..count) into *out with one CTA of kReduceThreads threads.
__device__ inline void finalize_partials(const DevPartial* slots, size_t count, bool is_float,
                                         DevPartial* out) {
  __shared__ unsigned long long s_lo[kTreeWarps], s_hi[kTreeWarps], s_mn[kTreeWarps],
      s_mx[kTreeWarps], s_nan[kTreeWarps], s_pi[kTreeWarps], s_ni[kTreeWarps];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  unsigned __int128 sum = 0;
  unsigned long long mn = ~0ull, mx = 0, nan_b = 0, pinf_b = 0, ninf_b = 0;
  for (size_t i = t; i < count; i += blockDim.x) {
    const DevPartial& p = slots[i];
    sum += (unsigned __int128)p.sum_hi << 64 | p.sum_lo;
    mn = p.min_o < mn ? p.min_o : mn;
    mx = p.max_o > mx ? p.max_o : mx;
    nan_b += p.nan_blocks;
    pinf_b += p.pinf_blocks;
    ninf_b += p.ninf_blocks;
  }
  for (unsigned s = 16; s >= 1; s /= 2) {
    sum += shfl_down_u128(sum, s);
    const unsigned long long a1 = __shfl_down_sync(0xffffffffu, mn, s);
    const unsigned long long a2 = __shfl_down_sync(0xffffffffu, mx, s);
    mn = a1 < mn ? a1 : mn;
    mx = a2 > mx ? a2 : mx;
    nan_b += __shfl_down_sync(0xffffffffu, nan_b, s);
    pinf_b += __shfl_down_sync(0xffffffffu, pinf_b, s);
    ninf_b += __shfl_down_sync(0xffffffffu, ninf_b, s);
  }
  if (lane == 0) {
    s_lo[warp] = (unsigned long long)sum;
    s_hi[warp] = (unsigned long long)(sum >> 64);
    s_mn[warp] = mn; s_mx[warp] = mx;
    s_nan[warp] = nan_b; s_pi[warp] = pinf_b; s_ni[warp] = ninf_b;
  }
  // Limbs (float keys): warp w sums limbs w, w + 8, ... over all slots.
  for (unsigned k = warp; k < kExactLimbs; k += kTreeWarps) {
    unsigned long long l = 0;  // wrapping adds == two's complement int64 adds
    if (is_float)
      for (size_t i = lane; i < count; i += 32) l += (unsigned long long)slots[i].limb[k];
    for (unsigned s = 16; s >= 1; s /= 2) l += __shfl_down_sync(0xffffffffu, l, s);
    if (lane == 0) out->limb[k] = (long long)l;
  }
  __syncthreads();
  if (t == 0) {
    unsigned __int128 s = 0;
    unsigned long long a1 = ~0ull, a2 = 0, n0 = 0, n1 = 0, n2 = 0;
    for (unsigned i = 0; i < kTreeWarps; ++i) {
      s += (unsigned __int128)s_hi[i] << 64 | s_lo[i];
      a1 = s_mn[i] < a1 ? s_mn[i] : a1;
      a2 = s_mx[i] > a2 ? s_mx[i] : a2;
      n0 += s_nan[i]; n1 += s_pi[i]; n2 += s_ni[i];
    }
    out->sum_lo = (unsigned long long)s;
    out->sum_hi = (unsigned long long)(s >> 64);
    out->min_o = a1;
    out->max_o = a2;
    out->nan_blocks = n0;
    out->pinf_blocks = n1;
    out->ninf_blocks = n2;
    // out->pad is left alone: the nested launcher reports device-side launch errors there.
  }
}

// ---------------------------------------------------------------- nested (CDP2)

// Launches the nested reduction (cuda/cdp/reduce_nested.cu) into `stream`: a parent
// kernel splits the chunk's blocks among kNestedLeaves leaves, each a child grid of
// leaf_ctas CTAs writing slots [leaf * leaf_ctas, (leaf + 1) * leaf_ctas); a kernel in
// cudaStreamTailLaunch then combines all slots into *result.
void launch_reduce_nested(KeyType k, const ReduceArgs& a, unsigned leaf_ctas, DevPartial* slots,
                          DevPartial* result, cudaStream_t stream);

}  // namespace gxsort::cuda
