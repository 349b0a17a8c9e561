// Composite keys (--key OFFSET:TYPE[:desc], repeatable): the parser, the canonical
// format, the normalized key against an oracle that decodes each field on its own, and
// every CPU path that orders or compares keys (the chunk sort, unique, check, the merge,
// the engine in memory and out of core, dedupe).
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/composite_keys.hpp"
#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "backend/backend.hpp"
#include "engine/group_pass.hpp"
#include "engine/merge.hpp"
#include "gxsort/error.hpp"
#include "gxsort/gxsort.hpp"
#include "kernels/check_chunk.hpp"
#include "kernels/unique.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::bytes_field;
using gxsort_test::composite_formats;
using gxsort_test::composite_input;
using gxsort_test::field;
using gxsort_test::oracle_compare;
using gxsort_test::oracle_sorted;
using gxsort_test::TempDir;

namespace {

KeyField parsed(const std::string& text) {
  KeyField k;
  REQUIRE(parse_key_field(text, k));
  return k;
}

int sign(int c) { return (c > 0) - (c < 0); }

Bytes sort_on_cpu(const Format& f, const Bytes& in, unsigned threads, bool in_place) {
  auto b = make_cpu_backend(threads);
  const size_t n = in.size() / f.record_size;
  Bytes out(in.size());
  if (in_place) {
    out = in;
    HostBuffer scratch = b->allocate_host(std::max<size_t>(1, b->sort_scratch_bytes(f, n)));
    b->sort_chunk(f, out.data(), n, scratch.data());
  } else {
    b->sort_into(f, in.data(), out.data(), n, {});
  }
  return out;
}

Bytes sort_through_engine(const TempDir& d, const Bytes& in, EngineOptions o, RunStats* st = nullptr) {
  const std::string ip = d.file("in.bin"), op = d.file("out.bin");
  gxsort_test::write_file(ip, in);
  o.tmp_dirs = {d.path};
  RunStats s = sort_file(ip, op, o);
  if (st) *st = s;
  return gxsort_test::read_file(op);
}

// Stable sort by the fields, then one record per group of equal fields (its first or
// last in input order), with the group's size after it when `count`.
Bytes dedupe_oracle(const Format& f, const Bytes& in, bool count, bool last) {
  const size_t rs = f.record_size, n = in.size() / rs;
  const Bytes sorted = oracle_sorted(f, in.data(), n);
  Bytes out;
  for (size_t b = 0, e; b < n; b = e) {
    for (e = b + 1; e < n && oracle_compare(f, &sorted[b * rs], &sorted[e * rs]) == 0;) ++e;
    const size_t pick = last ? e - 1 : b;
    out.insert(out.end(), sorted.begin() + long(pick * rs), sorted.begin() + long((pick + 1) * rs));
    for (int i = 0; count && i < 8; ++i) out.push_back(uint8_t(uint64_t(e - b) >> (8 * i)));
  }
  return out;
}

}  // namespace

TEST_CASE("--key texts: OFFSET:TYPE[:desc], bytes:N, big-endian forms; names are not fields") {
  KeyField k = parsed("12:u16be:desc");
  CHECK(k.offset == 12);
  CHECK(k.type == KeyType::u16);
  CHECK(k.bytes == 2);
  CHECK(k.big_endian);
  CHECK(k.desc);
  k = parsed("0:bytes:13");
  CHECK(k.type == KeyType::bytes);
  CHECK(k.bytes == 13);
  CHECK(!k.desc);
  CHECK(parsed("3:i8:asc").type == KeyType::i8);
  CHECK(parsed("4:f64").bytes == 8);
  for (const char* t : {"0:u8", "1:i16:desc", "2:f32be", "0:bytes:5:desc", "7:i64be"})
    CHECK(key_field_text(parsed(t)) == t);
  KeyField ignored;
  CHECK(!parse_key_field("price", ignored));      // a .npy field name
  CHECK(!parse_key_field("price:desc", ignored));
  CHECK(!parse_key_field("8", ignored));
  for (const char* bad : {"0:u33", "0:u8be", "0:bytes", "0:bytes:0", "0:u32:down", "0:u32:desc:x", "99999999999:u8", "0:"})
    CHECK_THROWS_AS(parse_key_field(bad, ignored), Error);
}

