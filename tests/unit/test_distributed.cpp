// The distributed sort without MPI: its sizes (slices, rounds, samples), its splitters
// against the stable sort (ranges in key order, equal keys split between ranks at input
// positions, the sampling bound), and whole sorts on ranks that are threads of this
// process (tests/common/thread_comm.hpp), byte-identical to sort_file, with a rank that fails.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "../common/thread_comm.hpp"
#include "distributed/shape.hpp"
#include "distributed/splitters.hpp"
#include "gxsort/distributed.hpp"
#include "io/file.hpp"
#include "io/debris.hpp"
#include "io/temp_files.hpp"
#include "platform/sizes.hpp"

using namespace gxsort;
using namespace gxsort::distributed;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

TEST_CASE("slice_of: contiguous slices covering the input, sizes within one record") {
  for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 7ull, 1000ull, 1000003ull, (1ull << 62) + 5}) {
    for (int ranks : {1, 2, 3, 4, 7, 64}) {
      uint64_t next = 0, lo = UINT64_MAX, hi = 0;
      for (int r = 0; r < ranks; ++r) {
        const Slice s = slice_of(n, r, ranks);
        CHECK(s.first == next);
        next = s.first + s.records;
        lo = std::min(lo, s.records);
        hi = std::max(hi, s.records);
      }
      CHECK(next == n);
      CHECK(hi - lo <= 1);
    }
  }
}

TEST_CASE("rounds: every pair's shares cover it exactly, a round moves at most round_records + ranks") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int ranks = 1 + int(rng() % 6);
    const uint64_t per_round = 1 + rng() % 50;
    std::vector<std::vector<uint64_t>> pairs(static_cast<size_t>(ranks), std::vector<uint64_t>(static_cast<size_t>(ranks)));
    uint64_t most = 0;
    for (auto& row : pairs)
      for (auto& c : row) c = trial % 5 == 0 ? 0 : rng() % (trial % 3 == 0 ? 1000 : 30);  // some skewed, some empty
    for (int a = 0; a < ranks; ++a) {
      uint64_t out = 0, in = 0;
      for (int b = 0; b < ranks; ++b) out += pairs[size_t(a)][size_t(b)], in += pairs[size_t(b)][size_t(a)];
      most = std::max({most, out, in});
    }
    const uint64_t rounds = exchange_rounds(most, per_round);
    CHECK((most == 0) == (rounds == 0));
    for (int a = 0; a < ranks; ++a)
      for (uint64_t k = 0; k < rounds; ++k) {
        uint64_t sent = 0;
        for (int b = 0; b < ranks; ++b) {
          const uint64_t c = pairs[size_t(a)][size_t(b)], share = pair_share(c, rounds);
          const uint64_t from = std::min(c, k * share);
          sent += std::min(c - from, share);
          if (k + 1 == rounds) CHECK(std::min(c, (k + 1) * share) == c);  // all of it by the last round
        }
        CHECK(sent <= per_round + uint64_t(ranks));
      }
  }
  CHECK(round_records(staging_bytes(1 << 20), 100, 4) > 0);
  CHECK(round_records(1000, 100, 8) == 0);  // buffers smaller than a record per rank
  CHECK(staging_bytes(uint64_t(64) << 30) == uint64_t(512) << 20);
}

TEST_CASE("sample_positions: increasing, inside the run, one per equal part") {
  for (uint64_t n : {1ull, 2ull, 5ull, 64ull, 1000ull, 99991ull})
    for (uint64_t s : {1ull, 2ull, 3ull, 64ull, 5000ull}) {
      const std::vector<uint64_t> p = sample_positions(n, s);
      CHECK(p.size() == std::min(n, s));
      for (size_t i = 0; i < p.size(); ++i) {
        CHECK(p[i] < n);
        if (i) CHECK(p[i] > p[i - 1]);
        CHECK(p[i] / ((n + p.size() - 1) / p.size() + 1) <= i);
      }
    }
  CHECK(samples_for(0, 0, 8, 4) == 0);
  CHECK(samples_for(10, 1, 8, 4) == 10);
  CHECK(samples_for(1 << 30, 3, 8, 4) == 64 * 4 * 3);
  CHECK(samples_for(1 << 30, 3, 100, 4096) == (uint64_t(64) << 20) / (4096 * 116));  // the 64 MiB cap
}

