// The in-memory API (gxsort/memory.hpp) against std::stable_sort by compare_keys: sort,
// argsort, unique and merge, in memory and through temp files (a small budget), two
// calls at once, and cancellation.
#include <dirent.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "gxsort/memory.hpp"
#include "api/memory_sort.hpp"
#include "api/unique_groups.hpp"
#include "../common/records.hpp"

using namespace gxsort;

namespace {

using Bytes = std::vector<unsigned char>;

// A private directory of this test (the tests check it is empty when they end), removed
// with whatever a failed test left in it.
struct TestDir {
  std::string path;
  TestDir() {
    char p[] = "/tmp/gxsort-unit-mem-XXXXXX";
    REQUIRE(mkdtemp(p));
    path = p;
  }
  ~TestDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  size_t entries() const {
    size_t n = 0;
    DIR* d = opendir(path.c_str());
    while (dirent* e = readdir(d)) n += std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..");
    closedir(d);
    return n;
  }
};


Bytes permuted(const Bytes& data, const std::vector<uint64_t>& perm, size_t rs) {
  Bytes out(data.size());
  for (size_t i = 0; i < perm.size(); ++i) std::memcpy(&out[i * rs], &data[perm[i] * rs], rs);
  return out;
}

enum class Dist { random, duplicates, sorted, reversed };

// n records of f: random bytes, then the key fields set by `dist` (floats: with NaNs of
// both signs, infinities and signed zeros among them).
Bytes make_records(const Format& f, size_t n, Dist dist, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bytes data(n * f.record_size);
  for (auto& b : data) b = static_cast<unsigned char>(rng());
  const double specials[] = {std::nan(""), -std::nan(""), 0.0, -0.0, INFINITY, -INFINITY, 1e-310, -1.5};
  for (size_t i = 0; i < n; ++i) {
    unsigned char* rec = &data[i * f.record_size];
    for (const KeyField& k : f.key_fields()) {
      uint64_t v = rng();
      if (dist == Dist::duplicates) v %= 3;
      if (dist == Dist::sorted) v = i;
      if (dist == Dist::reversed) v = n - i;
      if (k.type == KeyType::f64) {
        const double d = rng() % 5 == 0 ? specials[rng() % 8] : double(int64_t(v % 1000) - 500);
        std::memcpy(rec + k.offset, &d, 8);
      } else if (k.type == KeyType::f32) {
        const float x = rng() % 5 == 0 ? float(specials[rng() % 8]) : float(int64_t(v % 1000) - 500);
        std::memcpy(rec + k.offset, &x, 4);
      } else if (dist != Dist::random) {
        std::memset(rec + k.offset, 0, k.bytes);
        for (uint32_t b = 0; b < std::min<uint32_t>(k.bytes, 8); ++b)  // big-endian for bytes keys
          rec[k.offset + (k.type == KeyType::bytes ? k.bytes - 1 - b : b)] = static_cast<unsigned char>(v >> (8 * b));
      }
    }
  }
  return data;
}

Format composite_format() {  // 12-byte records: u16 at 0 ascending, f32 at 4 descending
  KeyField a = Format::single_field(KeyType::u16, 0);
  KeyField b = Format::single_field(KeyType::f32, 4);
  b.desc = true;
  return Format::of_keys(12, {a, b}, false);
}

Format payload_format() {  // 16-byte records, an i64 key at offset 8
  return Format::of_keys(16, {Format::single_field(KeyType::i64, 8)}, false);
}

std::vector<Format> formats() {
  Format reversed = Format::typed(KeyType::u32);
  reversed.reverse = true;
  return {Format::typed(KeyType::u64), Format::typed(KeyType::f64), Format::typed(KeyType::f32), reversed,
          payload_format(), composite_format(), Format::gensort()};
}

MemoryOptions small_options() {
  MemoryOptions o;
  o.threads = 2;
  o.device = Device::cpu;
  return o;
}

// Options whose budget forces the out-of-core path for a few MiB, spilling in `dir`.
MemoryOptions spill_options(const TestDir& dir) {
  MemoryOptions o = small_options();
  o.memory = parse_size_option("1M", "--memory");
  o.tmp_dirs = {dir.path};
  return o;
}

// `o` with `token` set at its first progress report, the reports counted in `reports`.
MemoryOptions cancelled_at_first_progress(MemoryOptions o, CancelToken& token, std::atomic<int>& reports) {
  o.cancel = &token;
  o.progress = [&token, &reports](const Progress&) {
    ++reports;
    token.cancel();
  };
  return o;
}

using gxsort_test::Groups;
using gxsort_test::unique_oracle;

Groups unique_of(const Format& f, const Bytes& data, const MemoryOptions& o) {
  const size_t rs = f.record_size, n = data.size() / rs;
  Bytes out(data.size());
  std::vector<uint64_t> counts(n), first(n);
  const size_t groups = unique(data.data(), n, f, out.data(), counts.data(), first.data(), o);
  counts.resize(groups);
  first.resize(groups);
  return {Bytes(out.begin(), out.begin() + long(groups * rs)), counts, first};
}

// k sorted inputs of a merge: input i holds sizes[i % sizes.size()] records (empty and
// one-record inputs among the others), keys drawn as `dist` draws them (duplicates:
// ties within and across the inputs), each sorted stably.
std::vector<Bytes> sorted_inputs(const Format& f, size_t k, const std::vector<size_t>& sizes, Dist dist,
                                 uint64_t seed) {
  std::vector<Bytes> parts;
  for (size_t i = 0; i < k; ++i) {
    const Bytes part = make_records(f, sizes[i % sizes.size()], dist, seed + i);
    parts.push_back(permuted(part, gxsort_test::stable_order(f, part), f.record_size));
  }
  return parts;
}

constexpr unsigned char kPast = 0xAB;  // the byte after a merge's output, which it must not write

// The oracle of a merge: the stable sort of its inputs laid end to end, then kPast.
Bytes merge_oracle(const Format& f, const std::vector<Bytes>& parts) {
  Bytes all;
  for (const Bytes& p : parts) all.insert(all.end(), p.begin(), p.end());
  Bytes want = permuted(all, gxsort_test::stable_order(f, all), f.record_size);
  want.push_back(kPast);
  return want;
}

// merge() of the inputs into a buffer with room for them and kPast after.
Bytes merged(const Format& f, const std::vector<Bytes>& parts, const MemoryOptions& o) {
  std::vector<SortedRecords> in;
  size_t bytes = 0;
  for (const Bytes& p : parts) {
    in.push_back({p.data(), p.size() / f.record_size});
    bytes += p.size();
  }
  Bytes out(bytes + 1, kPast);
  merge(in, f, out.data(), o);
  return out;
}

}  // namespace

