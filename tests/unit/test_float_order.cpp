// Float keys in numpy's order (--float-order numpy, with_float_order): the order words of
// special values, the formats it makes (always composite), the key text's round trip, and
// every CPU path that orders or equates keys (chunk sort, unique, check, the engine in
// memory and out of core, dedupe) against the oracle of composite_keys.hpp.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "../common/composite_keys.hpp"
#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "backend/backend.hpp"
#include "gxsort/error.hpp"
#include "gxsort/gxsort.hpp"
#include "kernels/check_chunk.hpp"
#include "kernels/unique.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::composite_input;
using gxsort_test::field;
using gxsort_test::numpy_float_formats;
using gxsort_test::oracle_compare;
using gxsort_test::oracle_sorted;
using gxsort_test::TempDir;

namespace {

// The order word of the float with bits `bits`, in numpy's order or in totalOrder.
uint64_t word(KeyType t, uint64_t bits, bool numpy) {
  KeyField k = Format::single_field(t, 0);
  k.numpy_float = numpy;
  unsigned char p[8];
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(bits >> (8 * i));
  return field_order_word(k, p);
}

int sign(int c) { return (c > 0) - (c < 0); }

}  // namespace

TEST_CASE("numpy's order words: every NaN the all-ones word, -0 the word of +0, the rest as totalOrder") {
  // Ascending: -inf, -1, -denormal, -0 == +0, denormal, 1, inf, then every NaN as one.
  const uint64_t f64s[] = {0xfff0000000000000ull, 0xbff0000000000000ull, 0x8000000000000001ull, 0x8000000000000000ull,
                           0x0000000000000000ull, 0x0000000000000001ull, 0x3ff0000000000000ull, 0x7ff0000000000000ull};
  const uint32_t f32s[] = {0xff800000u, 0xbf800000u, 0x80000001u, 0x80000000u,
                           0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u};
  for (size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(word(KeyType::f64, f64s[i], true) == (f64s[i] == 0x8000000000000000ull ? word(KeyType::f64, 0, false)
                                                                                  : word(KeyType::f64, f64s[i], false)));
    CHECK(word(KeyType::f32, f32s[i], true) == (f32s[i] == 0x80000000u ? word(KeyType::f32, 0, false)
                                                                        : word(KeyType::f32, f32s[i], false)));
    if (i + 1 < 8 && i != 3) {
      CHECK(word(KeyType::f64, f64s[i], true) < word(KeyType::f64, f64s[i + 1], true));
      CHECK(word(KeyType::f32, f32s[i], true) < word(KeyType::f32, f32s[i + 1], true));
    }
  }
  CHECK(word(KeyType::f64, 0x8000000000000000ull, true) == word(KeyType::f64, 0, true));
  CHECK(word(KeyType::f32, 0x80000000u, true) == word(KeyType::f32, 0, true));
  for (uint64_t nan : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000000123ull,
                       0x7fffffffffffffffull, 0xffffffffffffffffull})
    CHECK(word(KeyType::f64, nan, true) == ~uint64_t(0));
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffc00123u, 0x7fffffffu, 0xffffffffu})
    CHECK(word(KeyType::f32, nan, true) == 0xffffffffu);
  // totalOrder keeps its bijection: -NaN first, -0 below +0.
  CHECK(word(KeyType::f64, 0xfff8000000000000ull, false) < word(KeyType::f64, 0xfff0000000000000ull, false));
  CHECK(word(KeyType::f64, 0x8000000000000000ull, false) < word(KeyType::f64, 0, false));
}

TEST_CASE("with_float_order: numpy's order makes a float key composite; total gives the format back") {
  const Format flat = Format::typed(KeyType::f64);
  const Format n = with_float_order(flat, FloatOrder::numpy);
  CHECK(n.composite());
  CHECK(!n.flat());
  CHECK(n.key_text() == "0:f64:numpy");
  CHECK(n.describe() == "8-byte records, key 0:f64:numpy");
  const Format back = with_float_order(n, FloatOrder::total);
  CHECK(back.flat());
  CHECK(back.key_text() == flat.key_text());
  CHECK(with_float_order(flat, FloatOrder::total).flat());
  // A descending single key (reverse) and --reverse over it keep their order.
  Format desc = Format::of_keys(16, {field(8, KeyType::f32, true)}, false);
  for (bool r : {false, true}) {
    Format d = desc;
    d.reverse = d.reverse != r;
    const Format dn = with_float_order(d, FloatOrder::numpy);
    CHECK(dn.composite());
    CHECK(dn.reverse == d.reverse);
    const Format db = with_float_order(dn, FloatOrder::total);
    CHECK(!db.composite());
    CHECK(db.reverse == d.reverse);
    CHECK(db.key_offset == 8);
  }
  // Only float fields take it; keys without floats come back as they were.
  const Format mixed = Format::of_keys(16, {field(0, KeyType::u32), field(4, KeyType::f32, true), field(8, KeyType::f64)}, true);
  const Format mn = with_float_order(mixed, FloatOrder::numpy);
  CHECK(mn.key_text() == "0:u32,4:f32:desc:numpy,8:f64:numpy");
  CHECK(mn.reverse);
  CHECK(with_float_order(Format::typed(KeyType::u64), FloatOrder::numpy).flat());
  CHECK(!with_float_order(Format::gensort(), FloatOrder::numpy).composite());
}

