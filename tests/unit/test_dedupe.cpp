// dedupe on the CPU: every strategy (sort -u, sort + group pass, bitmap, --assume-sorted
// stream) against std::stable_sort + a keep-first/keep-last unique with counts; groups
// across chunk and run boundaries (tiny --memory); the strategy rule; unsorted input.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "backend/backend.hpp"
#include "gxsort/gxsort.hpp"
#include "engine/group_pass.hpp"
#include "kernels/unique.hpp"

using namespace gxsort;

namespace {

using gxsort_test::Bytes;
using gxsort_test::TempDir;
using gxsort_test::read_file;
using gxsort_test::write_file;
using gxsort_test::make_input;
using gxsort_test::oracle;
using gxsort_test::cpu_opts;

bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

Bytes run_dedupe(const TempDir& d, const Bytes& in, EngineOptions o, RunStats* stats = nullptr) {
  const std::string ip = d.path + "/in.bin", op = d.path + "/out.bin";
  write_file(ip, in);
  o.tmp_dirs = {d.path};
  RunStats s = dedupe_file(ip, op, o);
  if (stats) *stats = s;
  return read_file(op);
}

std::vector<Format> formats() {
  Format rec16;
  rec16.record_size = 16; rec16.key_offset = 4; rec16.key_type = KeyType::u32; rec16.key_bytes = 4;
  Format recb;
  recb.record_size = 24; recb.key_offset = 0; recb.key_type = KeyType::bytes; recb.key_bytes = 12;
  Format rev = Format::typed(KeyType::i32);
  rev.reverse = true;
  return {Format::typed(KeyType::u32), Format::typed(KeyType::i32), Format::typed(KeyType::u64),
          Format::typed(KeyType::f64), rec16, recb, rev};
}

}  // namespace

TEST_CASE("dedupe: group_records keeps first or last and counts, against the oracle") {
  std::mt19937_64 rng(7);
  for (const Format& f : formats())
    for (size_t n : {0, 1, 2, 7, 1000, 4099})
      for (uint64_t distinct : {uint64_t(1), uint64_t(3), uint64_t(50), uint64_t(0)}) {
        Bytes in = make_input(f, n, distinct, rng);
        // Sort it first (stably): the group pass expects sorted input.
        Bytes sorted = oracle(f, in, false, false);
        const size_t rs = f.record_size;
        std::vector<size_t> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
        Bytes s(in.size());
        for (size_t i = 0; i < n; ++i) std::memcpy(&s[i * rs], &in[idx[i] * rs], rs);
        for (bool count : {false, true})
          for (bool last : {false, true}) {
            std::string g = group_records(f, s.data(), n, count, last);
            Bytes exp = oracle(f, in, count, last);
            CHECK(Bytes(g.begin(), g.end()) == exp);
          }
      }
}

// The inputs of the rule: records, sort in memory, on a GPU, sampled key span.
DedupeInput dedupe_input(uint64_t records, bool in_memory, bool gpu = false, uint64_t span = 0) {
  DedupeInput in;
  in.records = records;
  in.sort_in_memory = in_memory;
  in.gpu = gpu;
  in.key_span = span;
  return in;
}

