// The CPU backend's chunk sort and the radix sort against std::stable_sort.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <vector>

#include "backend/backend.hpp"
#include "graph/graph.hpp"
#include "kernels/radix_sort.hpp"
#include "kernels/unique.hpp"
#include "../common/cpu_delegate.hpp"

using namespace gxsort;

namespace {

std::vector<size_t> sizes() { return {0, 1, 2, 3, 7, 31, 255, 256, 257, 1023, 1024, 1025, 7919, 65535, 65537, 200003}; }

// The oracle: std::stable_sort of record indices by the format's key order, then gather.
std::vector<unsigned char> oracle(const Format& f, const std::vector<unsigned char>& in) {
  const size_t rs = f.record_size, n = in.size() / rs;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
  std::vector<unsigned char> out(in.size());
  for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * rs], &in[idx[i] * rs], rs);
  return out;
}

enum class Shape { random, few, sorted, reverse, special };

std::vector<unsigned char> make_input(const Format& f, size_t n, Shape s, std::mt19937_64& rng) {
  const size_t rs = f.record_size;
  std::vector<unsigned char> v(n * rs);
  for (size_t i = 0; i < n; ++i) {
    unsigned char* r = &v[i * rs];
    for (size_t b = 0; b < rs; ++b) r[b] = uint8_t(rng());
    std::memcpy(r, &i, std::min<size_t>(rs, sizeof i));  // payload shows stability
    unsigned char* k = r + f.key_offset;
    uint64_t x = rng();
    if (s == Shape::few) x %= 5;
    if (s == Shape::sorted) x = i;
    if (s == Shape::reverse) x = n - i;
    if (s == Shape::special) {
      // NaNs of both signs and payloads, signed zeros, infinities for floats.
      static const uint64_t f64s[] = {0x7ff8000000000001ULL, 0xfff8000000000000ULL, 0x8000000000000000ULL, 0,
                                      0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x3ff0000000000000ULL};
      static const uint32_t f32s[] = {0x7fc00001u, 0xffc00000u, 0x80000000u, 0, 0x7f800000u, 0xff800000u, 0x3f800000u};
      if (f.key_type == KeyType::f32) x = f32s[rng() % 7];
      else x = f64s[rng() % 7];
    }
    if (f.key_type == KeyType::bytes) {
      for (size_t b = 0; b < f.key_bytes; ++b) k[b] = s == Shape::few ? uint8_t(rng() % 2) : uint8_t(rng());
      if (s == Shape::sorted || s == Shape::reverse)
        for (size_t b = 0; b < 8 && b < f.key_bytes; ++b) k[f.key_bytes - 1 - b] = uint8_t(x >> (8 * b));
    } else {
      std::memcpy(k, &x, f.key_bytes);
    }
  }
  return v;
}

std::vector<Format> formats() {
  std::vector<Format> fs;
  for (KeyType t : {KeyType::u32, KeyType::u64, KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64}) fs.push_back(Format::typed(t));
  Format r;
  r.record_size = 24; r.key_offset = 8; r.key_type = KeyType::i64; r.key_bytes = 8; fs.push_back(r);
  r.record_size = 12; r.key_offset = 4; r.key_type = KeyType::f32; r.key_bytes = 4; fs.push_back(r);
  r.record_size = 16; r.key_offset = 3; r.key_type = KeyType::bytes; r.key_bytes = 5; fs.push_back(r);
  r.record_size = 20; r.key_offset = 0; r.key_type = KeyType::bytes; r.key_bytes = 12; fs.push_back(r);
  fs.push_back(Format::gensort());
  return fs;
}

}  // namespace