namespace {

Format record_format(size_t record_size, size_t key_offset, KeyType type, size_t key_bytes) {
  Format f;
  f.record_size = record_size;
  f.key_offset = key_offset;
  f.key_type = type;
  f.key_bytes = key_bytes;
  return f;
}

// A stable sort of `in` (the oracle).
Bytes stable_sorted(const Format& f, const Bytes& in) {
  const size_t rs = f.record_size, n = in.size() / rs;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
  Bytes out;
  for (size_t i : idx) out.insert(out.end(), in.begin() + long(i * rs), in.begin() + long((i + 1) * rs));
  return out;
}

// The splitters' steps on `ranks` ranks of `runs_per_rank` runs each, done in one thread:
// each rank's slice cut into runs, sorted stably; samples; splitters; cuts. Each rank's
// range (the pieces it would receive, in input order, merged stably) must be the stable
// sort's next stretch, and no range may pass the sampling bound.
void check_splitters(const Format& f, const Bytes& in, int ranks, uint64_t runs_per_rank) {
  const size_t rs = f.record_size, n = in.size() / rs;
  std::vector<Bytes> data;                     // every run's bytes, sorted
  std::vector<std::vector<RunRef>> runs(static_cast<size_t>(ranks));
  std::vector<Sampled> samples;
  for (int r = 0; r < ranks; ++r) {
    const Slice s = slice_of(n, r, ranks);
    const uint64_t per = std::max<uint64_t>(1, (s.records + runs_per_rank - 1) / runs_per_rank);
    for (uint64_t at = 0; at < s.records; at += per) {
      const uint64_t m = std::min(per, s.records - at);
      data.push_back(stable_sorted(f, Bytes(in.begin() + long((s.first + at) * rs), in.begin() + long((s.first + at + m) * rs))));
    }
  }
  size_t next = 0;
  std::vector<std::string> blobs;
  for (int r = 0; r < ranks; ++r) {
    const Slice s = slice_of(n, r, ranks);
    const uint64_t per = std::max<uint64_t>(1, (s.records + runs_per_rank - 1) / runs_per_rank);
    for (uint64_t at = 0; at < s.records; at += per) {
      RunRef ref;
      ref.mem = data[next].data();
      ref.records = data[next++].size() / rs;
      runs[size_t(r)].push_back(ref);
    }
    uint64_t records = 0;
    for (const RunRef& x : runs[size_t(r)]) records += x.records;
    samples.push_back(take_samples(f, runs[size_t(r)], uint32_t(r), samples_for(records, runs[size_t(r)].size(), rs, ranks)));
    blobs.push_back(samples.back().bytes);
  }
  const std::vector<Sample> sorted = sorted_samples(f, blobs);
  const std::vector<Sample> splitters = choose_splitters(sorted, ranks);
  uint64_t gap = 0, total_runs = 0;
  for (const Sampled& s : samples) gap = std::max(gap, s.widest_gap), total_runs += s.runs;
  const uint64_t bound = gap * ((sorted.size() + uint64_t(ranks) - 1) / uint64_t(ranks) + total_runs);
  std::vector<std::vector<std::vector<uint64_t>>> cuts;
  for (int r = 0; r < ranks; ++r) cuts.push_back(cut_runs(f, runs[size_t(r)], uint32_t(r), splitters, ranks));
  Bytes joined;
  for (int d = 0; d < ranks; ++d) {
    Bytes range;  // the pieces for d, in input order: a stable sort of them is their stable merge
    for (int r = 0; r < ranks; ++r)
      for (size_t i = 0; i < runs[size_t(r)].size(); ++i) {
        const auto& c = cuts[size_t(r)][i];
        REQUIRE(c[size_t(d)] <= c[size_t(d) + 1]);
        const unsigned char* m = runs[size_t(r)][i].mem;
        range.insert(range.end(), m + c[size_t(d)] * rs, m + c[size_t(d) + 1] * rs);
      }
    CHECK(range.size() / rs <= std::max<uint64_t>(bound, 1));
    const Bytes merged = stable_sorted(f, range);
    joined.insert(joined.end(), merged.begin(), merged.end());
  }
  CHECK(joined == stable_sorted(f, in));
}

}  // namespace