TEST_CASE("memory api: sort and argsort equal a stable sort") {
  const size_t sizes[] = {0, 1, 2, 7, 1000, 4097};
  for (const Format& f : formats())
    for (size_t n : sizes)
      for (Dist dist : {Dist::random, Dist::duplicates, Dist::sorted, Dist::reversed}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        CAPTURE(int(dist));
        const Bytes data = make_records(f, n, dist, n * 31 + int(dist));
        const std::vector<uint64_t> want = gxsort_test::stable_order(f, data);
        Bytes sorted = data;
        gxsort::sort(sorted.data(), n, f, small_options());
        CHECK(sorted == permuted(data, want, f.record_size));
        std::vector<uint64_t> perm(n);
        argsort(data.data(), n, f, perm.data(), small_options());
        CHECK(perm == want);
      }
}

TEST_CASE("memory api: unique gives the first record, count and first index of each key") {
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(3001)})
      for (Dist dist : {Dist::random, Dist::duplicates}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        const Bytes data = make_records(f, n, dist, n + 7);
        const Groups want = unique_oracle(f, data);
        const Groups got = unique_of(f, data, small_options());
        CHECK(got.records == want.records);
        CHECK(got.counts == want.counts);
        CHECK(got.first == want.first);
        Bytes out(data.size());
        CHECK(unique(data.data(), n, f, out.data(), nullptr, nullptr, small_options()) == want.counts.size());
      }
}

TEST_CASE("memory api: signed zeros and NaNs are distinct keys in totalOrder") {
  const double v[] = {0.0, -0.0, std::nan(""), -std::nan(""), 0.0, -INFINITY, -0.0};
  const Format f = Format::typed(KeyType::f64);
  Bytes data(sizeof v);
  std::memcpy(data.data(), v, sizeof v);
  Bytes out(data.size());
  std::vector<uint64_t> counts(7), first(7);
  REQUIRE(unique(data.data(), 7, f, out.data(), counts.data(), first.data(), small_options()) == 5);
  double got[5];
  std::memcpy(got, out.data(), sizeof got);
  CHECK(std::signbit(got[0]));  // -NaN first
  CHECK(std::isnan(got[0]));
  CHECK(got[1] == -INFINITY);
  CHECK((got[2] == 0.0 && std::signbit(got[2])));
  CHECK((got[3] == 0.0 && !std::signbit(got[3])));
  CHECK((std::isnan(got[4]) && !std::signbit(got[4])));
  CHECK(counts == std::vector<uint64_t>{1, 1, 2, 2, 1, 0, 0});
  CHECK(std::vector<uint64_t>(first.begin(), first.begin() + 5) == std::vector<uint64_t>{3, 5, 1, 0, 2});
}