TEST_CASE("of_keys: one field of a single-key type keeps the single-key paths; anything else is composite") {
  Format f = Format::of_keys(4, {field(0, KeyType::u32)}, false);
  CHECK(!f.composite());
  CHECK(f.flat());
  f = Format::of_keys(24, {field(8, KeyType::i64, true)}, false);
  CHECK(!f.composite());
  CHECK(f.key_offset == 8);
  CHECK(f.reverse);  // a descending single key is --reverse
  CHECK(Format::of_keys(24, {field(8, KeyType::i64, true)}, true).reverse == false);
  f = Format::of_keys(20, {bytes_field(3, 9)}, false);
  CHECK(!f.composite());
  CHECK(f.key_bytes == 9);
  f = Format::of_keys(2, {field(0, KeyType::u16)}, false);
  CHECK(f.composite());
  CHECK(!f.flat());
  CHECK(f.key_bytes == 2);
  f = Format::of_keys(8, {field(4, KeyType::u32, false, true)}, false);
  CHECK(f.composite());  // big-endian
  f = Format::of_keys(24, {field(0, KeyType::u64), bytes_field(8, 13, true)}, false);
  CHECK(f.composite());
  CHECK(f.key_bytes == 21);
  CHECK(f.key_segments() == 3);
  CHECK(!f.key_fits_prefix());
  CHECK(f.key_text() == "0:u64,8:bytes:13:desc");
  CHECK(f.describe() == "24-byte records, key 0:u64,8:bytes:13:desc");
  std::vector<KeyField> many(kMaxKeyFields + 1, field(0, KeyType::u8));
  CHECK_THROWS_AS(Format::of_keys(4, many, false), Error);
  CHECK(Format::typed(KeyType::i16).composite());
  CHECK(Format::typed(KeyType::f64).flat());
}

TEST_CASE("validate: every field inside the record") {
  CHECK_NOTHROW(Format::of_keys(8, {field(0, KeyType::u32), field(4, KeyType::i32)}, false).validate());
  CHECK_THROWS_AS(Format::of_keys(8, {field(0, KeyType::u32), field(5, KeyType::i32)}, false).validate(), Error);
  CHECK_THROWS_AS(Format::of_keys(8, {field(0, KeyType::u32), bytes_field(2, 7)}, false).validate(), Error);
}