TEST_CASE("dedupe: the strategy rule") {
  const Format u32 = Format::typed(KeyType::u32), u64 = Format::typed(KeyType::u64);
  const auto automatic = [&](const Format& f, const DedupeInput& in, bool count = false, bool sorted = false) {
    return choose_dedupe_strategy(DedupeStrategy::automatic, f, count, sorted, in);
  };
  const uint64_t wide = uint64_t(1) << 32, pbbs = 100000000;  // PBBS randomSeq: 10^8 keys in [0, 10^8)
  // CPU, sort in memory: the sort at any count unless the sampled span is narrow
  // (kCpuBitmapMaxSpan) and the keys are many (kCpuBitmapMinKeys).
  CHECK(automatic(u32, dedupe_input(1000, true)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(pbbs, true, false, pbbs)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(3 * pbbs, true, false, wide)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(uint64_t(1) << 31, true)) == DedupePath::sort);  // not sampled: wide
  CHECK(automatic(u32, dedupe_input(pbbs, true, false, kCpuBitmapMaxSpan)) == DedupePath::bitmap);
  CHECK(automatic(u32, dedupe_input(pbbs, true, false, kCpuBitmapMaxSpan + 1)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(pbbs, true, false, 1 << 20)) == DedupePath::bitmap);
  CHECK(automatic(u32, dedupe_input(kCpuBitmapMinKeys, true, false, 1 << 20)) == DedupePath::bitmap);
  CHECK(automatic(u32, dedupe_input(kCpuBitmapMinKeys - 1, true, false, 1 << 20)) == DedupePath::sort);
  // CPU, a sort out of core: the bitmap, whatever the span.
  CHECK(automatic(u32, dedupe_input(1000, false)) == DedupePath::bitmap);
  CHECK(automatic(u32, dedupe_input(3 * pbbs, false, false, wide)) == DedupePath::bitmap);
  // GPU (its own constants): the bitmap above kGpuBitmapAutoMinKeys or out of core.
  CHECK(automatic(u32, dedupe_input(kGpuBitmapAutoMinKeys, true, true, wide)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(kGpuBitmapAutoMinKeys + 1, true, true, wide)) == DedupePath::bitmap);
  CHECK(automatic(u32, dedupe_input(1000, false, true)) == DedupePath::bitmap);
  // Never for --count, other formats, or --assume-sorted (the stream).
  CHECK(automatic(u32, dedupe_input(pbbs, false, false, 1 << 20), true) == DedupePath::sort);
  CHECK(automatic(u64, dedupe_input(pbbs, false, false, 1 << 20)) == DedupePath::sort);
  CHECK(automatic(u32, dedupe_input(pbbs, false, false, 1 << 20), false, true) == DedupePath::stream);
  CHECK(choose_dedupe_strategy(DedupeStrategy::sort, u32, false, true, dedupe_input(10, true)) == DedupePath::stream);
  CHECK(choose_dedupe_strategy(DedupeStrategy::sort, u32, false, false, dedupe_input(pbbs, false, false, 1 << 20)) ==
        DedupePath::sort);
  CHECK(choose_dedupe_strategy(DedupeStrategy::bitmap, Format::typed(KeyType::f32), false, false, dedupe_input(10, true)) ==
        DedupePath::bitmap);
  CHECK_THROWS_AS(choose_dedupe_strategy(DedupeStrategy::bitmap, u64, false, false, dedupe_input(10, true)), Error);
  CHECK_THROWS_AS(choose_dedupe_strategy(DedupeStrategy::bitmap, u32, true, false, dedupe_input(10, true)), Error);
  CHECK_THROWS_AS(choose_dedupe_strategy(DedupeStrategy::bitmap, u32, false, true, dedupe_input(10, true)), Error);
  CHECK_THROWS_AS(parse_choice(std::string("hash"), "--strategy", kDedupeStrategies), Error);
}

TEST_CASE("dedupe: every CPU strategy against the oracle, in memory and out of core") {
  TempDir d;
  std::mt19937_64 rng(11);
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(1025), size_t(60013)})
      for (uint64_t distinct : {uint64_t(1), uint64_t(97), uint64_t(0)})
        for (const char* memory : {"", "1M"}) {
          if (n < 60013 && *memory) continue;
          Bytes in = make_input(f, n, distinct, rng);
          for (bool count : {false, true})
            for (bool last : {false, true}) {
              CAPTURE(f.describe()); CAPTURE(n); CAPTURE(distinct); CAPTURE(memory); CAPTURE(count); CAPTURE(last);
              EngineOptions o = cpu_opts(f, memory);
              o.dedupe.count = count;
              o.dedupe.keep_last = last;
              o.dedupe.strategy = DedupeStrategy::sort;
              CHECK(run_dedupe(d, in, o) == oracle(f, in, count, last));
              if (bitmap_format_ok(f) && !count && !last && (n == 0 || n == 60013)) {  // 512 MiB each: a few
                o.dedupe.strategy = DedupeStrategy::bitmap;
                CHECK(run_dedupe(d, in, o) == oracle(f, in, count, last));
              }
            }
        }
}