TEST_CASE("memory api: merge is stable, ties by input order") {
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const size_t rs = f.record_size;
    std::vector<Bytes> parts;
    Bytes all;
    for (size_t k = 0; k < 3; ++k) {
      const size_t n = k == 1 ? 0 : 513 * (k + 1);
      Bytes part = make_records(f, n, Dist::duplicates, 100 + k);
      part = permuted(part, gxsort_test::stable_order(f, part), rs);
      all.insert(all.end(), part.begin(), part.end());
      parts.push_back(part);
    }
    const Bytes want = permuted(all, gxsort_test::stable_order(f, all), rs);
    Bytes out(all.size());
    std::vector<SortedRecords> in;
    for (const Bytes& p : parts) in.push_back({p.data(), p.size() / rs});
    merge(in, f, out.data(), small_options());
    CHECK(out == want);
    Bytes two(parts[0].size() + parts[2].size());
    merge(parts[0].data(), parts[0].size() / rs, parts[2].data(), parts[2].size() / rs, f, two.data(), small_options());
    Bytes twice = parts[0];
    twice.insert(twice.end(), parts[2].begin(), parts[2].end());
    CHECK(two == permuted(twice, gxsort_test::stable_order(f, twice), rs));
  }
  const Format f = Format::typed(KeyType::u64);
  const uint64_t unsorted[] = {1, 3, 2};
  uint64_t out[3];
  CHECK_THROWS_WITH_AS(merge({{unsorted, 3}}, f, out, small_options()),
                       "merge: input 0 is not sorted: record 2 is smaller than the one before it", Error);
}

TEST_CASE("memory api: a merge of k inputs is the stable sort of them laid end to end") {
  for (const Format& f : formats())
    for (size_t k : {1, 2, 3, 17})
      for (Dist dist : {Dist::duplicates, Dist::random}) {
        CAPTURE(f.describe());
        CAPTURE(k);
        CAPTURE(int(dist));
        const std::vector<Bytes> parts = sorted_inputs(f, k, {101, 0, 257, 1}, dist, 1000 * k + int(dist));
        CHECK(merged(f, parts, small_options()) == merge_oracle(f, parts));
      }
  const Format f = Format::typed(KeyType::u64);
  CHECK(merged(f, {}, small_options()) == Bytes{kPast});
  CHECK(merged(f, {Bytes(), Bytes()}, small_options()) == Bytes{kPast});
  uint64_t v[4] = {1, 2, 3, 4};
  CHECK_THROWS_WITH_AS(merge({{v, 1}, {v + 2, 2}}, f, v + 1, small_options()), "merge: the output overlaps input 1",
                       Error);
}

// Large enough for both threads (2^18 records and more: each merges an output range cut
// by the co-rank), larger than the budget too: a merge needs no memory beyond its output,
// so it stays in memory, and no temp file is made.
TEST_CASE("memory api: a merge on both threads, larger than the budget, makes no temp file") {
  TestDir dir;
  Format reversed = Format::typed(KeyType::u32);
  reversed.reverse = true;
  for (const Format& f : {Format::typed(KeyType::u64), Format::typed(KeyType::f64), payload_format(), reversed})
    for (size_t k : {3, 17}) {
      CAPTURE(f.describe());
      CAPTURE(k);
      const size_t a = (size_t(1) << 19) / k | 1;
      const std::vector<Bytes> parts = sorted_inputs(f, k, {a, 0, a + 2, 1}, Dist::duplicates, 50 + k);
      std::atomic<uint64_t> done{0}, total{0};
      MemoryOptions o = spill_options(dir);
      o.progress = [&](const Progress& p) {  // called by both threads
        CHECK(std::string(p.phase) == "merge");
        total = p.total;
        uint64_t d = done.load();
        while (d < p.done && !done.compare_exchange_weak(d, p.done)) {}
      };
      const Bytes want = merge_oracle(f, parts);
      CHECK(merged(f, parts, o) == want);
      CHECK(done.load() == want.size() - 1);
      CHECK(total.load() == want.size() - 1);
      CHECK(dir.entries() == 0);
    }
}