TEST_CASE("splitters: ranges in key order, ties split at input positions, within the sampling bound") {
  std::mt19937_64 rng(11);
  const Format rec = record_format(12, 4, KeyType::u32, 4);
  const Format wide = record_format(20, 0, KeyType::bytes, 12);  // ties finished past the 8-byte prefix
  Format rev = Format::typed(KeyType::f64);
  rev.reverse = true;
  for (const Format& f : {rec, wide, rev, Format::gensort()})
    for (size_t n : {0, 1, 2, 5, 97, 1000, 4099})
      for (uint64_t distinct : {0ull, 1ull, 3ull, 40ull})
        for (int ranks : {1, 2, 3, 4, 7}) {
          CAPTURE(f.describe());
          CAPTURE(n);
          CAPTURE(distinct);
          CAPTURE(ranks);
          const Bytes in = gxsort_test::make_input(f, n, distinct, rng, f.key_type == KeyType::f64 && distinct == 3);
          check_splitters(f, in, ranks, n > 100 ? 3 : 1);
        }
}

TEST_CASE("cut_run: a run in a file is cut where the same run in memory is") {
  TempDir dir;
  std::mt19937_64 rng(3);
  const Format f = Format::typed(KeyType::u64);
  Bytes in = gxsort_test::make_input(f, 5000, 50, rng);
  in = stable_sorted(f, in);
  gxsort_test::write_file(dir.file("run"), in);
  const io::File file = io::File::open_read(dir.file("run"));
  RunRef mem, disk;
  mem.mem = in.data();
  mem.records = disk.records = 5000;
  disk.file = &file;
  for (int i = 0; i < 200; ++i) {
    Sample s;
    s.record = &in[(rng() % 5000) * 8];
    s.place = {uint32_t(rng() % 3), uint32_t(rng() % 3), rng() % 5000};
    const uint32_t rank = uint32_t(rng() % 3), run = uint32_t(rng() % 3);
    CHECK(cut_run(f, mem, rank, run, s, 0) == cut_run(f, disk, rank, run, s, 0));
  }
}

namespace {

// sort_distributed on `ranks` thread ranks; returns each rank's error text ("" if none).
// `shapes` collects how the ranks sorted and received ("run files, to files").
std::vector<std::string> sort_on_threads(int ranks, const std::string& in, const std::string& out,
                                         const std::vector<EngineOptions>& opts, std::set<std::string>* shapes = nullptr) {
  gxsort_test::ThreadWorld world(ranks);
  std::vector<std::string> errors(static_cast<size_t>(ranks));
  world.run([&](int r) {
    DistributedSession job(std::make_unique<gxsort_test::ThreadComm>(world, r));
    try {
      const RunStats st = sort_distributed(in, out, opts[size_t(r)], job);
      for (const RankStats& x : st.ranks)
        if (shapes && x.slice_records) shapes->insert(x.local + (x.received_in_memory ? ", in memory" : ", to files"));
    } catch (const PeerFailed&) {
      errors[size_t(r)] = "peer";
    } catch (const std::exception& e) {
      errors[size_t(r)] = e.what();
    }
  });
  return errors;
}

}  // namespace

