// The partition sort (plan mode partition): its key-range buckets against a brute-force
// count, its sample, its plan, and whole sorts through the engine against the stable
// sort, at sizes around its chunks and buckets, with skewed keys that overflow buckets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "plan/plan.hpp"
#include "engine/partition_sort.hpp"
#include "engine/splitters.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

namespace {

// Splitters' definition, by brute force: the number of sample quantiles <= x.
size_t brute_bucket(const std::vector<uint64_t>& sample, size_t buckets, uint64_t x) {
  size_t b = 0;
  for (size_t j = 1; j < buckets; ++j) b += sample[j * sample.size() / buckets] <= x;
  return b;
}

std::vector<uint64_t> sorted_sample(size_t n, std::mt19937_64& rng, int shape) {
  std::vector<uint64_t> s(n);
  for (auto& x : s) {
    switch (shape) {
      case 0: x = rng(); break;                                  // full range
      case 1: x = (uint64_t(1) << 40) + rng() % 5000; break;     // a narrow range
      case 2: x = rng() % 3; break;                              // heavy duplicates
      case 3: x = rng() % 2 ? UINT64_MAX : UINT64_MAX - 1; break;  // the top of the range
      default: x = rng() >> (rng() % 64); break;                 // every scale
    }
  }
  std::sort(s.begin(), s.end());
  return s;
}

EngineOptions partition_opts(const Format& f, unsigned threads) {
  EngineOptions o = gxsort_test::cpu_opts(f, "1M");
  o.threads = threads;
  o.ooc = OocMethod::partition;
  return o;
}

// The oracle: std::stable_sort of the records by compare_keys.
Bytes stable_sorted(const Format& f, const Bytes& in) {
  const size_t rs = f.record_size, n = in.size() / rs;
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
  Bytes out;
  out.reserve(in.size());
  for (size_t i : idx) out.insert(out.end(), in.begin() + long(i * rs), in.begin() + long((i + 1) * rs));
  return out;
}

Bytes sort_through_engine(const TempDir& d, const Bytes& in, EngineOptions o, RunStats* st) {
  const std::string ip = d.file("in.bin"), op = d.file("out.bin");
  gxsort_test::write_file(ip, in);
  o.tmp_dirs = {d.path};
  *st = sort_file(ip, op, o);
  return gxsort_test::read_file(op);
}

}  // namespace

TEST_CASE("Splitters: bucket_of equals the brute-force count for every shape of sample and bucket count") {
  std::mt19937_64 rng(11);
  for (int shape = 0; shape < 5; ++shape)
    for (size_t buckets : {size_t(1), size_t(2), size_t(3), size_t(22), size_t(255), size_t(256)})
      for (size_t n : {size_t(1), size_t(7), size_t(1000), size_t(65536)}) {
        CAPTURE(shape);
        CAPTURE(buckets);
        CAPTURE(n);
        const std::vector<uint64_t> sample = sorted_sample(n, rng, shape);
        const Splitters sp(sample, buckets);
        REQUIRE(sp.buckets() == buckets);
        std::vector<uint64_t> probes = {0, 1, UINT64_MAX, UINT64_MAX - 1, sample.front(), sample.back()};
        for (int i = 0; i < 300; ++i) {
          const uint64_t s = sample[rng() % n];
          probes.insert(probes.end(), {s, s - 1, s + 1, rng(), rng() >> (rng() % 64)});
        }
        size_t bad = 0;
        for (uint64_t x : probes) {
          const size_t want = brute_bucket(sample, buckets, x);
          bad += sp.bucket_of(x) != want || sp.search(x) != want;
        }
        CHECK(bad == 0);
        // Monotone: a larger prefix never lands in an earlier bucket.
        std::sort(probes.begin(), probes.end());
        size_t last = 0, backwards = 0;
        for (uint64_t x : probes) {
          const size_t b = sp.bucket_of(x);
          backwards += b < last;
          last = b;
        }
        CHECK(backwards == 0);
      }
}