TEST_CASE("radix_sort_copy equals std::sort for u32 and u64, 1 and 3 threads, with and without scratch") {
  std::mt19937_64 rng(11);
  KeyOrder<uint64_t> identity64;
  KeyOrder<uint32_t> identity32;
  for (size_t n : sizes()) {
    for (unsigned threads : {1u, 3u}) {
      for (int skew : {0, 1}) {
        // skew: most keys in one MSD bucket, which all threads then sort together.
        std::vector<uint64_t> a(n), t(n);
        for (auto& x : a) x = skew && rng() % 8 ? rng() % 1000 : rng() >> (rng() % 64);
        const std::vector<uint64_t> in = a;
        std::vector<uint64_t> want = a;
        std::sort(want.begin(), want.end());
        radix_sort_copy<uint64_t>(a.data(), t.data(), n, identity64, threads);
        CHECK(t == want);
        CHECK(a == in);
        // With the source itself as the buckets' scratch (how sort_chunk calls it).
        std::vector<uint64_t> a2 = in, t2(n);
        radix_sort_copy<uint64_t>(a2.data(), t2.data(), n, identity64, threads, a2.data());
        CHECK(t2 == want);
        std::vector<uint32_t> b(n), u(n);
        for (auto& x : b) x = skew && rng() % 8 ? uint32_t(rng() % 300) : uint32_t(rng());
        std::vector<uint32_t> want32 = b;
        std::sort(want32.begin(), want32.end());
        radix_sort_copy<uint32_t>(b.data(), u.data(), n, identity32, threads);
        CHECK(u == want32);
        radix_sort_copy<uint32_t>(b.data(), u.data(), n, identity32, threads, nullptr, {}, 64);  // a 10-bit first digit
        CHECK(u == want32);
      }
    }
  }
}

// MSD buckets of more than 2^16 keys take a second MSD pass before their LSD passes;
// keys drawn from a few top bytes make such buckets at the largest size (n / 3 and
// n / 16 keys), not at the others.
TEST_CASE("radix_sort_copy: buckets large enough for a second MSD level, skewed, with constant digits") {
  std::mt19937_64 rng(23);
  KeyOrder<uint64_t> order;
  order.type = KeyType::i64;
  order.reverse = true;  // the transform back is fused into the last pass of each level
  for (size_t n : {size_t(0), size_t(1), size_t(40000), size_t(140001), size_t(1200007)}) {
    for (unsigned threads : {1u, 3u}) {
      // On 3 threads buckets above n / 12 are sorted by all threads together: 16 top
      // bytes keep them below that.
      const uint64_t tops = threads == 1 ? 3 : 16;
      for (int shape = 0; shape < 5; ++shape) {
        std::vector<uint64_t> a(n), t(n);
        for (auto& x : a) {
          const uint64_t top = uint64_t(rng() % tops) << 56;
          switch (shape) {
            case 0: x = top | (rng() >> 8); break;                            // uniform below the top byte
            case 1: x = top | (uint64_t(0x5a) << 48) | (rng() >> 16); break;  // second byte constant
            case 2: x = top | (rng() % 5); break;                             // only low bits vary
            case 3: x = rng() % 4 ? top : top | (rng() >> 40); break;         // mostly equal keys
            default: x = 0x0123456789abcdefULL; break;                        // all equal
          }
        }
        std::vector<uint64_t> want = a;
        std::stable_sort(want.begin(), want.end(), [&](uint64_t x, uint64_t y) { return order.to(x) < order.to(y); });
        // The default first digit (8 bits below 2^26 keys), and one of 9 or 10 bits:
        // small bucket targets reach them here (at n = 40000, 128 gives 9 bits, 64 gives 10).
        for (size_t bucket_keys : {kMsdBucketKeys, size_t(128), size_t(64)}) {
          INFO("n=" << n << " threads=" << threads << " shape=" << shape << " bucket_keys=" << bucket_keys);
          radix_sort_copy<uint64_t>(a.data(), t.data(), n, order, threads, nullptr, {}, bucket_keys);
          CHECK(t == want);
          std::vector<uint64_t> a2 = a, t2(n);
          radix_sort_copy<uint64_t>(a2.data(), t2.data(), n, order, threads, a2.data(), {}, bucket_keys);
          CHECK(t2 == want);
        }
      }
    }
  }
}

TEST_CASE("CPU sort_chunk equals the stable-sort oracle for every format, shape and size") {
  std::mt19937_64 rng(5);
  for (unsigned threads : {1u, 2u}) {
    auto backend = make_cpu_backend(threads);
    for (Format f : formats()) {
      for (bool rev : {false, true}) {
        f.reverse = rev;
        for (Shape s : {Shape::random, Shape::few, Shape::sorted, Shape::reverse, Shape::special}) {
          for (size_t n : sizes()) {
            if (n > 70000 && (f.record_size > 16 || s != Shape::random)) continue;  // keep the suite fast
            auto in = make_input(f, n, s, rng);
            auto want = oracle(f, in);
            HostBuffer scratch = backend->allocate_host(backend->sort_scratch_bytes(f, n));
            backend->sort_chunk(f, in.data(), n, scratch.data());
            INFO(f.describe() << " n=" << n << " shape=" << int(s) << " threads=" << threads);
            CHECK(in == want);
          }
        }
      }
    }
  }
}