// Three interleaved inputs of 2^17 u64 on two threads: the cut between the threads'
// ranges lies at record 2^16 of each. Two neighbours swapped in input 1 are found
// wherever they lie, inside a range or across the cut (at = n / 2: the threads' own
// checks do not see that pair); with input 2 unsorted too, input 1 is named.
TEST_CASE("memory api: a merge refuses an unsorted input, naming the first") {
  const Format f = Format::typed(KeyType::u64);
  const size_t n = size_t(1) << 17;
  std::vector<std::vector<uint64_t>> in(3, std::vector<uint64_t>(n));
  for (size_t k = 0; k < 3; ++k)
    for (size_t i = 0; i < n; ++i) in[k][i] = 3 * i + k;
  std::vector<uint64_t> out(3 * n);
  for (size_t at : {size_t(1), n / 2 - 2, n / 2 - 1, n / 2, n / 2 + 1, n / 2 + 2, n - 1}) {
    for (bool two_unsorted : {false, true}) {
      CAPTURE(at);
      CAPTURE(two_unsorted);
      std::vector<std::vector<uint64_t>> bad = in;
      std::swap(bad[1][at - 1], bad[1][at]);
      if (two_unsorted) bad[2][n - 1] = 0;
      const std::vector<SortedRecords> refs{{bad[0].data(), n}, {bad[1].data(), n}, {bad[2].data(), n}};
      const std::string want = "merge: input 1 is not sorted: record " + std::to_string(at) +
                               " is smaller than the one before it";
      CHECK_THROWS_WITH_AS(merge(refs, f, out.data(), small_options()), want.c_str(), Error);
    }
  }
}

TEST_CASE("memory api: sort_copy is the sort of a copy, the input untouched") {
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const size_t rs = f.record_size;
    for (size_t n : {size_t(0), size_t(1), size_t(1001)}) {
      const Bytes in = make_records(f, n, Dist::duplicates, 40 + n);
      Bytes out(in.size() + 1, 0xAB), before = in;
      sort_copy(in.data(), out.data(), n, f, small_options());
      CHECK(in == before);
      CHECK(Bytes(out.begin(), out.begin() + in.size()) == permuted(in, gxsort_test::stable_order(f, in), rs));
      CHECK(out.back() == 0xAB);  // nothing past the records
    }
  }
  const Format f = Format::typed(KeyType::u64);
  uint64_t v[4] = {3, 1, 2, 0};
  CHECK_THROWS_WITH_AS(sort_copy(v, v + 1, 3, f, small_options()), "sort_copy: the output overlaps the input", Error);
}

// A sorted copy past the budget: runs formed from the input and merged into the output
// (one copy of the records on the disk), the input untouched, no temp file left; the
// same when cancelled at the first run (the output may be partly written: it is the
// output). With 1 MiB the merge takes two levels: into a temp file, then read into the
// output.
TEST_CASE("memory api: sort_copy larger than the budget merges runs of the input into the output") {
  TestDir dir;
  for (const Format& f : {Format::typed(KeyType::u64), payload_format(), composite_format()}) {
    for (const char* memory : {"2M", "1M"}) {
      CAPTURE(f.describe());
      CAPTURE(memory);
      const size_t n = (size_t(6) << 20) / f.record_size + 3;  // 6 MiB and not whole runs
      const Bytes data = make_records(f, n, Dist::duplicates, 6);
      std::vector<std::string> phases;
      size_t levels = 0;
      MemoryOptions o = spill_options(dir);
      o.memory = parse_size_option(memory, "--memory");
      o.progress = [&](const Progress& p) {
        if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
        levels = std::max(levels, p.levels);
      };
      Bytes out(data.size(), 0xA5);
      sort_copy(data.data(), out.data(), n, f, o);
      CHECK(out == permuted(data, gxsort_test::stable_order(f, data), f.record_size));
      REQUIRE_FALSE(phases.empty());
      CHECK(phases.front() == "runs");
      CHECK(phases == std::vector<std::string>{"runs", "merge"});
      CHECK((levels == 2) == (std::string(memory) == "1M"));
      CHECK(dir.entries() == 0);
      CancelToken token;
      std::atomic<int> reports{0};
      const Bytes before = data;
      o.progress = {};
      CHECK_THROWS_AS(sort_copy(data.data(), out.data(), n, f, cancelled_at_first_progress(o, token, reports)),
                      Cancelled);
      CHECK(data == before);
      CHECK(dir.entries() == 0);
    }
  }
}

