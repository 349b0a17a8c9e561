// Branch-free sorts of up to 32 unsigned keys: Batcher's odd-even merge networks of 4,
// 8, 16 and 32 inputs, unrolled at compile time, the unused inputs padded with the
// largest key. The radix sort finishes its smallest buckets with them: a comparison
// there is a coin toss that a branch predictor loses, while a network's compare-exchange
// is a compare and two conditional moves. Equal raw keys are equal bits, so an unstable
// network gives the one sorted result.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/sorting_network_avx512.hpp"
#include "kernels/xor_map.hpp"

namespace gxsort::network {

// The largest bucket a network sorts.
constexpr size_t kMaxKeys = 32;

struct Pair { uint8_t lo, hi; };

// Batcher's odd-even merge sort network of n inputs (a power of two): calls add(i, j)
// for each compare-exchange in an order that sorts.
template <class Add>
constexpr void batcher(size_t n, Add&& add) {
  for (size_t p = 1; p < n; p *= 2)
    for (size_t k = p; k >= 1; k /= 2)
      for (size_t j = k % p; j + k < n; j += 2 * k)
        for (size_t i = 0; i < k && i + j + k < n; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) add(i + j, i + j + k);
}

template <size_t N>
constexpr size_t batcher_size() {
  size_t count = 0;
  batcher(N, [&](size_t, size_t) { ++count; });
  return count;
}

template <size_t N>
struct Network {
  static constexpr auto pairs = [] {
    std::array<Pair, batcher_size<N>()> out{};
    size_t at = 0;
    batcher(N, [&](size_t i, size_t j) { out[at++] = Pair{uint8_t(i), uint8_t(j)}; });
    return out;
  }();
};

template <class K>
inline void compare_exchange(K& a, K& b) {
  const K x = a, y = b;
  a = x < y ? x : y;
  b = x < y ? y : x;
}

template <size_t N, class K, size_t... I>
inline void apply(K* v, std::index_sequence<I...>) {
  (compare_exchange(v[Network<N>::pairs[I].lo], v[Network<N>::pairs[I].hi]), ...);
}

// Sorts v[0, N) in place.
template <size_t N, class K>
inline void sort_fixed(K* v) {
  apply<N>(v, std::make_index_sequence<Network<N>::pairs.size()>{});
}

template <size_t N, class K, class Map>
inline void sort_padded(const K* src, K* dst, size_t m, Map out) {
  K v[N];
  for (size_t i = 0; i < N; ++i) v[i] = i < m ? src[i] : K(~K(0));
  sort_fixed<N>(v);
  for (size_t i = 0; i < m; ++i) dst[i] = out(v[i]);
}

// Sorts the m <= kMaxKeys keys of src into dst (which may be src), each mapped by out
// as it is stored.
template <class K, class Map>
inline void small_sort(const K* src, K* dst, size_t m, Map out) {
  if (m <= 1) { if (m) dst[0] = out(src[0]); }
  else if (m <= 4) sort_padded<4>(src, dst, m, out);
  else if (m <= 8) sort_padded<8>(src, dst, m, out);
  else if (m <= 16) sort_padded<16>(src, dst, m, out);
  else sort_padded<32>(src, dst, m, out);
}

// u64 keys: in AVX-512 registers where the CPU has them (4 keys and fewer take the
// scalar network of 5 compare-exchanges). An XorMap is applied in the registers; any
// other map to the stored keys.
template <class Map>
inline void small_sort(const uint64_t* src, uint64_t* dst, size_t m, Map out) {
  if (m > 4 && avx512_sort_available()) {
    if constexpr (is_xor_map_v<Map>) {
      sort_u64_avx512(src, dst, m, out.a, out.b);
    } else {
      sort_u64_avx512(src, dst, m);
      for (size_t i = 0; i < m; ++i) dst[i] = out(dst[i]);
    }
    return;
  }
  small_sort<uint64_t, Map>(src, dst, m, out);
}

}  // namespace gxsort::network
