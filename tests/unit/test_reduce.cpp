// CPU reductions against simple oracles: exact __int128 sums, totalOrder min/max,
// counts; chunking invariance; empty input; NaN, ±0 and ±inf.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gxsort/error.hpp"
#include "kernels/reduce.hpp"
#include "reports.hpp"

using namespace gxsort;

namespace {

const KeyType kTypes[] = {KeyType::u32, KeyType::i32, KeyType::f32,
                          KeyType::u64, KeyType::i64, KeyType::f64};

// Records of format f whose keys are the given raw words (payload bytes random).
std::vector<unsigned char> make_records(const Format& f, const std::vector<uint64_t>& raw, std::mt19937_64& rng) {
  std::vector<unsigned char> buf(raw.size() * f.record_size);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  const size_t w = key_type_width(f.key_type);
  for (size_t i = 0; i < raw.size(); ++i) std::memcpy(&buf[i * f.record_size + f.key_offset], &raw[i], w);
  return buf;
}

Format record_format(KeyType t, size_t record_size, size_t key_offset) {
  Format f = Format::typed(t);
  f.record_size = record_size;
  f.key_offset = key_offset;
  return f;
}

// Random raw key words: mostly uniform bits, some small values and specials.
std::vector<uint64_t> random_raw(KeyType t, size_t n, std::mt19937_64& rng) {
  const size_t w = key_type_width(t);
  std::vector<uint64_t> v(n);
  for (auto& x : v) {
    x = rng();
    if (t == KeyType::f32 || t == KeyType::f64) {
      // finite values of moderate range so that sums are meaningful
      const double d = std::ldexp(double(int64_t(rng() >> 11)) / double(uint64_t(1) << 52) - 0.5,
                                  int(rng() % 40) - 20);
      if (w == 4) { float fv = float(d); uint32_t b; std::memcpy(&b, &fv, 4); x = b; }
      else std::memcpy(&x, &d, 8);
    } else if (w == 4) {
      x &= 0xffffffffu;
    }
  }
  return v;
}

// ---- oracles, independent of format.hpp's transform ----

// totalOrder of a float's bits as a signed integer key.
int64_t total_order_key(uint64_t bits, size_t w) {
  if (w == 4) {
    int32_t k = int32_t(uint32_t(bits));
    if (k < 0) k ^= 0x7fffffff;
    return k;
  }
  int64_t k = int64_t(bits);
  if (k < 0) k ^= std::numeric_limits<int64_t>::max();
  return k;
}

// A comparable key of any type: signed 128-bit so u64 and i64 both fit.
__int128 oracle_key(KeyType t, uint64_t raw) {
  switch (t) {
    case KeyType::u32: return uint32_t(raw);
    case KeyType::i32: return int32_t(uint32_t(raw));
    case KeyType::u64: return raw;
    case KeyType::i64: return int64_t(raw);
    case KeyType::f32: return total_order_key(raw, 4);
    default: return total_order_key(raw, 8);
  }
}

std::string i128_str(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 m = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  std::string s;
  while (m) { s.insert(s.begin(), char('0' + int(m % 10))); m /= 10; }
  return neg ? "-" + s : s;
}

std::string key_str(KeyType t, uint64_t raw) {
  char buf[64];
  switch (t) {
    case KeyType::u32: return std::to_string(uint32_t(raw));
    case KeyType::i32: return std::to_string(int32_t(uint32_t(raw)));
    case KeyType::u64: return std::to_string(raw);
    case KeyType::i64: return std::to_string(int64_t(raw));
    case KeyType::f32: {
      float v; uint32_t b = uint32_t(raw); std::memcpy(&v, &b, 4);
      if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
      std::snprintf(buf, sizeof buf, "%.9g", double(v));
      return buf;
    }
    default: {
      double v; std::memcpy(&v, &raw, 8);
      if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
      std::snprintf(buf, sizeof buf, "%.17g", v);
      return buf;
    }
  }
}

// Reduce in chunks of the given sizes (multiples of kReduceBlock, last one whatever).
ReducePartial reduce_chunked(const Format& f, const std::vector<unsigned char>& buf, size_t n,
                             const std::vector<size_t>& sizes) {
  ReducePartial total;
  size_t at = 0;
  for (size_t s : sizes) {
    combine(total, reduce_chunk_cpu(f, buf.data() + at * f.record_size, s, at));
    at += s;
  }
  REQUIRE(at == n);
  return total;
}

std::vector<size_t> random_chunks(size_t n, std::mt19937_64& rng) {
  std::vector<size_t> sizes;
  size_t at = 0;
  while (at < n) {
    size_t s = kReduceBlock * (rng() % 5);  // 0 .. 4 blocks; empty chunks too
    if (at + s > n || rng() % 7 == 0) s = n - at;
    sizes.push_back(s);
    at += s;
  }
  return sizes;
}

// The line `gxsort reduce` prints: the op's name and its values (the app renders them).
std::string fmt(const Format& f, const char* op, const ReducePartial& p) {
  const ReduceOp o = parse_choice(std::string(op), "--op", kReduceOps);
  std::string line = choice_name(o, kReduceOps);
  for (const ReduceValue& v : reduce_values(f, o, p)) line += " " + cli::reduce_value_text(v);
  return line;
}

std::vector<uint64_t> floats(KeyType t, const std::vector<double>& v) {
  std::vector<uint64_t> raw;
  for (double d : v) {
    uint64_t x = 0;
    if (t == KeyType::f32) { float fv = float(d); uint32_t b; std::memcpy(&b, &fv, 4); x = b; }
    else std::memcpy(&x, &d, 8);
    raw.push_back(x);
  }
  return raw;
}

}  // namespace

