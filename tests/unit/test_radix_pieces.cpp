// The radix sort's building blocks on their own: the sorting networks that finish
// small buckets, the cache-line scatter of its first pass, and its key transforms.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/line_scatter.hpp"
#include "kernels/radix_sort.hpp"
#include "kernels/sorting_network.hpp"

using namespace gxsort;

namespace {

// A network of N inputs sorts every input iff it sorts every 0-1 input (Knuth's 0-1
// principle): all 2^N of them for N <= 16.
template <size_t N>
bool sorts_every_zero_one_input() {
  for (uint32_t bits = 0; bits < (uint32_t(1) << N); ++bits) {
    uint64_t v[N];
    for (size_t i = 0; i < N; ++i) v[i] = (bits >> i) & 1;
    network::sort_fixed<N>(v);
    if (!std::is_sorted(v, v + N)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("sorting networks of 4, 8 and 16 inputs sort every 0-1 input; 32 sorts random 0-1 and random inputs") {
  CHECK(sorts_every_zero_one_input<4>());
  CHECK(sorts_every_zero_one_input<8>());
  CHECK(sorts_every_zero_one_input<16>());
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20000; ++trial) {
    uint64_t v[32];
    for (auto& x : v) x = trial % 2 ? rng() & 1 : rng() % 50;
    network::sort_fixed<32>(v);
    REQUIRE(std::is_sorted(v, v + 32));
  }
}

TEST_CASE("small_sort sorts every size 0..32 into another buffer or in place, keys mapped on the way out") {
  std::mt19937_64 rng(4);
  const auto plus_one = [](uint64_t k) { return k + 1; };
  for (size_t m = 0; m <= network::kMaxKeys; ++m) {
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<uint64_t> src(m), dst(m, 7);
      for (auto& x : src) {
        const uint64_t r = rng();
        // Duplicates, and the largest key, which is also the networks' padding.
        x = trial % 3 == 0 ? r % 3 : trial % 3 == 1 ? (r % 2 ? ~uint64_t(0) - 1 : r) : r;
      }
      std::vector<uint64_t> want = src;
      std::sort(want.begin(), want.end());
      for (auto& x : want) x += 1;
      network::small_sort(src.data(), dst.data(), m, plus_one);
      REQUIRE(dst == want);
      std::vector<uint32_t> s32(m);
      for (auto& x : s32) x = trial % 2 ? uint32_t(rng() % 4) : uint32_t(rng());
      std::vector<uint32_t> w32 = s32;
      std::sort(w32.begin(), w32.end());
      network::small_sort(s32.data(), s32.data(), m, [](uint32_t k) { return k; });
      REQUIRE(s32 == w32);
    }
  }
}

TEST_CASE("u64 networks, in AVX-512 registers and scalar, sort every size 0..32 and touch nothing past it") {
  const bool avx = network::avx512_sort_available();
  if (!avx) MESSAGE("this CPU has no AVX-512F: only the scalar u64 networks are tested");
  std::mt19937_64 rng(6);
  const auto same = [](uint64_t k) { return k; };
  for (size_t m = 0; m <= network::kMaxKeys; ++m)
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<uint64_t> src(m + 8, 5), dst(m + 8, 5);  // 8 canaries past the keys
      for (size_t i = 0; i < m; ++i) {
        const uint64_t r = rng();
        // Duplicates, the padding key itself and its neighbour, keys of every scale.
        src[i] = trial % 4 == 0 ? r % 3 : trial % 4 == 1 ? (r % 2 ? ~uint64_t(0) : ~uint64_t(0) - 1) : r >> (r % 64);
      }
      std::vector<uint64_t> want(src.begin(), src.begin() + long(m));
      std::sort(want.begin(), want.end());
      want.resize(m + 8, 5);
      network::small_sort<uint64_t>(src.data(), dst.data(), m, same);  // the scalar template
      REQUIRE(dst == want);
      if (avx) {
        std::fill(dst.begin(), dst.end(), 5);
        network::sort_u64_avx512(src.data(), dst.data(), m);
        REQUIRE(dst == want);
        // With an XorMap applied in the registers (f64's inverse transform, reversed).
        KeyOrder<uint64_t> f64_reversed;
        f64_reversed.type = KeyType::f64;
        f64_reversed.reverse = true;
        const XorMap<uint64_t> map = f64_reversed.from_map();
        std::vector<uint64_t> mapped = want;
        for (size_t i = 0; i < m; ++i) mapped[i] = map(want[i]);
        std::fill(dst.begin(), dst.end(), 5);
        network::sort_u64_avx512(src.data(), dst.data(), m, map.a, map.b);
        REQUIRE(dst == mapped);
        std::fill(dst.begin(), dst.end(), 5);
        network::small_sort(src.data(), dst.data(), m, map);  // the AVX-512 path for m > 4
        REQUIRE(dst == mapped);
        network::sort_u64_avx512(src.data(), src.data(), m);  // in place
        REQUIRE(src == want);
      }
    }
}

// Buckets of random sizes, each split among "threads" that own consecutive parts of it
// (as the radix sort's blocks do), written through one LineScatter per thread into a
// destination at every offset from a block (of 4 lines): equal to a plain scatter.
template <class K>
void check_line_scatter(std::mt19937_64& rng) {
  constexpr size_t kAlignKeys = LineScatter<K>::kBlockKeys;
  for (int trial = 0; trial < 60; ++trial) {
    const unsigned threads = 1 + unsigned(rng() % 3);
    const size_t n = trial % 5 == 0 ? rng() % 40 : rng() % 20000;
    // Keys with their digit in the low byte; every key distinct, so order shows.
    std::vector<K> keys(n);
    for (size_t i = 0; i < n; ++i) {
      const unsigned digit = trial % 7 == 0 ? unsigned(rng() % 3) : unsigned(rng() % 256);
      keys[i] = K((uint64_t(i) << 8) | digit);
    }
    std::vector<size_t> block(threads + 1);
    for (unsigned t = 0; t <= threads; ++t) block[t] = n * t / threads;
    // Positions digit-major, block-minor.
    std::vector<std::vector<size_t>> first(threads, std::vector<size_t>(256)), end = first;
    std::vector<std::vector<size_t>> count(threads, std::vector<size_t>(256, 0));
    for (unsigned t = 0; t < threads; ++t)
      for (size_t i = block[t]; i < block[t + 1]; ++i) ++count[t][keys[i] & 0xff];
    size_t sum = 0;
    for (size_t d = 0; d < 256; ++d)
      for (unsigned t = 0; t < threads; ++t) { first[t][d] = sum; sum += count[t][d]; end[t][d] = sum; }
    std::vector<K> want(n);
    for (unsigned t = 0; t < threads; ++t) {
      std::vector<size_t> off = first[t];
      for (size_t i = block[t]; i < block[t + 1]; ++i) want[off[keys[i] & 0xff]++] = keys[i];
    }
    for (size_t shift = 0; shift < kAlignKeys; ++shift) {
      std::vector<K, std::allocator<K>> storage(n + 2 * kAlignKeys, K(0x5a5a5a5a));
      K* base = storage.data();
      while (reinterpret_cast<uintptr_t>(base) % LineScatter<K>::kBlockBytes) ++base;
      K* dst = base + shift;
      for (unsigned t = 0; t < threads; ++t) {
        LineScatter<K> out(dst, first[t].data(), end[t].data());
        std::vector<size_t> off = first[t];
        for (size_t i = block[t]; i < block[t + 1]; ++i) {
          const unsigned d = unsigned(keys[i] & 0xff);
          out.put(d, off[d]++, keys[i]);
        }
        CHECK_FALSE(out.overflowed());
        out.finish(off.data());
      }
      INFO("n=" << n << " threads=" << threads << " shift=" << shift);
      REQUIRE(std::equal(want.begin(), want.end(), dst));
      // Nothing written outside [dst, dst + n).
      CHECK(std::all_of(storage.data(), dst, [](K x) { return x == K(0x5a5a5a5a); }));
      CHECK(std::all_of(dst + n, storage.data() + storage.size(), [](K x) { return x == K(0x5a5a5a5a); }));
    }
  }
}

TEST_CASE("LineScatter equals a plain scatter for u32 and u64, any line offset, buckets split among threads") {
  std::mt19937_64 rng(5);
  check_line_scatter<uint64_t>(rng);
  check_line_scatter<uint32_t>(rng);
}

// More keys put to a bucket than it was given room for (keys that changed between the
// count and the scatter): nothing is written at or past the bucket's end, and the
// scatterer says it overflowed.
TEST_CASE("LineScatter writes nothing past a bucket's end and reports the overflow") {
  using K = uint64_t;
  for (size_t room : {size_t(0), size_t(5), size_t(31), size_t(32), size_t(100)}) {
    std::vector<K> storage(4096, K(7));
    K* base = storage.data();
    while (reinterpret_cast<uintptr_t>(base) % LineScatter<K>::kBlockBytes) ++base;
    std::vector<size_t> first(256, 64), end(256, 64);
    end[3] = 64 + room;
    LineScatter<K> out(base, first.data(), end.data());
    for (size_t i = 0; i < room + 200; ++i) out.put(3, 64 + i, K(1000 + i));
    INFO("room=" << room);
    CHECK(out.overflowed());
    CHECK(std::all_of(base + 64 + room, storage.data() + storage.size(), [](K x) { return x == K(7); }));
    CHECK(std::all_of(storage.data(), base + 64, [](K x) { return x == K(7); }));
  }
}

// The XorMaps stand in for format.hpp's transforms inside the radix sort: equal to them
// on every key type and direction, at the values where the float cases turn (signed
// zeros, infinities, NaNs, the sign bit) and on random words.
template <class K>
void check_xor_maps(std::mt19937_64& rng) {
  const K sign = K(K(1) << (8 * sizeof(K) - 1));
  std::vector<K> words = {K(0), K(1), sign, K(sign - 1), K(sign + 1), K(~K(0)), K(~K(0) - 1)};
  if constexpr (sizeof(K) == 4) {
    for (uint32_t w : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x80000001u, 0x3f800000u})
      words.push_back(w);
  } else {
    for (uint64_t w : {0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                       0x7ff0000000000001ull, 0x8000000000000001ull, 0x3ff0000000000000ull})
      words.push_back(K(w));
  }
  for (int i = 0; i < 2000; ++i) words.push_back(K(rng()));
  const std::vector<KeyType> types = sizeof(K) == 4 ? std::vector<KeyType>{KeyType::u32, KeyType::i32, KeyType::f32}
                                                    : std::vector<KeyType>{KeyType::u64, KeyType::i64, KeyType::f64};
  for (KeyType t : types) {
    for (bool reverse : {false, true}) {
      KeyOrder<K> order;
      order.type = t;
      order.reverse = reverse;
      const XorMap<K> to = order.to_map(), from = order.from_map();
      for (K w : words) {
        INFO("type=" << int(t) << " reverse=" << reverse << " word=" << uint64_t(w));
        REQUIRE(to(w) == order.to(w));
        REQUIRE(from(w) == order.from(w));
      }
    }
  }
}

TEST_CASE("the radix sort's XorMap transforms equal format.hpp's for every key type, both directions") {
  std::mt19937_64 rng(8);
  check_xor_maps<uint32_t>(rng);
  check_xor_maps<uint64_t>(rng);
}