TEST_CASE("sort_distributed on thread ranks: byte-identical to sort_file, in and out of core, -u, -r") {
  TempDir dir;
  std::mt19937_64 rng(5);
  const Format rec = record_format(24, 4, KeyType::i32, 4);
  struct Case { Format f; size_t n; uint64_t distinct; const char* memory; bool unique, reverse; };
  const Case cases[] = {
      {Format::typed(KeyType::u64), 20000, 0, "", false, false},
      {Format::typed(KeyType::u64), 150000, 0, "1M", false, false},     // run files, rounds, received to files
      {rec, 60000, 5, "1M", false, false},                              // few keys: ties across ranks
      {rec, 60000, 5, "1M", true, false},                               // -u across rank boundaries
      {rec, 3000, 1, "", true, true},                                   // one key
      {Format::gensort(), 20000, 0, "2M", false, true},
      {Format::gensort(), 300000, 7, "16M", false, false},  // 3, 4 ranks: runs in memory, the others' pieces to files
      {Format::typed(KeyType::f64), 5000, 3, "", true, false},          // NaNs, signed zeros
      {Format::typed(KeyType::u32), 2, 0, "", false, false},            // fewer records than ranks
      {Format::typed(KeyType::u32), 0, 0, "", false, false},
  };
  std::set<std::string> shapes;
  for (const Case& c : cases)
    for (int ranks : {1, 3, 4})
      for (Exchange exchange : {Exchange::automatic, Exchange::mpi}) {
        if (exchange == Exchange::mpi && !*c.memory) continue;  // in memory, both take MPI
        Format f = c.f;
        f.reverse = c.reverse;
        CAPTURE(f.describe());
        CAPTURE(c.n);
        CAPTURE(c.memory);
        CAPTURE(c.unique);
        CAPTURE(ranks);
        CAPTURE(int(exchange));
        gxsort_test::write_file(dir.file("in"), gxsort_test::make_input(f, c.n, c.distinct, rng, f.key_type == KeyType::f64));
        EngineOptions o = gxsort_test::cpu_opts(f, c.memory);
        o.threads = 1;
        o.unique = c.unique;
        o.tmp_dirs = {dir.path};
        sort_file(dir.file("in"), dir.file("want"), o);
        if (!o.memory.given) o.memory = parse_size_option("64M", "--memory");
        o.exchange = exchange;
        const std::vector<std::string> errors =
            sort_on_threads(ranks, dir.file("in"), dir.file("got"), std::vector<EngineOptions>(size_t(ranks), o), &shapes);
        for (const std::string& e : errors) CHECK(e == "");
        CHECK(gxsort_test::read_file(dir.file("got")) == gxsort_test::read_file(dir.file("want")));
        CHECK(io::find_temp_files({dir.path}).empty());
      }
  // Every way a rank sorts its slice and receives its range was taken (a rank with run
  // files keeps its own pieces in them, and receives to files for the merge tree; on one
  // host, as these threads are, it reads the others' run files in place).
  CHECK(shapes == std::set<std::string>{"in memory, in memory", "runs in memory, to files", "run files, to files",
                                        "run files, read in place by every rank (one host), to files"});
}

TEST_CASE("sort_distributed on thread ranks: a rank that fails fails them all, leaving nothing") {
  TempDir dir;
  std::mt19937_64 rng(9);
  const Format f = Format::typed(KeyType::u64);
  gxsort_test::write_file(dir.file("in"), gxsort_test::make_input(f, 100000, 0, rng));
  EngineOptions o = gxsort_test::cpu_opts(f, "1M");
  o.threads = 1;
  o.tmp_dirs = {dir.path};
  std::vector<EngineOptions> opts(3, o);
  opts[2].tmp_dirs = {dir.file("missing")};  // out of core on rank 2: its runs have nowhere to go
  const std::vector<std::string> errors = sort_on_threads(3, dir.file("in"), dir.file("out"), opts);
  CHECK(errors[0] == "peer");
  CHECK(errors[1] == "peer");
  CHECK(errors[2].find("missing") != std::string::npos);
  CHECK(!std::ifstream(dir.file("out")).good());
  CHECK(io::find_temp_files({dir.path}).empty());
  // Options that differ from rank 0's (mpirun's MPMD form): refused before any work.
  opts = std::vector<EngineOptions>(3, o);
  opts[1].unique = true;
  const std::vector<std::string> differ = sort_on_threads(3, dir.file("in"), dir.file("out"), opts);
  CHECK(differ[1].find("differ from rank 0") != std::string::npos);
  CHECK(differ[0] == "peer");
}