TEST_CASE("sample_prefixes: evenly spaced records, sorted") {
  TempDir d;
  const Format f = Format::typed(KeyType::u64);
  Bytes in(1000 * 8);
  for (uint64_t i = 0; i < 1000; ++i) {
    const uint64_t key = 1000 - i;  // reverse order: the sample must come back sorted
    std::memcpy(&in[i * 8], &key, 8);
  }
  gxsort_test::write_file(d.file("s.bin"), in);
  io::File file = io::File::open_read(d.file("s.bin"));
  const std::vector<uint64_t> s = sample_prefixes(file, f, 1000, 10);
  // Records 50, 150, ..., 950 hold keys 950, 850, ..., 50.
  REQUIRE(s.size() == 10);
  for (size_t j = 0; j < 10; ++j) CHECK(s[j] == 50 + 100 * j);
  CHECK(sample_prefixes(file, f, 0, 10).empty());
}

TEST_CASE("plan: partition when the CPU prefers it, merge otherwise") {
  PlanInput in;
  in.input_bytes = uint64_t(2) << 30;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 256 << 20;
  in.page_cache_bytes = uint64_t(20) << 30;
  in.partition_preferred = true;
  in.merge_threads = 2;
  Plan p = make_plan(in);
  REQUIRE(p.mode == PlanMode::partition);
  // Each bucket's in-memory sort fits the budget, and the buckets hold the input with
  // the room the sample needs.
  CHECK(p.bucket_records * in.sort_bytes_per_record <= in.memory);
  CHECK(p.buckets * p.bucket_records * kBucketFillPercent / 100 >= p.records);
  CHECK(p.buckets <= kMaxBuckets);
  // Pass 1: two stages per bucket and a byte per record of three chunks fit the budget.
  CHECK(p.partition_stage_bytes <= kMaxStageBytes);
  CHECK(p.partition_stage_bytes % 4096 == 0);
  CHECK(2 * p.buckets * p.partition_stage_bytes + 3 * p.partition_chunk_bytes / 8 <= in.memory);
  CHECK(p.partition_chunk_bytes % 8 == 0);
  CHECK(p.temp_bytes == in.input_bytes);
  CHECK(p.bytes_read == 2 * in.input_bytes);
  CHECK(p.levels.empty());
  CHECK(p.runs == 0);

  PlanInput merge = in;
  merge.fan_in = 8;  // a merge tree was asked for
  CHECK(make_plan(merge).mode == PlanMode::external);
  merge = in;
  merge.ooc = OocMethod::merge;
  CHECK(make_plan(merge).mode == PlanMode::external);
  merge = in;
  merge.merge_threads = kPartitionMaxThreads + 1;  // the merge's all-core passes win
  CHECK(make_plan(merge).mode == PlanMode::external);
  merge.merge_threads = kPartitionMaxThreads;
  CHECK(make_plan(merge).mode == PlanMode::partition);
  merge = in;
  merge.partition_preferred = false;  // a device merge
  CHECK(make_plan(merge).mode == PlanMode::external);
  merge = in;
  merge.page_cache_bytes = uint64_t(3) << 30;  // the buckets would crowd the page cache
  CHECK(make_plan(merge).mode == PlanMode::external);
  merge.ooc = OocMethod::partition;            // unless asked for
  CHECK(make_plan(merge).mode == PlanMode::partition);

  // Too many buckets: auto merges, an explicit partition is a usage error.
  PlanInput huge = in;
  huge.input_bytes = uint64_t(1) << 40;
  CHECK(make_plan(huge).mode == PlanMode::external);
  huge.ooc = OocMethod::partition;
  CHECK_THROWS_AS(make_plan(huge), Error);
  CHECK_THROWS_AS(parse_choice(std::string("sideways"), "--ooc", kOocMethods), Error);
  CHECK(parse_choice(std::string("auto"), "--ooc", kOocMethods) == OocMethod::automatic);

  // A budget too small to stage every bucket: auto merges, partition says why.
  PlanInput tight = in;
  tight.memory = 1 << 20;
  tight.input_bytes = 100 << 20;  // 255 buckets of 4 KiB stages: more than half the budget
  CHECK(make_plan(tight).mode == PlanMode::external);
  tight.ooc = OocMethod::partition;
  CHECK_THROWS_AS(make_plan(tight), Error);
  // Stages hold a whole record at least (6000-byte records, a stage of 8 KiB).
  PlanInput wide = in;
  wide.record_size = 6000;
  wide.sort_bytes_per_record = 6024;
  wide.memory = 64 << 20;
  wide.input_bytes = uint64_t(6000) << 16;
  const Plan pw = make_plan(wide);
  REQUIRE(pw.mode == PlanMode::partition);
  CHECK(pw.partition_stage_bytes >= 6000);
  CHECK(2 * pw.buckets * pw.partition_stage_bytes <= wide.memory / 2);

  // An input that fits stays in memory, whatever --ooc says.
  PlanInput small = in;
  small.input_bytes = 1 << 20;
  small.ooc = OocMethod::partition;
  CHECK(make_plan(small).mode == PlanMode::in_memory);
}