TEST_CASE("reduce: every op and key type against oracles, flat keys and records") {
  std::mt19937_64 rng(42);
  const size_t sizes[] = {1, 2, 7, 4095, 4096, 4097, 3 * 4096 + 5, 40000};
  for (KeyType t : kTypes) {
    const size_t w = key_type_width(t);
    const Format layouts[] = {Format::typed(t), record_format(t, 16, 8), record_format(t, 13, 3)};
    for (const Format& f : layouts) {
      for (size_t n : sizes) {
        CAPTURE(key_type_width(t));
        CAPTURE(int(t));
        CAPTURE(f.record_size);
        CAPTURE(n);
        const auto raw = random_raw(t, n, rng);
        const auto buf = make_records(f, raw, rng);
        const ReducePartial p = reduce_chunk_cpu(f, buf.data(), n, 0);

        size_t imin = 0, imax = 0;
        __int128 sum = 0;
        for (size_t i = 0; i < n; ++i) {
          if (oracle_key(t, raw[i]) < oracle_key(t, raw[imin])) imin = i;
          if (oracle_key(t, raw[i]) > oracle_key(t, raw[imax])) imax = i;
          if (t != KeyType::f32 && t != KeyType::f64) sum += oracle_key(t, raw[i]);
        }
        CHECK(fmt(f, "count", p) == "count " + std::to_string(n));
        CHECK(fmt(f, "min", p) == "min " + key_str(t, raw[imin]));
        CHECK(fmt(f, "max", p) == "max " + key_str(t, raw[imax]));
        CHECK(fmt(f, "minmax", p) == "minmax " + key_str(t, raw[imin]) + " " + key_str(t, raw[imax]));
        if (t == KeyType::f32 || t == KeyType::f64) {
          long double ref = 0, mag = 0;
          for (size_t i = 0; i < n; ++i) {
            double d;
            if (w == 4) { float fv; uint32_t b = uint32_t(raw[i]); std::memcpy(&fv, &b, 4); d = fv; }
            else std::memcpy(&d, &raw[i], 8);
            ref += d;
            mag += std::fabs(d);
          }
          const double s = partial_sum_as_double(f, p);
          CHECK(std::fabs(double(s - ref)) <= 1e-13 * double(mag) + 1e-300);
          const double mean = std::strtod(fmt(f, "mean", p).c_str() + 5, nullptr);
          CHECK(mean == s / double(n));
        } else {
          CHECK(fmt(f, "sum", p) == "sum " + i128_str(sum));
          const double mean = std::strtod(fmt(f, "mean", p).c_str() + 5, nullptr);
          CHECK(mean == double(sum) / double(n));
        }
      }
    }
  }
}

TEST_CASE("reduce: chunking invariance") {
  std::mt19937_64 rng(7);
  for (KeyType t : kTypes) {
    for (const Format& f : {Format::typed(t), record_format(t, 13, 3)}) {
      const size_t n = 23 * kReduceBlock + 1234;
      auto raw = random_raw(t, n, rng);
      if (t == KeyType::f32 || t == KeyType::f64) {
        // wide magnitudes make the sum sensitive to any change of order
        for (size_t i = 0; i < n; i += 97) raw[i] = floats(t, {std::ldexp(1.0, int(rng() % 60))})[0];
      }
      const auto buf = make_records(f, raw, rng);
      const ReducePartial whole = reduce_chunk_cpu(f, buf.data(), n, 0);
      for (int trial = 0; trial < 20; ++trial) {
        const ReducePartial p = reduce_chunked(f, buf, n, random_chunks(n, rng));
        CHECK(p == whole);
        for (const char* op : {"sum", "min", "max", "count", "mean", "minmax"})
          CHECK(fmt(f, op, p) == fmt(f, op, whole));
      }
      // A partial is also combinable as a whole: (a b) c == a (b c).
      const size_t c1 = 5 * kReduceBlock, c2 = 11 * kReduceBlock;
      ReducePartial a = reduce_chunk_cpu(f, buf.data(), c1, 0);
      ReducePartial b = reduce_chunk_cpu(f, buf.data() + c1 * f.record_size, c2 - c1, c1);
      const ReducePartial c = reduce_chunk_cpu(f, buf.data() + c2 * f.record_size, n - c2, c2);
      combine(b, c);
      combine(a, b);
      CHECK(a == whole);
    }
  }
}