TEST_CASE("dedupe: the out-of-core sort paths really form several runs or buckets") {
  TempDir d;
  std::mt19937_64 rng(3);
  Format f;
  f.record_size = 16; f.key_offset = 0; f.key_type = KeyType::u64; f.key_bytes = 8;
  Bytes in = make_input(f, 200000, 1000, rng);
  auto has_phase = [](const RunStats& s, const std::string& prefix) {
    for (const auto& ph : s.phases)
      if (ph.name.compare(0, prefix.size(), prefix) == 0) return true;
    return false;
  };
  for (std::string ooc : {"merge", "partition"})
    for (bool last : {false, true}) {
      CAPTURE(ooc);
      EngineOptions o = cpu_opts(f, "1M");
      o.ooc = parse_choice(ooc, "--ooc", kOocMethods);
      o.dedupe.keep_last = last;
      o.dedupe.count = true;
      RunStats s;
      CHECK(run_dedupe(d, in, o, &s) == oracle(f, in, true, last));
      if (ooc == "merge") CHECK(s.runs > 1);
      else CHECK(has_phase(s, "partition into "));
      o.dedupe.count = false;
      CHECK(run_dedupe(d, in, o, &s) == oracle(f, in, false, last));
      if (ooc == "partition") CHECK(has_phase(s, "partition into "));
    }
}

TEST_CASE("dedupe: --count totals equal the input count") {
  TempDir d;
  std::mt19937_64 rng(5);
  const Format f = Format::typed(KeyType::u32);
  Bytes in = make_input(f, 30011, 300, rng);
  EngineOptions o = cpu_opts(f);
  o.dedupe.count = true;
  Bytes out = run_dedupe(d, in, o);
  REQUIRE(out.size() % 12 == 0);
  uint64_t total = 0;
  for (size_t i = 0; i < out.size(); i += 12) {
    uint64_t c = 0;
    for (int b = 7; b >= 0; --b) c = (c << 8) | out[i + 4 + size_t(b)];
    total += c;
  }
  CHECK(total == 30011);
}

TEST_CASE("dedupe: floats are equal by their totalOrder bits (signed zeros differ, NaN payloads matter)") {
  TempDir d;
  std::mt19937_64 rng(9);
  for (KeyType t : {KeyType::f32, KeyType::f64}) {
    const Format f = Format::typed(t);
    Bytes in = make_input(f, 5000, 0, rng, true);
    EngineOptions o = cpu_opts(f);
    for (const char* s : {"sort", "bitmap"}) {
      if (std::string(s) == "bitmap" && t == KeyType::f64) continue;
      o.dedupe.strategy = parse_choice(std::string(s), "--strategy", kDedupeStrategies);
      Bytes out = run_dedupe(d, in, o);
      CHECK(out == oracle(f, in, false, false));
      CHECK(out.size() == (t == KeyType::f32 ? 8 * 4 : 5 * 8));
    }
  }
}