TEST_CASE("memory api: first_unsorted finds the first record smaller than the one before") {
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const size_t rs = f.record_size;
    const auto scan = [&](const Bytes& recs, size_t n) {  // the oracle: a linear scan with compare_keys
      for (size_t i = 1; i < n; ++i)
        if (compare_keys(f, recs.data() + (i - 1) * rs, recs.data() + i * rs) > 0) return i;
      return n;
    };
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(777)}) {
      const Bytes recs = make_records(f, n, Dist::duplicates, 7 + n);
      Bytes sorted = permuted(recs, gxsort_test::stable_order(f, recs), rs);
      CHECK(first_unsorted(sorted.data(), n, f) == n);
      CHECK(first_unsorted(recs.data(), n, f) == scan(recs, n));
      if (n >= 2 && compare_keys(f, sorted.data(), sorted.data() + (n - 1) * rs) < 0) {
        std::swap_ranges(sorted.begin(), sorted.begin() + rs, sorted.end() - rs);  // the largest first
        const size_t want = scan(sorted, n);
        CHECK(want < n);
        CHECK(first_unsorted(sorted.data(), n, f) == want);
      }
    }
  }
}

TEST_CASE("memory api: larger than the budget goes through temp files and leaves none") {
  TestDir dir;
  for (const Format& f : {Format::typed(KeyType::u64), payload_format(), composite_format()}) {
    CAPTURE(f.describe());
    const size_t n = (size_t(6) << 20) / f.record_size + 3;  // 6 MiB and not whole chunks
    const Bytes data = make_records(f, n, Dist::duplicates, 5);
    const std::vector<uint64_t> want = gxsort_test::stable_order(f, data);
    std::vector<std::string> phases;
    MemoryOptions o = spill_options(dir);
    o.progress = [&](const Progress& p) {
      if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
    };
    Bytes sorted = data;
    gxsort::sort(sorted.data(), n, f, o);
    CHECK(sorted == permuted(data, want, f.record_size));
    REQUIRE_FALSE(phases.empty());  // the engine's out-of-core phases, not the in-memory "sort"
    CHECK(std::find(phases.begin(), phases.end(), std::string("sort")) == phases.end());
    CHECK(dir.entries() == 0);
    std::vector<uint64_t> perm(n);
    argsort(data.data(), n, f, perm.data(), spill_options(dir));
    CHECK(perm == want);
    CHECK(dir.entries() == 0);
    // Its groups cross the pieces the indexed records are read back in.
    CHECK(unique_of(f, data, spill_options(dir)) == unique_oracle(f, data));
    CHECK(dir.entries() == 0);
  }
}

// 50000 u64: the records with their sort's scratch fit a budget of 1 MiB (16 bytes a
// record), the copy with indices that argsort and unique sort does not (48): the sort
// is in memory, argsort and unique form runs of it in memory and merge them through temp
// files, with the same results.
TEST_CASE("memory api: argsort and unique spill an indexed copy larger than the budget") {
  TestDir dir;
  const Format f = Format::typed(KeyType::u64);
  const size_t n = 50000;
  const Bytes data = make_records(f, n, Dist::duplicates, 41);
  std::mutex lock;
  std::vector<std::string> phases;
  MemoryOptions o = spill_options(dir);
  o.progress = [&](const Progress& p) {
    const std::lock_guard<std::mutex> hold(lock);
    if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
  };
  Bytes sorted = data;
  gxsort::sort(sorted.data(), n, f, o);
  CHECK(phases == std::vector<std::string>{"sort"});
  phases.clear();
  std::vector<uint64_t> perm(n);
  argsort(data.data(), n, f, perm.data(), o);
  CHECK(perm == gxsort_test::stable_order(f, data));
  CHECK(phases == std::vector<std::string>{"runs", "merge"});  // runs made in memory, merged
  phases.clear();
  CHECK(unique_of(f, data, o) == unique_oracle(f, data));
  CHECK(phases == std::vector<std::string>{"runs", "merge"});
  CHECK(dir.entries() == 0);
}

