// The merge kernels (basic, tiled, circular, thrust) against std::merge, the stable oracle:
// many sizes, degenerate shapes, misaligned pointers, several policies, the three element
// types; KeyIndex pairs (index = original position, a's before b's) make any instability
// visible. One test beyond 2^31 elements runs only with GXSORT_BIG_TESTS=1.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include "cuda_check.cuh"
#include "gpu_test_util.hpp"
#include "merge/corank.cuh"
#include "merge/merge.cuh"

namespace gc = gxsort::cuda;

namespace {

enum class Variant {
  basic, tiled, tiled_small, tiled_large, circular, circular_few, circular_fallback, circular_small, circular_odd,
  thrust
};
constexpr Variant kVariants[] = {Variant::basic,          Variant::tiled,        Variant::tiled_small,
                                 Variant::tiled_large,    Variant::circular,     Variant::circular_few,
                                 Variant::circular_fallback, Variant::circular_small, Variant::circular_odd,
                                 Variant::thrust};
// The circular test policies (and the default and fallback ones once more) run on at most
// this many blocks, so that every block walks many tiles (slots refilled after their
// staging rows, the pipeline's waits) even at the harness's small sizes.
constexpr uint64_t kFewBlocks = 3;

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::basic: return "basic";
    case Variant::tiled: return "tiled";
    case Variant::tiled_small: return "tiled<TiledPolicySmall>";
    case Variant::tiled_large: return "tiled<TiledPolicyLarge>";
    case Variant::circular: return "circular";
    case Variant::circular_few: return "circular<DefaultMergePolicy::circular>, 3 blocks";
    case Variant::circular_fallback: return "circular<DefaultMergePolicy::circular_fallback>, 3 blocks";
    case Variant::circular_small: return "circular<CircularPolicySmall>, 3 blocks";
    case Variant::circular_odd: return "circular<CircularPolicyOdd>, 3 blocks";
    case Variant::thrust: return "thrust";
  }
  return "?";
}

