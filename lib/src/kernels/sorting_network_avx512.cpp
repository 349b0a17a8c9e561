// Bitonic sorting networks of 8, 16 and 32 u64 keys in AVX-512 registers (8 keys each):
// each step is one lane permute, a min, a max and a masked blend per register, where the
// scalar networks take a compare and two conditional moves per key pair. Compiled for
// AVX-512F through a target attribute and called only after a runtime check, so the
// binary still runs on CPUs without it.
#include "kernels/sorting_network_avx512.hpp"

#include <utility>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics start from deliberately undefined registers and warn so.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace gxsort::network {
namespace {

// Lane l of register r holds key 8r + l. In the bitonic step (k, j) key g meets key
// g ^ j; it keeps the larger of the two iff it is the pair's upper key in an ascending
// block (g & k == 0) or its lower key in a descending one.
constexpr bool takes_max(size_t g, size_t k, size_t j) { return ((g & j) != 0) != ((g & k) != 0); }

constexpr __mmask8 max_lanes(size_t r, size_t k, size_t j) {
  unsigned m = 0;
  for (size_t l = 0; l < 8; ++l) m |= unsigned(takes_max(8 * r + l, k, j)) << l;
  return __mmask8(m);
}

#define GXSORT_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// The lane permutation l -> l ^ j, for j = 1, 2, 4.
template <size_t J>
GXSORT_AVX512 __m512i lanes_xor() {
  if constexpr (J == 1) return _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1);
  else if constexpr (J == 2) return _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2);
  else return _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4);
}

// Register r's part of step (k, j) of the bitonic sort, every index and mask a constant.
template <size_t K, size_t J, size_t R>
GXSORT_AVX512 void step_register(__m512i* v) {
  if constexpr (J >= 8) {  // partners in register r ^ (j / 8), same lane; the lower one acts
    constexpr size_t Q = R ^ (J / 8);
    if constexpr (Q > R) {
      const __m512i lo = _mm512_min_epu64(v[R], v[Q]), hi = _mm512_max_epu64(v[R], v[Q]);
      constexpr bool kAscending = ((8 * R) & K) == 0;
      v[R] = kAscending ? lo : hi;
      v[Q] = kAscending ? hi : lo;
    }
  } else {  // partners inside the register
    constexpr __mmask8 kMax = max_lanes(R, K, J);
    const __m512i p = _mm512_permutexvar_epi64(lanes_xor<J>(), v[R]);
    v[R] = _mm512_mask_mov_epi64(_mm512_min_epu64(v[R], p), kMax, _mm512_max_epu64(v[R], p));
  }
}

template <size_t K, size_t J, size_t... R>
GXSORT_AVX512 void step(__m512i* v, std::index_sequence<R...>) {
  (step_register<K, J, R>(v), ...);
}

template <size_t V, size_t K, size_t J>
GXSORT_AVX512 void steps(__m512i* v) {
  step<K, J>(v, std::make_index_sequence<V>{});
  if constexpr (J > 1) steps<V, K, J / 2>(v);
}

// Sorts the 8V keys of v[0, V) ascending: blocks of K sorted for K = 2, 4, ..., 8V.
template <size_t V, size_t K = 2>
GXSORT_AVX512 void bitonic(__m512i* v) {
  steps<V, K, K / 2>(v);
  if constexpr (K < 8 * V) bitonic<V, 2 * K>(v);
}

template <size_t V>
__attribute__((target("avx512f"))) void sort_registers(const uint64_t* src, uint64_t* dst, size_t m, uint64_t a,
                                                       uint64_t b) {
  // Bit i set for each of the m keys; each register's lane mask is cut from it.
  const uint64_t present = (uint64_t(1) << m) - 1;
  __m512i v[V];
  for (size_t r = 0; r < V; ++r) {
    const __mmask8 keep = __mmask8(present >> (8 * r));
    const __m512i x = _mm512_maskz_loadu_epi64(keep, src + 8 * r);
    // The lanes past m get the largest key (all ones), which sorts after every real
    // one. They are set from x itself: the compilers' all-ones idiom (a vpternlogd of
    // whatever register) is not dependency-breaking on AMD Zen 4, so it chained each call
    // to the last one that wrote that register; calls ran one after the other, at their
    // full latency (measured on the 2-core VM, 8-key network, random m: 15.5 ns per call
    // with the idiom, 5.6 without).
    v[r] = _mm512_mask_ternarylogic_epi64(x, __mmask8(~keep), x, x, 0xff);
  }
  bitonic<V>(v);
  // The XorMap in registers: reading the stored keys back to map them would wait for the
  // masked stores to reach the cache (no store forwarding from them).
  const __m512i va = _mm512_set1_epi64(int64_t(a)), vb = _mm512_set1_epi64(int64_t(b));
  for (size_t r = 0; r < V; ++r) {
    const __m512i top = _mm512_srai_epi64(v[r], 63);  // all ones where the top bit is set
    const __m512i mapped = _mm512_xor_si512(v[r], _mm512_xor_si512(va, _mm512_and_si512(vb, top)));
    _mm512_mask_storeu_epi64(dst + 8 * r, __mmask8(present >> (8 * r)), mapped);
  }
}

}  // namespace

bool avx512_sort_available() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

void sort_u64_avx512(const uint64_t* src, uint64_t* dst, size_t m, uint64_t a, uint64_t b) {
  if (m <= 8) sort_registers<1>(src, dst, m, a, b);
  else if (m <= 16) sort_registers<2>(src, dst, m, a, b);
  else sort_registers<4>(src, dst, m, a, b);
}

}  // namespace gxsort::network

#else  // not x86-64 with GCC or Clang: never available

namespace gxsort::network {
bool avx512_sort_available() { return false; }
void sort_u64_avx512(const uint64_t*, uint64_t*, size_t, uint64_t, uint64_t) {}
}  // namespace gxsort::network

#endif