TEST_CASE("reduce: empty input") {
  for (KeyType t : kTypes) {
    const Format f = Format::typed(t);
    const ReducePartial p = reduce_chunk_cpu(f, nullptr, 0, 0);
    CHECK(fmt(f, "count", p) == "count 0");
    CHECK(fmt(f, "sum", p) == "sum 0");
    CHECK(fmt(f, "min", p) == "min none");
    CHECK(fmt(f, "max", p) == "max none");
    CHECK(fmt(f, "minmax", p) == "minmax none none");
    CHECK(fmt(f, "mean", p) == "mean none");
    ReducePartial q = p;
    combine(q, p);
    CHECK(q == p);
  }
}

TEST_CASE("reduce: small examples print as documented") {
  std::mt19937_64 rng(1);
  const Format f = Format::typed(KeyType::i32);
  const auto buf = make_records(f, {uint32_t(-5), 17, 3, 1}, rng);
  const ReducePartial p = reduce_chunk_cpu(f, buf.data(), 4, 0);
  CHECK(fmt(f, "sum", p) == "sum 16");
  CHECK(fmt(f, "min", p) == "min -5");
  CHECK(fmt(f, "max", p) == "max 17");
  CHECK(fmt(f, "minmax", p) == "minmax -5 17");
  CHECK(fmt(f, "mean", p) == "mean 4");
  CHECK(fmt(f, "count", p) == "count 4");
  const Format g = Format::typed(KeyType::f64);
  const auto gb = make_records(g, floats(KeyType::f64, {1, 2, 3, 8}), rng);
  CHECK(fmt(g, "mean", reduce_chunk_cpu(g, gb.data(), 4, 0)) == "mean 3.5");
  const Format h = Format::typed(KeyType::f32);
  const auto hb = make_records(h, floats(KeyType::f32, {0.1}), rng);
  CHECK(fmt(h, "min", reduce_chunk_cpu(h, hb.data(), 1, 0)) == "min 0.100000001");
  CHECK(fmt(h, "sum", reduce_chunk_cpu(h, hb.data(), 1, 0)) == "sum 0.10000000149011612");
}

TEST_CASE("reduce: integer sums are exact past 64 bits") {
  std::mt19937_64 rng(3);
  const Format u = Format::typed(KeyType::u64);
  const auto ub = make_records(u, {~0ull, ~0ull, ~0ull}, rng);
  CHECK(fmt(u, "sum", reduce_chunk_cpu(u, ub.data(), 3, 0)) == "sum 55340232221128654845");
  const Format i = Format::typed(KeyType::i64);
  const uint64_t mn = uint64_t(std::numeric_limits<int64_t>::min());
  const auto ib = make_records(i, {mn, mn, 1}, rng);
  CHECK(fmt(i, "sum", reduce_chunk_cpu(i, ib.data(), 3, 0)) == "sum -18446744073709551615");
  CHECK(fmt(i, "min", reduce_chunk_cpu(i, ib.data(), 3, 0)) == "min -9223372036854775808");
  const Format s = Format::typed(KeyType::i32);
  std::vector<uint64_t> many(3 * kReduceBlock, uint32_t(std::numeric_limits<int32_t>::min()));
  const auto sb = make_records(s, many, rng);
  CHECK(fmt(s, "sum", reduce_chunk_cpu(s, sb.data(), many.size(), 0)) ==
        "sum " + i128_str(__int128(many.size()) * std::numeric_limits<int32_t>::min()));
}

