// Reductions of a file's typed keys: sum, min, max, count, mean, minmax.
//
// A file is reduced chunk by chunk (CPU: reduce_chunk_cpu; GPU: cuda/reduce/
// reduce_kernels.cuh) into ReducePartials that combine() joins in file order. The
// result is the same bit for bit whatever the chunking (chunk boundaries are
// multiples of kReduceBlock records) and whatever the device:
//
// - count counts records.
// - Integer sums are exact: a 128-bit accumulator, two's complement for i32/i64.
// - min/max compare order words (format.hpp's order transform, never --reverse), so
//   floats follow IEEE totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
// - Float sums (f32 and f64 alike) are computed in two steps:
//     1. every block of kReduceBlock records, aligned to the start of the file, is
//        summed in double precision by ONE fixed pairwise tree (block_tree below;
//        records past the end of the data count as +0.0);
//     2. the block sums are added EXACTLY into a wide fixed-point accumulator
//        (ExactSum), which is rounded to the nearest double once, at the end.
//   Step 2 is associative, so neither the chunking nor the order in which a GPU
//   adds its blocks changes a bit; step 1 is the same tree on the CPU and on every
//   GPU kernel. A block sum that is NaN or ±inf is counted aside rather than added:
//   the result is NaN if any block sum was NaN or both infinities occurred, else
//   that infinity, else the rounded exact sum.
// - mean = sum / count in double (integer sums converted from the exact sum).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/reduce_value.hpp"

namespace gxsort {


// Records per block of the float-sum tree. Chunks passed to reduce_chunk_* start at
// a multiple of this many records (the last chunk of a file may end anywhere).
constexpr size_t kReduceBlock = 4096;

// ---- the fixed block tree, shared by the CPU and the GPU kernels ----
//
// It is the tree a 256-thread GPU block computes when each thread loads 16-byte
// vectors: with W the key width and V = 16 / W keys per vector, thread t reads
// vectors t, t + 256, t + 512, ... (Q = kReduceBlock / (256 V) of them), i.e. key
//   i = j + V*t + V*256*q      (j < V, t < 256, q < Q).
// Sums, in double precision, in this order:
//   a. each vector:            V = 4: (x0 + x1) + (x2 + x3);  V = 2: x0 + x1
//   b. a thread's Q vectors:   stride halving, v[q] += v[q + s] for s = Q/2 .. 1
//   c. a warp's 32 threads:    stride halving (shfl_down) over lanes, s = 16 .. 1
//   d. the 8 warps:            stride halving, s = 4, 2, 1
constexpr unsigned kTreeThreads = 256;
constexpr unsigned kTreeWarps = kTreeThreads / 32;

// ---- exact accumulation of doubles ----
//
// Value = sum over k of limb[k] * 2^(32k - 1074): 2^-1074 is the smallest subnormal,
// and 68 limbs of 32 bits reach 2^1102, room for 2^64 additions of the largest
// double. Limbs are int64 "carry-save" digits: a double adds or subtracts three
// 32-bit pieces, so a limb absorbs 2^31 additions before it must be normalized.
constexpr int kExactLimbs = 68;

struct ExactSum {
  int64_t limb[kExactLimbs] = {};

  // The three pieces of finite double d: limb index k and signed pieces p[0..2] for
  // limbs k, k+1, k+2. Shared with the GPU so both add identical integers.
  GXSORT_HD static void split(double d, int& k, int64_t p[3]) {
#if defined(__CUDA_ARCH__)
    const uint64_t bits = uint64_t(__double_as_longlong(d));
#else
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
#endif
    const unsigned e = unsigned(bits >> 52) & 0x7ffu;
    uint64_t m = bits & ((uint64_t(1) << 52) - 1);
    if (e != 0) m |= uint64_t(1) << 52;
    const unsigned pos = e == 0 ? 0 : e - 1;  // bit position of m's lowest bit
    k = int(pos / 32);
    const unsigned s = pos % 32;
    const uint64_t lo = m << s;                        // low 64 bits of m << s
    const uint64_t hi = s == 0 ? 0 : (m >> (64 - s));  // bits above 64
    const int64_t sign = (bits >> 63) ? -1 : 1;
    p[0] = sign * int64_t(lo & 0xffffffffu);
    p[1] = sign * int64_t(lo >> 32);
    p[2] = sign * int64_t(hi);
  }
  void add(double d) {
    int k;
    int64_t p[3];
    split(d, k, p);
    limb[k] += p[0];
    limb[k + 1] += p[1];
    limb[k + 2] += p[2];
  }
  void add(const ExactSum& o) {
    for (int i = 0; i < kExactLimbs; ++i) limb[i] += o.limb[i];
  }
  // Carry so that limbs 0..66 lie in [0, 2^32); the top limb holds the sign.
  void normalize();
  bool is_zero() const;
  // The exact sum rounded to the nearest double (ties to even; ±inf past the range).
  double to_double() const;
  bool operator==(const ExactSum& o) const;
};

// A chunk's (or several consecutive chunks') partial result; all ops at once, so the
// caller can reduce first and choose what to print after.
struct ReducePartial {
  uint64_t first = 0;  // index of the first record covered
  uint64_t count = 0;  // records covered
  unsigned __int128 isum = 0;         // integer keys: exact sum mod 2^128 (two's complement)
  uint64_t min_order = ~uint64_t(0);  // order word (reverse=false) of the smallest key
  uint64_t max_order = 0;             // ... of the largest key
  // Float keys: exact sum of the finite block sums, and counts of the blocks whose
  // tree sum was NaN, +inf or -inf.
  ExactSum fsum;
  uint64_t nan_blocks = 0, pinf_blocks = 0, ninf_blocks = 0;

  bool operator==(const ReducePartial& o) const;
};

// Throws usage Error "reduce needs a typed key" for byte keys, and when first_index
// is not a multiple of kReduceBlock.
void check_reducible(const Format& f, uint64_t first_index);

ReducePartial reduce_chunk_cpu(const Format& f, const unsigned char* records, size_t n,
                               uint64_t first_index);

// `next` must follow `into` in file order (empty partials combine with anything).
void combine(ReducePartial& into, const ReducePartial& next);

// The float sum as a double (NaN / ±inf rules above); the integer sum as a double.
double partial_sum_as_double(const Format& f, const ReducePartial& p);

// The values of `op` (gxsort/reduce_value.hpp): count, sum, min, max, mean one each,
// minmax two. Integer sums are exact; min and max are the keys themselves (f32 keys
// with the 9 digits that give them back). Empty input: count 0, sum 0, and none for
// min, max, minmax and mean.
std::vector<ReduceValue> reduce_values(const Format& f, ReduceOp op, const ReducePartial& p);

}  // namespace gxsort