TEST_CASE("dedupe --assume-sorted: groups across chunk boundaries, and unsorted input fails with its index") {
  TempDir d;
  std::mt19937_64 rng(13);
  Format f;
  f.record_size = 12; f.key_offset = 0; f.key_type = KeyType::u32; f.key_bytes = 4;
  Bytes in = make_input(f, 100003, 41, rng);  // long groups: every chunk boundary cuts one
  const size_t rs = f.record_size;
  std::vector<size_t> idx(100003);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
  Bytes s(in.size());
  for (size_t i = 0; i < idx.size(); ++i) std::memcpy(&s[i * rs], &in[idx[i] * rs], rs);
  for (const char* memory : {"", "1M"})
    for (bool count : {false, true})
      for (bool last : {false, true}) {
        EngineOptions o = cpu_opts(f, memory);
        o.dedupe.assume_sorted = true;
        o.dedupe.count = count;
        o.dedupe.keep_last = last;
        CHECK(run_dedupe(d, s, o) == oracle(f, in, count, last));
      }
  // All equal; then one record out of place.
  Bytes eq = make_input(f, 5000, 1, rng);
  EngineOptions o = cpu_opts(f, "1M");
  o.dedupe.assume_sorted = true;
  o.dedupe.count = true;
  CHECK(run_dedupe(d, eq, o) == oracle(f, eq, true, false));
  Bytes bad = s;
  const size_t at = 77777;
  std::memset(&bad[at * rs], 0, 4);  // key 0 after larger keys
  std::remove((d.path + "/out.bin").c_str());
  try {
    run_dedupe(d, bad, o);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::check_failed);
    CHECK(std::string(e.what()).find("record 77777") != std::string::npos);
  }
  CHECK(!exists(d.path + "/out.bin"));
}

TEST_CASE("dedupe: the host bitmap against sort + unique, every 4-byte key type and --reverse") {
  std::mt19937_64 rng(17);
  for (KeyType t : {KeyType::u32, KeyType::i32, KeyType::f32})
    for (bool rev : {false, true}) {
      Format f = Format::typed(t);
      f.reverse = rev;
      Bytes in = make_input(f, 70001, 0, rng);
      Bytes in2 = make_input(f, 20000, 5000, rng);
      in.insert(in.end(), in2.begin(), in2.end());
      auto bm = make_cpu_key_bitmap(f, 2);
      const size_t n = in.size() / 4, h = n / 3;
      bm->add(in.data(), h);  // two chunks
      bm->add(in.data() + h * 4, n - h);
      Bytes out;
      uint64_t got = bm->extract([&](const unsigned char* p, size_t b) { out.insert(out.end(), p, p + b); });
      Bytes exp = oracle(f, in, false, false);
      CHECK(out == exp);
      CHECK(got * 4 == exp.size());
    }
}

TEST_CASE("unique_in_place and unique_carry (the typed flat loops and the byte compare) against the oracle") {
  std::mt19937_64 rng(11);
  Format f64s = Format::typed(KeyType::f64);
  for (const Format& f : formats())
    for (const Format& g : {f, f64s})
      for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(40009)})
        for (uint64_t distinct : {uint64_t(1), uint64_t(7), uint64_t(0)}) {
          CAPTURE(g.describe()); CAPTURE(n); CAPTURE(distinct);
          const size_t rs = g.record_size;
          Bytes in = make_input(g, n, distinct, rng, g.key_type == KeyType::f64 && distinct == 7);
          // Sorted by key (stable): the oracle keeps the first of each group.
          std::vector<size_t> idx(n);
          std::iota(idx.begin(), idx.end(), 0);
          std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(g, &in[a * rs], &in[b * rs]) < 0; });
          Bytes sorted;
          for (size_t i : idx) sorted.insert(sorted.end(), in.begin() + long(i * rs), in.begin() + long((i + 1) * rs));
          const Bytes want = oracle(g, in, false, false);
          Bytes whole = sorted;
          whole.resize(unique_in_place(g, whole.data(), n) * rs);
          CHECK(whole == want);
          // In pieces of random sizes (groups straddle them), carried across.
          Bytes pieces;
          std::vector<unsigned char> last;
          bool have_last = false;
          for (size_t b = 0; b < n;) {
            const size_t e = std::min(n, b + 1 + size_t(rng() % 300));
            Bytes piece(sorted.begin() + long(b * rs), sorted.begin() + long(e * rs));
            const size_t k = unique_carry(g, piece.data(), e - b, last, have_last);
            pieces.insert(pieces.end(), piece.begin(), piece.begin() + long(k * rs));
            b = e;
          }
          CHECK(pieces == want);
        }
}