TEST_CASE("reduce: NaN, signed zeros and infinities") {
  std::mt19937_64 rng(5);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (KeyType t : {KeyType::f32, KeyType::f64}) {
    const Format f = Format::typed(t);
    auto run = [&](const std::vector<double>& v) {
      const auto b = make_records(f, floats(t, v), rng);
      return reduce_chunk_cpu(f, b.data(), v.size(), 0);
    };
    CHECK(fmt(f, "minmax", run({0.0, -0.0})) == "minmax -0 0");
    CHECK(fmt(f, "minmax", run({-0.0, -0.0})) == "minmax -0 -0");
    CHECK(fmt(f, "minmax", run({1.0, -inf, inf})) == "minmax -inf inf");
    CHECK(fmt(f, "minmax", run({1.0, nan, -inf})) == "minmax -inf nan");
    CHECK(fmt(f, "minmax", run({1.0, -nan, inf, nan})) == "minmax -nan nan");
    CHECK(fmt(f, "sum", run({1.0, nan})) == "sum nan");
    CHECK(fmt(f, "sum", run({1.0, inf})) == "sum inf");
    CHECK(fmt(f, "sum", run({1.0, -inf})) == "sum -inf");
    CHECK(fmt(f, "sum", run({inf, -inf})) == "sum nan");
    CHECK(fmt(f, "mean", run({1.0, inf})) == "mean inf");
    CHECK(fmt(f, "mean", run({-1.0, -2.0})) == "mean -1.5");
    // infinities in different blocks
    std::vector<double> v(3 * kReduceBlock, 1.0);
    v[10] = inf;
    v[2 * kReduceBlock + 3] = -inf;
    CHECK(fmt(f, "sum", run(v)) == "sum nan");
    v[2 * kReduceBlock + 3] = 2.0;
    CHECK(fmt(f, "sum", run(v)) == "sum inf");
  }
}

TEST_CASE("reduce: block sums are added exactly") {
  std::mt19937_64 rng(9);
  const Format f = Format::typed(KeyType::f64);
  auto run = [&](const std::vector<double>& v) {
    const auto b = make_records(f, floats(KeyType::f64, v), rng);
    return fmt(f, "sum", reduce_chunk_cpu(f, b.data(), v.size(), 0));
  };
  // One value a block: the block sums are the values themselves.
  std::vector<double> v(3 * kReduceBlock, 0.0);
  v[0] = 1.0;
  v[kReduceBlock] = std::ldexp(1.0, -80);
  v[2 * kReduceBlock] = -1.0;
  CHECK(run(v) == "sum 8.2718061255302767e-25");  // 2^-80 survives, no cancellation
  v[0] = 1e308; v[kReduceBlock] = 1e308; v[2 * kReduceBlock] = -1e308;
  CHECK(run(v) == "sum 1e+308");  // no intermediate overflow
  v[0] = 5e-324; v[kReduceBlock] = 5e-324; v[2 * kReduceBlock] = 0;
  CHECK(run(v) == "sum 9.8813129168249309e-324");  // subnormals exact
  v[0] = 1.0; v[kReduceBlock] = std::ldexp(1.0, -53); v[2 * kReduceBlock] = 0;
  CHECK(run(v) == "sum 1");  // tie rounds to even
  v[2 * kReduceBlock] = std::ldexp(1.0, -105);
  CHECK(run(v) == "sum 1.0000000000000002");  // sticky bit breaks the tie
  v[0] = 1.7976931348623157e308; v[kReduceBlock] = 1.7976931348623157e308; v[2 * kReduceBlock] = 0;
  CHECK(run(v) == "sum inf");  // overflow at the final rounding

  ExactSum e;
  e.add(0.5);
  e.add(-0.75);
  e.normalize();
  CHECK(e.to_double() == -0.25);
  CHECK_FALSE(e.is_zero());
  e.add(0.25);
  CHECK(e.is_zero());
}

TEST_CASE("reduce: usage errors") {
  std::vector<unsigned char> buf(100 * 8);
  CHECK_THROWS_AS(reduce_chunk_cpu(Format::gensort(), buf.data(), 1, 0), Error);
  CHECK_THROWS_AS(reduce_chunk_cpu(Format::typed(KeyType::u64), buf.data(), 1, 5), Error);
  CHECK_THROWS_AS(parse_choice(std::string("median"), "--op", kReduceOps), Error);
  CHECK(parse_choice(std::string("minmax"), "--op", kReduceOps) == ReduceOp::minmax);
  const Format f = Format::typed(KeyType::u64);
  ReducePartial a = reduce_chunk_cpu(f, buf.data(), 10, 0);
  const ReducePartial b = reduce_chunk_cpu(f, buf.data(), 10, kReduceBlock);
  CHECK_THROWS_AS(combine(a, b), Error);  // a ends at 10, b starts at 4096
  try {
    reduce_chunk_cpu(Format::gensort(), buf.data(), 1, 0);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("reduce reduces one typed key") == 0);
  }
  Format composite = Format::of_keys(8, {Format::single_field(KeyType::u32, 0), Format::single_field(KeyType::i32, 4)}, false);
  CHECK_THROWS_AS(reduce_chunk_cpu(composite, buf.data(), 1, 0), Error);
}