TEST_CASE("partition sort through the engine equals the stable sort: formats, sizes, threads, skew") {
  TempDir d;
  std::mt19937_64 rng(5);
  Format rec12;  // 12-byte records, u32 key at 4
  rec12.record_size = 12; rec12.key_offset = 4; rec12.key_type = KeyType::u32; rec12.key_bytes = 4;
  Format wide;   // 24-byte records, 12-byte byte key: ties past the 8-byte prefix
  wide.record_size = 24; wide.key_offset = 0; wide.key_type = KeyType::bytes; wide.key_bytes = 12;
  Format rev = Format::typed(KeyType::i64);
  rev.reverse = true;
  const std::vector<Format> formats = {Format::typed(KeyType::u64), Format::typed(KeyType::f32),
                                       Format::typed(KeyType::f64), rec12, wide, rev};
  size_t partitioned = 0, one_key = 0, through_runs = 0;
  for (const Format& f : formats)
    for (size_t n : {size_t(0), size_t(1), size_t(131071), size_t(200003)})
      for (uint64_t distinct : {uint64_t(0), uint64_t(3), uint64_t(1)}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        CAPTURE(distinct);
        const bool special = distinct == 0 && f.key_type != KeyType::bytes && (f.key_type == KeyType::f32 || f.key_type == KeyType::f64);
        Bytes in = gxsort_test::make_input(f, n, distinct, rng, special);
        const Bytes want = stable_sorted(f, in);
        for (unsigned threads : {1u, 2u}) {
          RunStats st;
          CHECK(sort_through_engine(d, in, partition_opts(f, threads), &st) == want);
          if (st.mode == "partition") {
            ++partitioned;
            for (const auto& ph : st.phases) {
              one_key += ph.name.find("of one key") != std::string::npos;
              through_runs += ph.name.find("through merged runs") != std::string::npos;
            }
          }
        }
        RunStats st;
        // Sorted input: its evenly spaced sample must still split it.
        CHECK(sort_through_engine(d, want, partition_opts(f, 2), &st) == want);
        // -u keeps the first record of each group of equal keys, in input order.
        EngineOptions u = partition_opts(f, 2);
        u.unique = true;
        CHECK(sort_through_engine(d, in, u, &st) == gxsort_test::oracle(f, in, false, false));
      }
  // The cases above really took every path of pass 2.
  CHECK(partitioned > 20);
  CHECK(one_key > 0);
  CHECK(through_runs > 0);
}

TEST_CASE("partition sort: chunks scattered by two threads keep equal keys in input order") {
  // Chunks of more than 2 x 2^16 records take two scatter threads (a budget above the
  // 1M of the cases above); a few keys in records with payload make order visible.
  TempDir d;
  std::mt19937_64 rng(9);
  Format rec12;
  rec12.record_size = 12; rec12.key_offset = 4; rec12.key_type = KeyType::u32; rec12.key_bytes = 4;
  const Bytes in = gxsort_test::make_input(rec12, 1500007, 50, rng);
  EngineOptions o = partition_opts(rec12, 2);
  o.memory = parse_size_option("16M", "--memory");
  RunStats st;
  CHECK(sort_through_engine(d, in, o, &st) == stable_sorted(rec12, in));
  CHECK(st.mode == "partition");
}