TEST_CASE("--key texts with :numpy round trip; it is for float fields, last") {
  for (const char* t : {"0:f64:numpy", "4:f32:desc:numpy", "2:f64be:numpy", "8:f32be:desc:numpy"}) {
    KeyField k;
    REQUIRE(parse_key_field(t, k));
    CHECK(k.numpy_float);
    CHECK(key_field_text(k) == t);
  }
  KeyField k;
  REQUIRE(parse_key_field("0:f64:asc:numpy", k));
  CHECK((k.numpy_float && !k.desc));
  for (const char* bad : {"0:u32:numpy", "0:bytes:4:numpy", "0:f64:numpy:desc", "0:f32:numpy:numpy", "0:i16:numpy"})
    CHECK_THROWS_AS(parse_key_field(bad, k), Error);
}

TEST_CASE("numpy's order: compare_keys and same_key agree with the oracle") {
  std::mt19937_64 rng(43);
  for (const Format& f : numpy_float_formats())
    for (uint64_t distinct : {uint64_t(0), uint64_t(3)}) {
      CAPTURE(f.describe());
      const size_t rs = f.record_size, n = 2000;
      const Bytes in = composite_input(f, n, distinct, rng);
      for (size_t i = 0; i + 1 < n; ++i) {
        const unsigned char* a = &in[i * rs];
        const unsigned char* b = &in[(i + 1) * rs];
        const int want = oracle_compare(f, a, b);
        CHECK(sign(compare_keys(f, a, b)) == want);
        CHECK(same_key(f, a, b) == (want == 0));
      }
    }
}

TEST_CASE("numpy's order: the CPU chunk sort, unique and check") {
  std::mt19937_64 rng(44);
  auto b = make_cpu_backend(3);
  for (const Format& f : numpy_float_formats())
    for (size_t n : {size_t(1), size_t(7), size_t(4099)})
      for (uint64_t distinct : {uint64_t(0), uint64_t(2)}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        const size_t rs = f.record_size;
        const Bytes in = composite_input(f, n, distinct, rng);
        const Bytes want = oracle_sorted(f, in.data(), n);
        Bytes out(in.size());
        b->sort_into(f, in.data(), out.data(), n, {});
        CHECK(out == want);
        const Bytes want_u = oracle_sorted(f, in.data(), n, true);
        CHECK(Bytes(out.begin(), out.begin() + long(unique_in_place(f, out.data(), n) * rs)) == want_u);
        const CheckPartial c = check_chunk_cpu(f, want.data(), n, 0);
        CHECK(c.first_violation == UINT64_MAX);
        CHECK(c.duplicates == n - want_u.size() / rs);
      }
}

TEST_CASE("numpy's order through the engine: sort in memory and out of core, -u, dedupe") {
  TempDir d;
  std::mt19937_64 rng(45);
  const std::string ip = d.file("in.bin"), op = d.file("out.bin");
  const Format fs[] = {with_float_order(Format::typed(KeyType::f64), FloatOrder::numpy),
                       with_float_order(Format::of_keys(12, {field(8, KeyType::f32, true), field(0, KeyType::i64)}, false),
                                        FloatOrder::numpy)};
  size_t partitioned = 0;  // --ooc partition taken out of core (else --ooc merge tests the merge twice)
  for (const Format& f : fs) {
    CAPTURE(f.describe());
    const size_t n = 300007;
    const Bytes in = composite_input(f, n, 40, rng);
    gxsort_test::write_file(ip, in);
    const Bytes want[2] = {oracle_sorted(f, in.data(), n), oracle_sorted(f, in.data(), n, true)};
    for (const char* memory : {"", "1M"})
      for (OocMethod m : {OocMethod::merge, OocMethod::partition})
        for (bool unique : {false, true}) {
          CAPTURE(memory);
          CAPTURE(unique);
          EngineOptions o = gxsort_test::cpu_opts(f, memory);
          o.tmp_dirs = {d.path};
          o.ooc = m;
          o.unique = unique;
          const RunStats st = sort_file(ip, op, o);
          CHECK((*memory == 0) == (st.runs <= 1 && st.mode != "partition"));  // "1M": out of core
          partitioned += st.mode == "partition";
          CHECK(gxsort_test::read_file(op) == want[unique]);
          o.unique = false;
          dedupe_file(ip, op, o);
          CHECK(gxsort_test::read_file(op) == want[1]);
        }
  }
  CHECK(partitioned == 4);
}