// Default policies go through the public merge() (and merge_temp_bytes), the others
// through the policy-templated entry points.
template <class T>
void run_variant(Variant v, const T* a, size_t na, const T* b, size_t nb, T* out, void* temp,
                 size_t temp_bytes) {
  switch (v) {
    case Variant::basic:
    case Variant::tiled:
    case Variant::circular:
    case Variant::thrust: {
      gxsort::MergeKernel k = v == Variant::basic ? gxsort::MergeKernel::basic
                          : v == Variant::tiled ? gxsort::MergeKernel::tiled
                          : v == Variant::circular ? gxsort::MergeKernel::circular
                                                   : gxsort::MergeKernel::thrust;
      REQUIRE(gc::merge_temp_bytes<T>(k, na, nb) <= temp_bytes);
      gc::merge<T>(k, a, na, b, nb, out, temp, temp_bytes, nullptr);
      break;
    }
    case Variant::tiled_small:
      gc::merge_tiled<T, gc::TiledPolicySmall>(a, na, b, nb, out, temp, temp_bytes, nullptr);
      break;
    case Variant::tiled_large:
      gc::merge_tiled<T, gc::TiledPolicyLarge>(a, na, b, nb, out, temp, temp_bytes, nullptr);
      break;
    case Variant::circular_fallback:
      gc::merge_circular<T, typename gc::DefaultMergePolicy<T>::circular_fallback>(a, na, b, nb, out, temp,
                                                                                   temp_bytes, nullptr, kFewBlocks);
      break;
    case Variant::circular_few:
      gc::merge_circular<T, typename gc::DefaultMergePolicy<T>::circular>(a, na, b, nb, out, temp, temp_bytes,
                                                                          nullptr, kFewBlocks);
      break;
    case Variant::circular_small:
      gc::merge_circular<T, gc::CircularPolicySmall>(a, na, b, nb, out, temp, temp_bytes, nullptr, kFewBlocks);
      break;
    case Variant::circular_odd:
      gc::merge_circular<T, gc::CircularPolicyOdd>(a, na, b, nb, out, temp, temp_bytes, nullptr, kFewBlocks);
      break;
  }
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
T make(uint64_t key);
template <>
uint32_t make<uint32_t>(uint64_t key) { return uint32_t(key); }
template <>
uint64_t make<uint64_t>(uint64_t key) { return key; }
template <>
gc::KeyIndex make<gc::KeyIndex>(uint64_t key) { return gc::KeyIndex{key, 0}; }

bool same(uint32_t x, uint32_t y) { return x == y; }
bool same(uint64_t x, uint64_t y) { return x == y; }
bool same(const gc::KeyIndex& x, const gc::KeyIndex& y) { return x.key == y.key && x.index == y.index; }
std::string show(uint64_t x) { return std::to_string(x); }
std::string show(const gc::KeyIndex& x) {
  return "(" + std::to_string(x.key) + ", " + std::to_string(x.index) + ")";
}

// Sorted inputs; for KeyIndex the index is the position in a, then na + position in b,
// so std::merge's output shows exactly where each element of a stable merge must go.
template <class T>
void number(std::vector<T>&, uint64_t) {}
template <>
void number<gc::KeyIndex>(std::vector<gc::KeyIndex>& v, uint64_t first) {
  for (size_t i = 0; i < v.size(); ++i) v[i].index = first + i;
}

template <class T>
std::vector<T> sorted_keys(size_t n, uint64_t lo, uint64_t hi, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = make<T>(hi > lo ? lo + rng() % (hi - lo) : lo);
  std::sort(v.begin(), v.end());
  return v;
}

// Device buffers reused across cases, with a guard zone after the output that must stay
// untouched and element offsets that make a, b and out misaligned for 16-byte access.
template <class T>
struct Harness {
  static constexpr size_t kGuard = 64;
  static constexpr size_t kPad = 4;
  T* d_a = nullptr;
  T* d_b = nullptr;
  T* d_out = nullptr;
  void* d_temp = nullptr;
  size_t cap = 0;
  size_t temp_bytes = 1 << 20;
  int cases = 0;

  Harness() { GXSORT_CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes)); }
  ~Harness() {
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    cudaFree(d_temp);
  }
  void reserve(size_t n) {
    if (n <= cap) return;
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    cap = n;
    GXSORT_CUDA_CHECK(cudaMalloc(&d_a, (cap + kPad) * sizeof(T)));
    GXSORT_CUDA_CHECK(cudaMalloc(&d_b, (cap + kPad) * sizeof(T)));
    GXSORT_CUDA_CHECK(cudaMalloc(&d_out, (2 * cap + kPad + kGuard) * sizeof(T)));
  }

  // Runs every variant on (a, b), with aligned pointers and with offset ones.
  void check(std::vector<T> a, std::vector<T> b, const std::string& what) {
    number(a, 0);
    number(b, a.size());
    std::vector<T> expect(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin());
    reserve(std::max(a.size(), b.size()) + 1);
    const size_t total = expect.size();
    // Element offsets of a, b and out: aligned, then each of a, b and out misaligned for
    // 16-byte access in some triple (u64: a and out, then b and out; u32: all three).
    const size_t offsets[3][3] = {{0, 0, 0}, {1, 2, 3}, {2, 1, 1}};
    for (int misaligned = 0; misaligned < 3; ++misaligned) {
      const size_t oa = offsets[misaligned][0], ob = offsets[misaligned][1], oo = offsets[misaligned][2];
      T* a_ptr = d_a + oa;
      T* b_ptr = d_b + ob;
      T* o_ptr = d_out + oo;
      if (!a.empty())
        GXSORT_CUDA_CHECK(cudaMemcpy(a_ptr, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
      if (!b.empty())
        GXSORT_CUDA_CHECK(cudaMemcpy(b_ptr, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
      for (Variant v : kVariants) {
        // Poison the output and the guard zone after it, and the temp: a kernel must not
        // trust what a temp holds (the circular merge's tile counter starts from 0 only if
        // its partition resets it).
        GXSORT_CUDA_CHECK(cudaMemset(o_ptr, 0xCD, (total + kGuard) * sizeof(T)));
        GXSORT_CUDA_CHECK(cudaMemset(d_temp, 0xEE, temp_bytes));
        run_variant<T>(v, a.empty() ? nullptr : a_ptr, a.size(), b.empty() ? nullptr : b_ptr,
                       b.size(), o_ptr, d_temp, temp_bytes);
        std::vector<T> got(total + kGuard);
        GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), o_ptr, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
        size_t bad = total;
        for (size_t i = 0; i < total; ++i)
          if (!same(got[i], expect[i])) {
            bad = i;
            break;
          }
        INFO(what << ": na=" << a.size() << " nb=" << b.size() << " kernel=" << variant_name(v)
                  << " offsets " << oa << "," << ob << "," << oo);
        if (bad != total)
          FAIL_CHECK("first mismatch at " << bad << ": got " << show(got[bad]) << ", want "
                                          << show(expect[bad]));
        bool guard_ok = true;
        for (size_t i = total; i < total + kGuard; ++i) {
          unsigned char pattern[sizeof(T)];
          std::memset(pattern, 0xCD, sizeof(T));
          if (std::memcmp(&got[i], pattern, sizeof(T)) != 0) guard_ok = false;
        }
        if (!guard_ok) FAIL_CHECK("wrote past the end of out");
        ++cases;
      }
      // a nullptr input needs no misaligned rerun when both are empty
      if (total == 0) break;
    }
  }
};

const size_t kSizes[] = {0,    1,    2,    3,    5,    7,     31,    32,    33,    63,    64,   65,
                         127,  128,  129,  255,  256,  257,   1000,  1023,  1024,  1025,  2047, 2048,
                         2049, 4095, 4096, 4097, 4607, 4608, 4609, 7919, 10240, 10241, 65535, 65536,
                         65537, 99991, 100000};

}  // namespace

TEST_CASE("co_rank on the host matches a brute-force stable merge") {
  std::mt19937_64 rng(7);
  for (int rep = 0; rep < 300; ++rep) {
    const size_t m = rng() % 40, n = rng() % 40;
    const uint64_t range = 1 + rng() % 10;
    std::vector<uint64_t> a(m), b(n);
    for (auto& x : a) x = rng() % range;
    for (auto& x : b) x = rng() % range;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    // Brute force: tag each element with its source and merge stably.
    std::vector<std::pair<uint64_t, int>> tagged;
    for (auto x : a) tagged.push_back({x, 0});
    for (auto x : b) tagged.push_back({x, 1});
    std::stable_sort(tagged.begin(), tagged.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    size_t from_a = 0;
    for (size_t k = 0; k <= m + n; ++k) {
      REQUIRE(gc::co_rank(k, a.data(), m, b.data(), n) == from_a);
      // The same from any guess (in range or not) and reach, bounded by the true co-rank's
      // neighbourhood or not at all.
      const uint64_t guess = rng() % (m + 3), reach = rng() % 6;
      const uint64_t lo = rng() % 2 ? 0 : from_a - std::min<uint64_t>(from_a, rng() % 4);
      const uint64_t hi = rng() % 2 ? m : std::min<uint64_t>(m, from_a + rng() % 4);
      REQUIRE(gc::co_rank_guessed<uint64_t>(k, a.data(), m, b.data(), n, lo, hi, guess, reach) == from_a);
      if (k < m + n && tagged[k].second == 0) ++from_a;
    }
  }
}

TEST_CASE("the two-pass partition gives every split point the host co_rank gives") {
  GPU_TEST_REQUIRE_DEVICE();
  // Sections and strides that leave coarse ranges of 1, 2 and many split points (more than
  // a block has threads: 300), a last section shorter than the others, past the end (the
  // rank clamped to m + n), and co-ranks far from the line between their interval's ends
  // (keys 0 and 1 only; one input 30 times the other).
  std::mt19937_64 rng(11);
  struct Shape { size_t m, n; uint64_t range, section; uint32_t stride; };
  for (const Shape& sh : std::vector<Shape>{{0, 5, 9, 2, 1}, {7, 0, 9, 3, 2}, {1, 1, 2, 1, 128},
                                            {1000, 999, 7, 5, 1}, {1000, 999, 7, 5, 3}, {5000, 3001, 1000, 13, 128},
                                            {20000, 20011, 3, 7, 16}, {50000, 1, 1u << 30, 9, 128},
                                            {77777, 66666, 1ull << 40, 1, 128}, {40000, 41000, 1u << 20, 3, 64},
                                            {60000, 50000, 1u << 20, 11, 300}, {60000, 70000, 2, 5, 64},
                                            {3000, 90000, 1u << 20, 1, 64}}) {
    std::vector<uint64_t> a(sh.m), b(sh.n);
    for (auto& x : a) x = rng() % sh.range;
    for (auto& x : b) x = rng() % sh.range;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const uint64_t count = (sh.m + sh.n + sh.section - 1) / sh.section + 2;  // the last one past the end
    uint64_t *d_a, *d_b, *d_splits;
    GXSORT_CUDA_CHECK(cudaMalloc(&d_a, (sh.m + 1) * 8));
    GXSORT_CUDA_CHECK(cudaMalloc(&d_b, (sh.n + 1) * 8));
    GXSORT_CUDA_CHECK(cudaMalloc(&d_splits, count * 8));
    GXSORT_CUDA_CHECK(cudaMemcpy(d_a, a.data(), sh.m * 8, cudaMemcpyHostToDevice));
    GXSORT_CUDA_CHECK(cudaMemcpy(d_b, b.data(), sh.n * 8, cudaMemcpyHostToDevice));
    GXSORT_CUDA_CHECK(cudaMemset(d_splits, 0xFF, count * 8));
    gc::co_rank_splits_two_pass<uint64_t>(d_a, sh.m, d_b, sh.n, sh.section, count, sh.stride, d_splits, nullptr);
    std::vector<uint64_t> got(count);
    GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_splits, count * 8, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (uint64_t s = 0; s < count; ++s)
      wrong += got[s] != gc::co_rank(std::min<uint64_t>(s * sh.section, sh.m + sh.n), a.data(), sh.m, b.data(), sh.n);
    CAPTURE(sh.m);
    CAPTURE(sh.n);
    CAPTURE(sh.stride);
    CHECK(wrong == 0);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_splits);
  }
}

TEST_CASE("--merge-kernel names") {
  auto k = [](const char* t) { return gxsort::parse_choice(std::string(t), "--merge-kernel", gxsort::kMergeKernels); };
  CHECK(k("basic") == gxsort::MergeKernel::basic);
  CHECK(k("tiled") == gxsort::MergeKernel::tiled);
  CHECK(k("circular") == gxsort::MergeKernel::circular);
  CHECK(k("thrust") == gxsort::MergeKernel::thrust);
  CHECK(k("auto") == gxsort::MergeKernel::automatic);
  CHECK(std::string(gc::merge_kernel_name(gxsort::MergeKernel::tiled)) == "tiled");
  try {
    k("bitonic");
    FAIL("no exception");
  } catch (const gxsort::Error& e) {
    CHECK(e.code() == gxsort::ExitCode::usage);
  }
}

TEST_CASE("merge: temp storage smaller than merge_temp_bytes() is a usage error") {
  GPU_TEST_REQUIRE_DEVICE();
  // The circular kernel keeps one split point per tile, so its temp grows with the sizes.
  // merge() takes the default policy where it fits (here) and the fallback elsewhere, whose
  // smaller tiles need more: merge_temp_bytes() covers both, and a temp smaller than the
  // default's need is too small for either.
  const size_t n = 1 << 20;
  const auto circular = gxsort::MergeKernel::circular;
  const size_t need = gc::merge_temp_bytes<uint64_t>(circular, n, n);
  using Default = gc::DefaultMergePolicy<uint64_t>;
  const size_t need_default = gc::merge_circular_temp_bytes<Default::circular>(n, n);
  CHECK(need > gc::merge_temp_bytes<uint64_t>(circular, 1, 1));
  CHECK(need >= need_default);
  CHECK(need >= gc::merge_circular_temp_bytes<Default::circular_fallback>(n, n));
  uint64_t *a, *b, *out;
  void* temp;
  GXSORT_CUDA_CHECK(cudaMalloc(&a, n * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&b, n * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&out, 2 * n * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&temp, need));
  std::vector<uint64_t> evens(n), odds(n);
  for (size_t i = 0; i < n; ++i) {
    evens[i] = 2 * i;
    odds[i] = 2 * i + 1;
  }
  GXSORT_CUDA_CHECK(cudaMemcpy(a, evens.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  GXSORT_CUDA_CHECK(cudaMemcpy(b, odds.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  try {
    gc::merge<uint64_t>(circular, a, n, b, n, out, temp, need_default - 8, nullptr);
    FAIL("no exception");
  } catch (const gxsort::Error& e) {
    CHECK(e.code() == gxsort::ExitCode::usage);
  }
  GXSORT_CUDA_CHECK(cudaMemset(out, 0xFF, 2 * n * sizeof(uint64_t)));
  gc::merge<uint64_t>(circular, a, n, b, n, out, temp, need, nullptr);
  std::vector<uint64_t> got(2 * n);
  GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  size_t in_place = 0;
  for (size_t i = 0; i < got.size(); ++i) in_place += got[i] == i;
  CHECK(in_place == got.size());
  cudaFree(a);
  cudaFree(b);
  cudaFree(out);
  cudaFree(temp);
}

TEST_CASE_TEMPLATE("merge kernels match std::merge: random inputs of many sizes", T, uint32_t,
                   uint64_t, gc::KeyIndex) {
  GPU_TEST_REQUIRE_DEVICE();
  Harness<T> h;
  std::mt19937_64 rng(42);
  const uint64_t full = sizeof(T) == 4 ? (1ull << 32) : ~0ull;
  int c = 0;
  for (size_t s : kSizes) {
    const size_t partners[] = {s, 0, 1, s / 3 + 7, s / 13, size_t(rng() % 100001)};
    for (size_t p : partners) {
      // Alternate full-range keys with heavy duplicates (16 distinct keys).
      const uint64_t hi = (c++ % 2) ? 16 : full;
      h.check(sorted_keys<T>(s, 0, hi, rng), sorted_keys<T>(p, 0, hi, rng), "random");
      h.check(sorted_keys<T>(p, 0, hi, rng), sorted_keys<T>(s, 0, hi, rng), "random, swapped");
    }
  }
  MESSAGE(h.cases << " kernel runs checked");
}

TEST_CASE_TEMPLATE("merge kernels match std::merge: degenerate shapes", T, uint32_t, uint64_t,
                   gc::KeyIndex) {
  GPU_TEST_REQUIRE_DEVICE();
  Harness<T> h;
  std::mt19937_64 rng(1234);
  auto fill = [](size_t n, uint64_t first, uint64_t step) {
    std::vector<T> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = make<T>(first + i * step);
    return v;
  };
  h.check({}, {}, "both empty");
  h.check(fill(1, 5, 0), {}, "one element, b empty");
  h.check({}, fill(1, 5, 0), "one element, a empty");
  h.check(sorted_keys<T>(100000, 0, 1000, rng), {}, "b empty");
  h.check({}, sorted_keys<T>(100000, 0, 1000, rng), "a empty");
  for (size_t n : {1, 33, 1000, 5000, 70001}) {
    // All keys equal: a stable merge is all of a, then all of b.
    h.check(fill(n, 5, 0), fill(n + 3, 5, 0), "all keys equal");
    h.check(fill(n, 0, 1), fill(n, n, 1), "disjoint, a before b");
    h.check(fill(n, n, 1), fill(n, 0, 1), "disjoint, b before a");
    h.check(fill(n, 0, 1), fill(n, n - 1, 1), "touching: a's last equals b's first");
    h.check(fill(n, 0, 2), fill(n, 1, 2), "interleaved evens and odds");
    h.check(fill(n, 0, 2), fill(n, 0, 2), "identical inputs");
    h.check(fill(n, 0, 3), fill(2 * n + 1, 0, 1), "interleaved, unequal rates");
  }
  // Very unbalanced.
  for (size_t small : {1, 2, 3, 17}) {
    h.check(sorted_keys<T>(100000 - small, 0, 5000, rng), sorted_keys<T>(small, 0, 5000, rng),
            "unbalanced, b tiny");
    h.check(sorted_keys<T>(small, 0, 5000, rng), sorted_keys<T>(100000 - small, 0, 5000, rng),
            "unbalanced, a tiny");
  }
  // One input exhausted in the middle of a tile: a's keys are all below a limit, so a runs
  // out near output na + nb * limit / 1e6; the limits and sizes spread that point over
  // every offset within the tiles of every policy.
  for (size_t na : {1, 5, 50, 500, 700, 3001}) {
    for (uint64_t limit : {1, 100, 1000, 7000, 50000, 300000}) {
      h.check(sorted_keys<T>(na, 0, limit, rng), sorted_keys<T>(20000, 0, 1000000, rng),
              "a exhausted early");
      h.check(sorted_keys<T>(20000, 0, 1000000, rng), sorted_keys<T>(na, 0, limit, rng),
              "b exhausted early");
      h.check(sorted_keys<T>(na, 1000000 - limit, 1000000, rng),
              sorted_keys<T>(20000, 0, 1000000, rng), "a starts late");
    }
  }
  MESSAGE(h.cases << " kernel runs checked");
}

// ---- Beyond 2^31 elements ----------------------------------------------------------------
namespace {

// One circular merge of random u64 runs on exactly `blocks` blocks (max_blocks caps the
// grid, which holds more of these policies on any GPU with 20 SMs or more), most tiles
// taken from the tile counter. Besides the output, the counter's final value (the last
// word of the temp, merge_circular_temp_bytes) shows the hand-out was exactly once: each
// tile past the fixed ones (Stages + 3 a block, TileOrder) taken once, plus one claim past
// the end by each block. A tile merged twice writes the same bytes; this catches it.
template <class Policy>
void check_tile_hand_out(uint64_t blocks, size_t na, size_t nb) {
  std::mt19937_64 rng(blocks);
  const auto a = sorted_keys<uint64_t>(na, 0, ~0ull, rng), b = sorted_keys<uint64_t>(nb, 0, 1000, rng);
  std::vector<uint64_t> want(na + nb), got(na + nb);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
  const uint64_t tiles = (na + nb + Policy::tile - 1) / Policy::tile;
  const uint64_t fixed = uint64_t(Policy::stages + 3) * blocks;
  REQUIRE(tiles > fixed);
  const size_t temp_bytes = gc::merge_circular_temp_bytes<Policy>(na, nb);
  REQUIRE(temp_bytes == (tiles + 2) * sizeof(uint64_t));
  uint64_t *d_a, *d_b, *d_out, *d_temp;
  GXSORT_CUDA_CHECK(cudaMalloc(&d_a, na * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_b, nb * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_out, (na + nb) * sizeof(uint64_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
  GXSORT_CUDA_CHECK(cudaMemcpy(d_a, a.data(), na * sizeof(uint64_t), cudaMemcpyHostToDevice));
  GXSORT_CUDA_CHECK(cudaMemcpy(d_b, b.data(), nb * sizeof(uint64_t), cudaMemcpyHostToDevice));
  GXSORT_CUDA_CHECK(cudaMemset(d_temp, 0xEE, temp_bytes));
  gc::merge_circular<uint64_t, Policy>(d_a, na, d_b, nb, d_out, d_temp, temp_bytes, nullptr, blocks);
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  uint64_t counter = 0;
  GXSORT_CUDA_CHECK(cudaMemcpy(&counter, d_temp + tiles + 1, sizeof counter, cudaMemcpyDeviceToHost));
  INFO("tile " << Policy::tile << ", stages " << Policy::stages << ", " << blocks << " blocks, " << tiles << " tiles");
  CHECK(got == want);
  CHECK(counter == tiles - fixed + blocks);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_out);
  cudaFree(d_temp);
}

}  // namespace

TEST_CASE("circular merge: many blocks take tiles from the counter, each tile exactly once") {
  GPU_TEST_REQUIRE_DEVICE();
  check_tile_hand_out<gc::CircularPolicySmall>(200, 3000001, 2000003);  // 156,251 tiles of 32
  check_tile_hand_out<gc::CircularPolicyOdd>(60, 3000001, 2000003);     // 3 stages, 7,441 tiles of 672
  check_tile_hand_out<gc::DefaultMergePolicy<uint64_t>::circular>(40, 3000001, 2000003);
}

namespace {

__device__ __host__ inline uint32_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return uint32_t(x);
}

// Sorted by construction: a[i] = 2i + {0,1} and b[i] = floor(2.4 i) + {0,1} are
// non-decreasing (each step adds at least 2 and the jitter is at most 1), with many ties
// between them; both stay below 2^32 for the sizes used.
__global__ void fill_big_kernel(uint32_t* a, uint64_t na, uint32_t* b, uint64_t nb) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < na + nb; i += stride) {
    if (i < na)
      a[i] = uint32_t(2 * i + (mix(i) & 1));
    else {
      const uint64_t t = i - na;
      b[t] = uint32_t(t * 12 / 5 + (mix(t ^ 0x9e3779b97f4a7c15ull) & 1));
    }
  }
}

struct BigStats {
  unsigned long long sum;
  unsigned long long xr;
  unsigned long long descents;
  unsigned long long mismatches;
};

// Sum and xor of v (to compare a merge's output with its inputs), descents (v[i+1] < v[i]),
// and mismatches against ref when ref is given.
__global__ void big_stats_kernel(const uint32_t* v, uint64_t n, const uint32_t* ref, BigStats* s) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long sum = 0, xr = 0, desc = 0, mis = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t x = v[i];
    sum += x;
    xr ^= x;
    if (i + 1 < n && v[i + 1] < x) ++desc;
    if (ref && ref[i] != x) ++mis;
  }
  atomicAdd(&s->sum, sum);
  atomicXor(&s->xr, xr);
  atomicAdd(&s->descents, desc);
  atomicAdd(&s->mismatches, mis);
}

BigStats big_stats(const uint32_t* v, uint64_t n, const uint32_t* ref, BigStats* d_stats) {
  GXSORT_CUDA_CHECK(cudaMemset(d_stats, 0, sizeof(BigStats)));
  big_stats_kernel<<<132 * 16, 256>>>(v, n, ref, d_stats);
  GXSORT_CUDA_CHECK_LAUNCH("big_stats_kernel");
  BigStats s;
  GXSORT_CUDA_CHECK(cudaMemcpy(&s, d_stats, sizeof s, cudaMemcpyDeviceToHost));
  return s;
}

}  // namespace

TEST_CASE("merge kernels beyond 2^31 elements (uint32_t, 1.2e9 + 1.0e9)") {
  GPU_TEST_REQUIRE_DEVICE();
  const char* env = std::getenv("GXSORT_BIG_TESTS");
  if (!env || std::string(env) != "1") {
    std::printf("SKIPPED (set GXSORT_BIG_TESTS=1 to run; needs ~27 GB of GPU memory): merge beyond 2^31 elements\n");
    MESSAGE("SKIPPED: set GXSORT_BIG_TESTS=1");
    return;
  }
  const uint64_t na = 1200000000ull, nb = 1000000001ull, total = na + nb;
  REQUIRE(total > (1ull << 31));
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t need = (2 * total) * sizeof(uint32_t) + (na + nb) * sizeof(uint32_t) + (64 << 20);
  if (free_b < need) {
    std::printf("SKIPPED (GPU has %zu MB free, needs %zu MB): merge beyond 2^31 elements\n",
                free_b >> 20, need >> 20);
    MESSAGE("SKIPPED: not enough GPU memory");
    return;
  }
  uint32_t *a, *b, *ref, *out;
  BigStats* d_stats;
  void* temp;
  size_t temp_bytes = 0;
  for (auto k : {gxsort::MergeKernel::basic, gxsort::MergeKernel::tiled, gxsort::MergeKernel::circular})
    temp_bytes = std::max(temp_bytes, gc::merge_temp_bytes<uint32_t>(k, na, nb));
  GXSORT_CUDA_CHECK(cudaMalloc(&a, na * sizeof(uint32_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&b, nb * sizeof(uint32_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&ref, total * sizeof(uint32_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&out, total * sizeof(uint32_t)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_stats, sizeof(BigStats)));
  GXSORT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  fill_big_kernel<<<132 * 16, 256>>>(a, na, b, nb);
  GXSORT_CUDA_CHECK_LAUNCH("fill_big_kernel");

  const BigStats sa = big_stats(a, na, nullptr, d_stats);
  const BigStats sb = big_stats(b, nb, nullptr, d_stats);
  CHECK(sa.descents == 0);
  CHECK(sb.descents == 0);

  // thrust::merge is the reference here: check it, then compare the others with it.
  gc::merge<uint32_t>(gxsort::MergeKernel::thrust, a, na, b, nb, ref, temp, temp_bytes, nullptr);
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const BigStats sr = big_stats(ref, total, nullptr, d_stats);
  CHECK(sr.descents == 0);
  CHECK(sr.sum == sa.sum + sb.sum);
  CHECK(sr.xr == (sa.xr ^ sb.xr));
  std::printf("big merge: %llu elements, thrust reference sorted=%d checksum ok=%d\n",
              (unsigned long long)total, int(sr.descents == 0),
              int(sr.sum == sa.sum + sb.sum && sr.xr == (sa.xr ^ sb.xr)));

  for (auto k : {gxsort::MergeKernel::basic, gxsort::MergeKernel::tiled, gxsort::MergeKernel::circular}) {
    GXSORT_CUDA_CHECK(cudaMemset(out, 0, total * sizeof(uint32_t)));
    cudaEvent_t e0, e1;
    GXSORT_CUDA_CHECK(cudaEventCreate(&e0));
    GXSORT_CUDA_CHECK(cudaEventCreate(&e1));
    GXSORT_CUDA_CHECK(cudaEventRecord(e0));
    gc::merge<uint32_t>(k, a, na, b, nb, out, temp, temp_bytes, nullptr);
    GXSORT_CUDA_CHECK(cudaEventRecord(e1));
    GXSORT_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    GXSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    const BigStats s = big_stats(out, total, ref, d_stats);
    INFO("kernel " << gc::merge_kernel_name(k));
    CHECK(s.mismatches == 0);
    CHECK(s.descents == 0);
    CHECK(s.sum == sr.sum);
    CHECK(s.xr == sr.xr);
    std::printf("big merge: %-8s %.1f ms, mismatches vs thrust %llu, descents %llu\n",
                gc::merge_kernel_name(k), ms, s.mismatches, s.descents);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(ref);
  cudaFree(out);
  cudaFree(d_stats);
  cudaFree(temp);
}