TEST_CASE("memory api: the same bytes as gxsort sort of a file") {
  TestDir dir;
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const Bytes data = make_records(f, 20011, Dist::random, 9);
    const std::string in = dir.path + "/in.bin", out = dir.path + "/out.bin";
    std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    EngineOptions opt;
    opt.format = f;
    opt.threads = 2;
    opt.device = Device::cpu;
    opt.tmp_dirs = {dir.path};
    opt.fsync = false;
    sort_file(in, out, opt);
    std::ifstream s(out, std::ios::binary);
    const Bytes file_sorted((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
    Bytes sorted = data;
    gxsort::sort(sorted.data(), 20011, f, small_options());
    CHECK(sorted == file_sorted);
    unlink(in.c_str());
    unlink(out.c_str());
  }
  CHECK(dir.entries() == 0);
}

TEST_CASE("memory api: two calls at once") {
  TestDir dir;
  const Format f = payload_format();
  const size_t n = (size_t(4) << 20) / f.record_size;
  const Bytes a = make_records(f, n, Dist::random, 1), b = make_records(f, n, Dist::duplicates, 2);
  Bytes sa = a, sb = b;
  std::thread spilled([&] { gxsort::sort(sa.data(), n, f, spill_options(dir)); });
  std::thread in_memory([&] { gxsort::sort(sb.data(), n, f, small_options()); });
  spilled.join();
  in_memory.join();
  CHECK(sa == permuted(a, gxsort_test::stable_order(f, a), f.record_size));
  CHECK(sb == permuted(b, gxsort_test::stable_order(f, b), f.record_size));
  CHECK(dir.entries() == 0);
}

TEST_CASE("memory api: a merge and a spilled unique at once") {
  TestDir dir;
  const Format f = payload_format();
  const std::vector<Bytes> parts = sorted_inputs(f, 3, {size_t(1) << 17}, Dist::duplicates, 31);
  const Bytes data = make_records(f, (size_t(4) << 20) / f.record_size, Dist::duplicates, 32);
  Bytes got_merge;
  Groups got_unique;
  std::thread merging([&] { got_merge = merged(f, parts, small_options()); });
  std::thread spilled([&] { got_unique = unique_of(f, data, spill_options(dir)); });
  merging.join();
  spilled.join();
  CHECK(got_merge == merge_oracle(f, parts));
  CHECK(got_unique == unique_oracle(f, data));
  CHECK(dir.entries() == 0);
}

// Cancelled at the first progress of each: Cancelled is thrown, no temp file is left.
TEST_CASE("memory api: cancellation mid-merge, mid-argsort and mid-unique leaves nothing behind") {
  TestDir dir;
  const Format f = Format::typed(KeyType::u64);
  CancelToken token;
  std::atomic<int> reports{0};
  const MemoryOptions o = cancelled_at_first_progress(spill_options(dir), token, reports);
  const std::vector<Bytes> parts = sorted_inputs(f, 3, {size_t(1) << 18}, Dist::random, 21);
  CHECK_THROWS_AS(merged(f, parts, o), Cancelled);
  CHECK(reports.exchange(0) >= 1);
  token.reset();
  const size_t n = size_t(1) << 18;  // its indexed copy: 4 MiB, spilled
  const Bytes data = make_records(f, n, Dist::duplicates, 22);
  std::vector<uint64_t> perm(n);
  CHECK_THROWS_AS(argsort(data.data(), n, f, perm.data(), o), Cancelled);
  CHECK(reports.exchange(0) >= 1);
  CHECK(dir.entries() == 0);
  token.reset();
  CHECK_THROWS_AS(unique_of(f, data, o), Cancelled);
  CHECK(reports.exchange(0) >= 1);
  CHECK(dir.entries() == 0);
}

// Cancelled after the first progress of a spilled sort: Cancelled is thrown, no temp file
// is left, and the buffer is untouched (the spill reads the sorted file back into it only
// after the sort succeeded).
TEST_CASE("memory api: cancellation mid-sort leaves nothing behind") {
  TestDir dir;
  const Format f = Format::typed(KeyType::u64);
  const size_t n = (size_t(8) << 20) / 8;
  const Bytes data = make_records(f, n, Dist::random, 3);
  CancelToken token;
  std::atomic<int> reports{0};
  const MemoryOptions o = cancelled_at_first_progress(spill_options(dir), token, reports);
  Bytes buf = data;
  CHECK_THROWS_AS(gxsort::sort(buf.data(), n, f, o), Cancelled);
  CHECK(reports.load() >= 1);
  CHECK(buf == data);
  CHECK(dir.entries() == 0);
  std::vector<uint64_t> perm(n);
  CHECK_THROWS_AS(argsort(data.data(), n, f, perm.data(), o), Cancelled);  // already set: at once
  CHECK(dir.entries() == 0);
  token.reset();
  CHECK_FALSE(token.cancelled());
}

TEST_CASE("memory api: device buffers without a GPU are a DeviceError") {
#if !GXSORT_HAVE_CUDA
  uint64_t v[4] = {3, 1, 2, 0};
  MemoryOptions o = small_options();
  o.location = BufferLocation::device;
  try {
    gxsort::sort(v, 4, Format::typed(KeyType::u64), o);
    FAIL("no DeviceError");
  } catch (const DeviceError& e) {
    CHECK(e.code() == ExitCode::device);
    CHECK(std::string(e.what()) == "a device buffer: this gxsort was built without the CUDA backend");
  }
  uint64_t perm[4], out[4], counts[4];
  CHECK_THROWS_AS(argsort(v, 4, Format::typed(KeyType::u64), perm, o), DeviceError);
  CHECK_THROWS_AS(unique(v, 4, Format::typed(KeyType::u64), out, counts, perm, o), DeviceError);
  CHECK_THROWS_AS(merge(v, 2, v + 2, 2, Format::typed(KeyType::u64), out, o), DeviceError);
  CHECK_THROWS_AS(first_unsorted(v, 4, Format::typed(KeyType::u64), o), DeviceError);
  CHECK(v[0] == 3);
#else
  MESSAGE("built with CUDA: the device cases are in tests/cuda/test_memory_api.cu");
#endif
  uint64_t w[4] = {1, 0, 2, 3}, copy[2];
  MemoryOptions o2 = small_options();
  o2.location = BufferLocation::device;
  // sort_copy takes device buffers too: host pointers given as such are no device's.
  CHECK_THROWS_AS(sort_copy(w, copy, 2, Format::typed(KeyType::u64), o2), DeviceError);
  CHECK_THROWS_WITH_AS(sort_copy(w, w + 1, 2, Format::typed(KeyType::u64), o2), "sort_copy: the output overlaps the input",
                       Error);
  // A device merge's output overlapping an input is refused before any device is asked for.
  CHECK_THROWS_WITH_AS(merge(w, 1, w + 1, 1, Format::typed(KeyType::u64), w + 1, o2),
                       "merge: the output overlaps input 1", Error);
}

// The group walk of unique: records in stable order, each with its input
// index, give the host unique's groups.
TEST_CASE("memory api: unique's group walk over a stable permutation gives unique's groups") {
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(2001)})
      for (Dist dist : {Dist::random, Dist::duplicates}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        const Bytes data = make_records(f, n, dist, n + 3);
        const std::vector<uint64_t> perm = gxsort_test::stable_order(f, data);
        Groups got{Bytes(data.size()), std::vector<uint64_t>(n), std::vector<uint64_t>(n)};
        api::UniqueGroups walk(f, got.records.data(), got.counts.data(), got.first.data());
        for (uint64_t i : perm) walk.add(&data[i * f.record_size], i);
        const size_t groups = walk.finish();
        got.records.resize(groups * f.record_size);
        got.counts.resize(groups);
        got.first.resize(groups);
        CHECK(got == unique_oracle(f, data));
        CHECK(got == unique_of(f, data, small_options()));
      }
}

