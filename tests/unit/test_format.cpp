// Key transforms: the unsigned order of transformed keys must be the key order.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gxsort/error.hpp"
#include "gxsort/format.hpp"

using namespace gxsort;

namespace {
uint32_t bits32(float x) { uint32_t b; std::memcpy(&b, &x, 4); return b; }
uint64_t bits64(double x) { uint64_t b; std::memcpy(&b, &x, 8); return b; }
}  // namespace

TEST_CASE("f64 totalOrder: -NaN < -inf < -1 < -0 < +0 < denormal < 1 < inf < +NaN") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<uint64_t> in = {bits64(-std::nan("")) | (uint64_t(1) << 63), bits64(-inf), bits64(-1.0), bits64(-0.0),
                              bits64(0.0), bits64(std::numeric_limits<double>::denorm_min()), bits64(1.0),
                              bits64(inf), bits64(std::nan(""))};
  for (size_t i = 0; i + 1 < in.size(); ++i) {
    CHECK(order64(KeyType::f64, in[i], false) < order64(KeyType::f64, in[i + 1], false));
    CHECK(order64(KeyType::f64, in[i], true) > order64(KeyType::f64, in[i + 1], true));
  }
  for (uint64_t b : in) CHECK(unorder64(KeyType::f64, order64(KeyType::f64, b, true), true) == b);
}

TEST_CASE("f32 order agrees with < on random non-NaN floats, and round-trips") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1e6f, 1e6f);
  for (int i = 0; i < 10000; ++i) {
    float a = d(rng), b = d(rng);
    if (a == b) continue;
    CHECK((a < b) == (order32(KeyType::f32, bits32(a), false) < order32(KeyType::f32, bits32(b), false)));
    CHECK(unorder32(KeyType::f32, order32(KeyType::f32, bits32(a), false), false) == bits32(a));
  }
  CHECK(order32(KeyType::f32, bits32(-0.0f), false) < order32(KeyType::f32, bits32(0.0f), false));
}

TEST_CASE("signed integers order numerically") {
  std::vector<int64_t> v = {INT64_MIN, -5, -1, 0, 1, 7, INT64_MAX};
  for (size_t i = 0; i + 1 < v.size(); ++i)
    CHECK(order64(KeyType::i64, uint64_t(v[i]), false) < order64(KeyType::i64, uint64_t(v[i + 1]), false));
  std::vector<int32_t> w = {INT32_MIN, -1, 0, 1, INT32_MAX};
  for (size_t i = 0; i + 1 < w.size(); ++i)
    CHECK(order32(KeyType::i32, uint32_t(w[i]), false) < order32(KeyType::i32, uint32_t(w[i + 1]), false));
}

TEST_CASE("byte keys compare as unsigned bytes, prefix then tail, also reversed") {
  std::mt19937 rng(3);
  for (size_t kb : {1, 3, 8, 10, 20}) {
    Format f;
    f.record_size = kb + 5;
    f.key_offset = 2;
    f.key_type = KeyType::bytes;
    f.key_bytes = kb;
    for (bool rev : {false, true}) {
      f.reverse = rev;
      for (int i = 0; i < 2000; ++i) {
        std::vector<unsigned char> a(f.record_size), b(f.record_size);
        for (auto& c : a) c = uint8_t(rng() % 3 + 254 * (rng() % 2));  // few values: many ties
        for (auto& c : b) c = uint8_t(rng() % 3 + 254 * (rng() % 2));
        int want = std::memcmp(a.data() + 2, b.data() + 2, kb);
        want = (want > 0) - (want < 0);
        if (rev) want = -want;
        int got = compare_keys(f, a.data(), b.data());
        CHECK(((got > 0) - (got < 0)) == want);
      }
    }
  }
}

TEST_CASE("Format::validate rejects keys outside the record") {
  Format f;
  f.record_size = 8;
  f.key_offset = 6;
  f.key_type = KeyType::u32;
  f.key_bytes = 4;
  CHECK_THROWS_AS(f.validate(), Error);
  f.key_offset = 4;
  CHECK_NOTHROW(f.validate());
  CHECK_THROWS_AS(parse_key_type("u17"), Error);
  CHECK(parse_key_type("u16") == KeyType::u16);
  CHECK_THROWS_AS(parse_key_type("u16be"), Error);  // big-endian forms only where asked for
  bool be = false;
  CHECK(parse_key_type("f64be", &be) == KeyType::f64);
  CHECK(be);
  CHECK_THROWS_AS(parse_key_type("u8be", &be), Error);
  CHECK(Format::gensort().record_size == 100);
}