TEST_CASE("the normalized key orders and equates as the fields do, for every format, reversed or not") {
  std::mt19937_64 rng(41);
  for (const Format& f : composite_formats()) {
    for (uint64_t distinct : {uint64_t(0), uint64_t(3)}) {
      CAPTURE(f.describe());
      const size_t rs = f.record_size, n = 400;
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
}

TEST_CASE("key_segment: the normalized key, zero padded; set_normalized_key is its inverse") {
  std::mt19937_64 rng(5);
  for (const Format& f : composite_formats()) {
    if (f.reverse) continue;  // set_normalized_key writes the order without --reverse
    CAPTURE(f.describe());
    const size_t segs = f.key_segments();
    for (int t = 0; t < 200; ++t) {
      Bytes norm(segs * 8, 0), rec(f.record_size, 0);
      for (size_t j = 0; j < f.key_bytes; ++j) norm[j] = uint8_t(rng());
      set_normalized_key(f, norm.data(), rec.data());
      for (size_t s = 0; s < segs; ++s) {
        uint64_t want = 0;
        for (size_t j = 0; j < 8; ++j) want = (want << 8) | norm[s * 8 + j];
        CHECK(key_segment(f, rec.data(), s) == want);
      }
    }
  }
  // Bytes past the key are zero in the last segment.
  const Format f = Format::of_keys(4, {field(0, KeyType::u8), field(1, KeyType::u8, true)}, false);
  const unsigned char rec[4] = {0x12, 0x34, 0xff, 0xff};
  CHECK(key_prefix(f, rec) == 0x12cb000000000000ull);
}

TEST_CASE("the CPU chunk sort of composite keys is the stable sort by the fields: sizes, ties, threads") {
  std::mt19937_64 rng(7);
  const size_t sizes[] = {0, 1, 2, 3, 7, 257, 1025, 7919, 65537};
  for (const Format& f : composite_formats())
    for (size_t n : sizes)
      for (uint64_t distinct : {uint64_t(0), uint64_t(2), uint64_t(1)}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        CAPTURE(distinct);
        const Bytes in = composite_input(f, n, distinct, rng);
        const Bytes want = oracle_sorted(f, in.data(), n);
        CHECK(sort_on_cpu(f, in, 1, true) == want);
        CHECK(sort_on_cpu(f, in, 3, false) == want);
      }
}

TEST_CASE("composite keys of wide ties: large groups of equal prefixes on several threads") {
  // 300007 records: the radix sort's parallel passes, and tie groups larger than a
  // thread's share (the first field takes two values).
  std::mt19937_64 rng(8);
  const Format f = Format::of_keys(24, {field(0, KeyType::u64), field(8, KeyType::f64, true), bytes_field(16, 5)}, false);
  const Format g = Format::of_keys(16, {field(0, KeyType::u8), field(1, KeyType::i64, false, true), field(9, KeyType::u32)}, true);
  for (const Format& fmt : {f, g})
    for (uint64_t distinct : {uint64_t(2), uint64_t(300)}) {
      CAPTURE(fmt.describe());
      const size_t n = 300007;
      const Bytes in = composite_input(fmt, n, distinct, rng);
      const Bytes want = oracle_sorted(fmt, in.data(), n);
      CHECK(sort_on_cpu(fmt, in, 2, false) == want);
      CHECK(sort_on_cpu(fmt, in, 4, true) == want);
    }
}

TEST_CASE("unique and check of composite keys: equality on every field") {
  std::mt19937_64 rng(9);
  for (const Format& f : composite_formats())
    for (uint64_t distinct : {uint64_t(1), uint64_t(2), uint64_t(0)}) {
      CAPTURE(f.describe());
      const size_t n = 3001, rs = f.record_size;
      const Bytes in = composite_input(f, n, distinct, rng);
      Bytes sorted = oracle_sorted(f, in.data(), n);
      const Bytes want = oracle_sorted(f, in.data(), n, true);
      Bytes u = sorted;
      CHECK(Bytes(u.begin(), u.begin() + long(unique_in_place(f, u.data(), n) * rs)) == want);
      const CheckPartial c = check_chunk_cpu(f, sorted.data(), n, 0);
      CHECK(c.first_violation == UINT64_MAX);
      CHECK(c.duplicates == n - want.size() / rs);
      // An unsorted input: the first record smaller than its predecessor.
      uint64_t first = UINT64_MAX;
      for (size_t i = 1; i < n && first == UINT64_MAX; ++i)
        if (oracle_compare(f, &in[(i - 1) * rs], &in[i * rs]) > 0) first = i;
      CHECK(check_chunk_cpu(f, in.data(), n, 0).first_violation == first);
    }
}

TEST_CASE("merge_runs of composite-key runs is the stable merge (memory and file runs, 1 and 3 threads)") {
  std::mt19937_64 rng(10);
  TempDir d;
  size_t outputs = 0;
  for (const Format& f : composite_formats()) {
    CAPTURE(f.describe());
    const size_t rs = f.record_size;
    std::vector<Bytes> runs;
    Bytes all;
    for (size_t r = 0; r < 5; ++r) {
      const size_t n = r == 2 ? 0 : 2000 + rng() % 3000;
      const Bytes in = composite_input(f, n, 3, rng);
      runs.push_back(oracle_sorted(f, in.data(), n));
      all.insert(all.end(), runs.back().begin(), runs.back().end());
    }
    const Bytes want = oracle_sorted(f, all.data(), all.size() / rs);
    std::vector<std::unique_ptr<io::TempFile>> files;
    std::vector<RunRef> refs(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
      refs[r].records = runs[r].size() / rs;
      refs[r].name = "run" + std::to_string(r);
      if (r % 2) {
        refs[r].mem = runs[r].data();
      } else {
        files.push_back(std::make_unique<io::TempFile>(io::TempFile::create({}, d.path, "keys-run")));
        if (!runs[r].empty()) files.back()->file().write_at(runs[r].data(), runs[r].size(), 0);
        refs[r].file = &files.back()->file();
      }
    }
    for (unsigned threads : {1u, 3u}) {
      io::File out = io::File::create_new(d.file("merged" + std::to_string(outputs++)));
      MergeSetup job;
      job.format = &f;
      job.buffer_bytes = 4096;
      job.threads = threads;
      const uint64_t m = merge_runs(job, refs, out, 0);
      Bytes got(m * rs);
      if (m) out.read_at(got.data(), got.size(), 0);
      CHECK(got == want);
    }
  }
}

TEST_CASE("sort through the engine with composite keys: in memory, --ooc merge, --ooc partition, -u, --reverse") {
  TempDir d;
  std::mt19937_64 rng(12);
  const std::vector<Format> fs = {
      Format::of_keys(16, {field(0, KeyType::u8), field(1, KeyType::u16, true, true), field(3, KeyType::f32)}, false),
      Format::of_keys(24, {field(8, KeyType::f64, true), field(0, KeyType::i16), bytes_field(2, 3)}, false),
      Format::of_keys(32, {field(0, KeyType::u32), bytes_field(4, 13), field(24, KeyType::i64)}, true)};
  size_t partitioned = 0, merged = 0;
  for (const Format& f : fs)
    for (uint64_t distinct : {uint64_t(0), uint64_t(3)}) {
      CAPTURE(f.describe());
      CAPTURE(distinct);
      const size_t n = 150001;
      const Bytes in = composite_input(f, n, distinct, rng);
      const Bytes want = oracle_sorted(f, in.data(), n);
      const Bytes want_u = oracle_sorted(f, in.data(), n, true);
      CHECK(sort_through_engine(d, in, gxsort_test::cpu_opts(f)) == want);
      for (OocMethod m : {OocMethod::merge, OocMethod::partition}) {
        EngineOptions o = gxsort_test::cpu_opts(f, "1M");
        o.ooc = m;
        RunStats st;
        CHECK(sort_through_engine(d, in, o, &st) == want);
        partitioned += st.mode == "partition";
        merged += st.runs > 1 && st.mode != "partition";
        o.unique = true;
        CHECK(sort_through_engine(d, in, o) == want_u);
      }
    }
  CHECK(partitioned == 6);
  CHECK(merged == 6);
}

TEST_CASE("dedupe of composite keys: keep first or last, with counts, in memory and out of core") {
  TempDir d;
  std::mt19937_64 rng(13);
  const Format f = Format::of_keys(12, {field(0, KeyType::i8), field(4, KeyType::u32, true, true)}, false);
  const size_t n = 60013, rs = f.record_size;
  const Bytes in = composite_input(f, n, 7, rng);
  for (const char* memory : {"", "1M"})
    for (bool last : {false, true})
      for (bool count : {false, true}) {
        CAPTURE(memory); CAPTURE(last); CAPTURE(count);
        EngineOptions o = gxsort_test::cpu_opts(f, memory);
        o.dedupe.keep_last = last;
        o.dedupe.count = count;
        const std::string ip = d.file("in.bin"), op = d.file("out.bin");
        gxsort_test::write_file(ip, in);
        o.tmp_dirs = {d.path};
        dedupe_file(ip, op, o);
        CHECK(gxsort_test::read_file(op) == dedupe_oracle(f, in, count, last));
      }
}

TEST_CASE("dedupe --strategy bitmap refuses composite keys; auto takes the sort") {
  const Format f = Format::of_keys(4, {field(0, KeyType::u16), field(2, KeyType::u16)}, false);
  DedupeInput in;
  in.records = uint64_t(1) << 30;
  in.sort_in_memory = false;
  in.key_span = 1 << 20;
  CHECK_THROWS_AS(choose_dedupe_strategy(DedupeStrategy::bitmap, f, false, false, in), Error);
  CHECK(choose_dedupe_strategy(DedupeStrategy::automatic, f, false, false, in) == DedupePath::sort);
}