// EngineOptions::cancel on a file sort (a resumable job): Cancelled, no output, its
// journalled pieces kept (the job's directory, its output beside the target) as a signal
// keeps them; --resume then reuses them, finishes the job and the directory is empty again.
TEST_CASE("engine: a cancelled file sort keeps its job for --resume") {
  TestDir dir;
  const Format f = payload_format();
  const size_t n = (size_t(6) << 20) / f.record_size;
  const Bytes data = make_records(f, n, Dist::random, 11);
  const std::string in = dir.path + "/in.bin", out = dir.path + "/out.bin";
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  CancelToken token;
  EngineOptions opt;
  opt.format = f;
  opt.threads = 2;
  opt.device = Device::cpu;
  opt.memory = parse_size_option("1M", "--memory");
  opt.ooc = OocMethod::merge;
  opt.tmp_dirs = {dir.path};
  opt.fsync = false;
  opt.cancel = &token;
  bool once = true;
  opt.progress = [&](const Progress& p) {
    if (once && p.job_done > p.job_total / 4) token.cancel(), once = false;  // some runs are journalled by then
  };
  CHECK_THROWS_AS(sort_file(in, out, opt), Cancelled);
  CHECK(access(out.c_str(), F_OK) != 0);
  CHECK(dir.entries() == 3);  // the input, the job's directory and its output beside the target
  token.reset();
  opt.resume = true;
  const RunStats st = sort_file(in, out, opt);
  CHECK(st.resumed.rfind("resumed: ", 0) == 0);
  CHECK(st.resumed.rfind("resumed: 0 of", 0) != 0);  // the runs journalled before the cancel are reused
  std::ifstream s(out, std::ios::binary);
  const Bytes sorted((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
  CHECK(sorted == permuted(data, gxsort_test::stable_order(f, data), f.record_size));
  unlink(in.c_str());
  unlink(out.c_str());
  CHECK(dir.entries() == 0);
}

// Under device auto, a host buffer of at most 4 MiB a thread is sorted on the CPU (faster
// there than a GPU's start and copies); a device asked for is kept at every size.
TEST_CASE("memory api: host buffers of at most 4 MiB a thread go to the CPU under device auto") {
  using gxsort::api::host_buffer_device;
  const uint64_t MiB = uint64_t(1) << 20;
  CHECK(host_buffer_device(Device::automatic, 64 * MiB, 16) == Device::cpu);
  CHECK(host_buffer_device(Device::automatic, 64 * MiB + 1, 16) == Device::automatic);
  CHECK(host_buffer_device(Device::automatic, 8 * MiB, 2) == Device::cpu);
  CHECK(host_buffer_device(Device::automatic, 8 * MiB + 1, 2) == Device::automatic);
  CHECK(host_buffer_device(Device::automatic, 4 * MiB, 0) == Device::cpu);  // 0 threads count as 1
  CHECK(host_buffer_device(Device::automatic, 0, 1) == Device::cpu);
  CHECK(host_buffer_device(Device::cuda, 1, 16) == Device::cuda);
  CHECK(host_buffer_device(Device::cpu, 1024 * MiB, 16) == Device::cpu);
}

// A host sort whose need is within the least budget a plan takes (1 MiB) is held in
// memory without reading the machine's memory limit: under a fake cgroup limit of 1 MiB
// (a default budget of 512 KiB, below the minimum) it still sorts, in place, into a copy
// and as argsort's made records, while a larger one reads the limit and is refused.
TEST_CASE("memory api: a sort within the least budget skips the memory-limit probe") {
  TestDir d;
  std::filesystem::create_directories(d.path + "/root/jobs");
  std::ofstream(d.path + "/cgroup") << "0::/jobs\n";
  std::ofstream(d.path + "/root/jobs/memory.max") << "1048576\n";
  MemoryOptions o = small_options();
  o.context.test.cgroup_dir = d.path;
  const Format f = Format::typed(KeyType::u64);
  for (size_t n : {size_t(2), size_t(1000)}) {
    CAPTURE(n);
    const Bytes in = make_records(f, n, Dist::duplicates, 7 + n);
    const Bytes want = permuted(in, gxsort_test::stable_order(f, in), 8);
    Bytes copy(in.size()), inplace = in;
    sort_copy(in.data(), copy.data(), n, f, o);
    sort(inplace.data(), n, f, o);
    std::vector<uint64_t> perm(n);
    argsort(in.data(), n, f, perm.data(), o);
    CHECK(copy == want);
    CHECK(inplace == want);
    CHECK(perm == gxsort_test::stable_order(f, in));
  }
  Bytes big = make_records(f, 1 << 17, Dist::duplicates, 3);
  CHECK_THROWS_WITH_AS(sort(big.data(), 1 << 17, f, o), doctest::Contains("below the minimum"), Error);
}

// In place past the budget: runs formed from the array, merged level by level into a temp
// file, read back. A sort cancelled in its last merge leaves the array as it was and no
// temp file. Budgets of 1 MiB and 2 MiB: two merge levels and one.
TEST_CASE("memory api: in place past the budget leaves the array untouched until the merge succeeded") {
  TestDir dir;
  for (const Format& f : {Format::typed(KeyType::u64), payload_format()}) {
    for (const char* memory : {"2M", "1M"}) {
      CAPTURE(f.describe());
      CAPTURE(memory);
      const size_t n = (size_t(6) << 20) / f.record_size + 5;
      const Bytes data = make_records(f, n, Dist::duplicates, 9);
      MemoryOptions o = spill_options(dir);
      o.memory = parse_size_option(memory, "--memory");
      std::vector<std::string> phases;
      size_t levels = 0;
      o.progress = [&](const Progress& p) {
        if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
        levels = std::max(levels, p.levels);
      };
      Bytes sorted = data;
      gxsort::sort(sorted.data(), n, f, o);
      CHECK(sorted == permuted(data, gxsort_test::stable_order(f, data), f.record_size));
      CHECK(phases == std::vector<std::string>{"runs", "merge"});
      CHECK(levels == (std::string(memory) == "1M" ? 2 : 1));
      CHECK(dir.entries() == 0);
      CancelToken token;
      o.cancel = &token;
      o.progress = [&token](const Progress& p) {
        if (p.phase != std::string("runs") && p.level == p.levels) token.cancel();  // in the last merge
      };
      Bytes kept = data;
      CHECK_THROWS_AS(gxsort::sort(kept.data(), n, f, o), Cancelled);
      CHECK(kept == data);
      CHECK(dir.entries() == 0);
    }
  }
}