TEST_CASE("CPU sort_into equals sort_chunk and leaves its source alone, for every format") {
  std::mt19937_64 rng(6);
  for (unsigned threads : {1u, 2u}) {
    auto backend = make_cpu_backend(threads);
    for (Format f : formats()) {
      for (Shape s : {Shape::random, Shape::few, Shape::special}) {
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(300007)}) {
          if (n > 1000 && f.record_size > 16) continue;  // keep the suite fast
          const auto in = make_input(f, n, s, rng);
          const auto want = oracle(f, in);
          std::vector<unsigned char> src = in, dst(in.size() + 1, 0xAB);
          // Each reported range must already hold its final records, and the ranges
          // must tile [0, n) exactly.
          std::mutex mu;
          std::vector<std::pair<size_t, size_t>> ranges;
          bool final_when_reported = true;
          const size_t rs = f.record_size;
          backend->sort_into(f, src.data(), dst.data(), n, [&](size_t first, size_t count) {
            std::lock_guard<std::mutex> lk(mu);
            ranges.emplace_back(first, count);
            if (!std::equal(dst.begin() + first * rs, dst.begin() + (first + count) * rs, want.begin() + first * rs))
              final_when_reported = false;
          });
          INFO(f.describe() << " n=" << n << " shape=" << int(s) << " threads=" << threads);
          CHECK(src == in);
          CHECK(std::equal(want.begin(), want.end(), dst.begin()));
          CHECK(dst.back() == 0xAB);  // nothing written past the end
          CHECK(final_when_reported);
          std::sort(ranges.begin(), ranges.end());
          size_t covered = 0;
          for (auto& r : ranges) {
            CHECK(r.first == covered);
            covered += r.second;
          }
          CHECK(covered == n);
        }
      }
    }
  }
}

namespace {
// A backend with only the required calls (the CPU's), so sort_into is the base class's.
class DefaultSortInto : public gxsort_test::CpuDelegate {
 public:
  std::string name() const override { return "default sort_into"; }
};
}  // namespace

TEST_CASE("Backend's default sort_into sorts src into dst through a host buffer and reports all of it") {
  std::mt19937_64 rng(9);
  DefaultSortInto b;
  for (Format f : formats()) {
    for (size_t n : {size_t(0), size_t(1), size_t(777), size_t(100003)}) {
      if (n > 1000 && f.record_size > 16) continue;
      const auto in = make_input(f, n, Shape::few, rng);
      const auto want = oracle(f, in);
      std::vector<unsigned char> src = in, dst(in.size(), 0);
      size_t reported = 0;
      b.sort_into(f, src.data(), dst.data(), n, [&](size_t first, size_t count) { reported += first == 0 ? count : 0; });
      INFO(f.describe() << " n=" << n);
      CHECK(src == in);
      CHECK(dst == want);
      CHECK(reported == n);
    }
  }
}

TEST_CASE("unique_carry over pieces equals unique_in_place over the whole") {
  std::mt19937_64 rng(8);
  Format f;
  f.record_size = 12; f.key_offset = 4; f.key_type = KeyType::i32; f.key_bytes = 4;
  for (size_t n : {0, 1, 2, 100, 5000}) {
    for (size_t piece : {1, 3, 64, 10000}) {
      auto data = make_input(f, n, Shape::few, rng);
      auto backend = make_cpu_backend(1);
      HostBuffer scratch = backend->allocate_host(backend->sort_scratch_bytes(f, n));
      backend->sort_chunk(f, data.data(), n, scratch.data());
      auto whole = data;
      whole.resize(unique_in_place(f, whole.data(), n) * f.record_size);
      std::vector<unsigned char> got, last;
      bool have_last = false;
      for (size_t b = 0; b < n; b += piece) {
        size_t m = std::min(piece, n - b);
        std::vector<unsigned char> part(data.begin() + b * 12, data.begin() + (b + m) * 12);
        size_t kept = unique_carry(f, part.data(), m, last, have_last);
        got.insert(got.end(), part.begin(), part.begin() + kept * 12);
      }
      INFO("n=" << n << " piece=" << piece);
      CHECK(got == whole);
    }
  }
}