TEST_CASE("distributed_rank_options: a rank's share of its host, its GPU, and what was given kept") {
  EngineOptions o;
  o.device = Device::cpu;
  const EngineOptions a = distributed_rank_options(o, 5, 4, false);
  CHECK(a.device_index == 5);
  CHECK(a.memory.given);
  CHECK(a.memory.bytes == memory_limit(Context()).bytes / 2 / 4);
  const unsigned cores = unsigned(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  CHECK(a.threads == std::max(1u, std::min(default_threads(), cores / 4)));
  o.memory = parse_size_option("1G", "--memory");
  o.threads = 7;
  const EngineOptions b = distributed_rank_options(o, 0, 4, true);
  CHECK(b.memory.bytes == uint64_t(1) << 30);
  CHECK(b.threads == 7);
  CHECK(!b.device_memory.given);  // --device cpu: no GPU budget to share
}

namespace {

// The names in a directory.
std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("distributed requests on thread ranks: plan() writes nothing, report() is plan --distributed's, run() "
          "gives sort_file's and merge_files' bytes") {
  TempDir dir;
  std::mt19937_64 rng(11);
  const Format f = Format::typed(KeyType::u64);
  gxsort_test::write_file(dir.file("in"), gxsort_test::make_input(f, 50000, 40, rng));
  EngineOptions o = gxsort_test::cpu_opts(f, "1M");
  o.threads = 1;
  o.tmp_dirs = {dir.path};
  sort_file(dir.file("in"), dir.file("sorted"), o);
  merge_files({dir.file("sorted"), dir.file("sorted")}, dir.file("want_merge"), o);
  const std::set<std::string> before = names_in(dir.path);
  gxsort_test::ThreadWorld world(3);
  std::vector<std::string> errors(3);
  world.run([&](int r) {
    DistributedSession job(std::make_unique<gxsort_test::ThreadComm>(world, r));
    try {
      CommandPlan<DistributedSortRequest> sort = plan(DistributedSortRequest{dir.file("in"), dir.file("got"), o, &job});
      CommandPlan<DistributedMergeRequest> merge =
          plan(DistributedMergeRequest{{dir.file("sorted"), dir.file("sorted")}, dir.file("got_merge"), o, &job});
      job.comm().barrier();  // every rank planned: nothing written by any
      CHECK(names_in(dir.path) == before);
      job.comm().barrier();
      const PlanReport want = plan_distributed(dir.file("in"), o, &job, 0);
      const PlanReport& got = sort.report();
      if (!got.distributed) throw std::runtime_error("the sort's report has no distributed part");
      CHECK(got.records == want.records);
      CHECK(got.distributed->ranks.size() == 3);
      CHECK(got.distributed->rounds == want.distributed->rounds);
      CHECK(got.distributed->total_runs == want.distributed->total_runs);
      CHECK(got.distributed->file_exchange == want.distributed->file_exchange);
      for (size_t k = 0; k < 3; ++k) {
        CHECK(got.distributed->ranks[k].records == want.distributed->ranks[k].records);
        CHECK(got.distributed->ranks[k].local == want.distributed->ranks[k].local);
        CHECK(got.distributed->ranks[k].runs == want.distributed->ranks[k].runs);
      }
      CHECK(merge.report().records == 100000);
      gxsort::run(std::move(sort));
      gxsort::run(std::move(merge));
    } catch (const std::exception& e) {
      errors[size_t(r)] = e.what();
    }
  });
  for (const std::string& e : errors) CHECK(e == "");
  CHECK(gxsort_test::read_file(dir.file("got")) == gxsort_test::read_file(dir.file("sorted")));
  CHECK(gxsort_test::read_file(dir.file("got_merge")) == gxsort_test::read_file(dir.file("want_merge")));
  CHECK(io::find_temp_files({dir.path}).empty());
}
