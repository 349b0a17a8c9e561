// Loser tree, multiway co-rank and the parallel merge against std::stable_sort.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include "gxsort/error.hpp"
#include "engine/merge.hpp"
#include "plan/plan_request.hpp"
#include "gxsort/gxsort.hpp"
#include "../common/cpu_delegate.hpp"
#include "../common/resumable_merge.hpp"

using namespace gxsort;

namespace {

// K runs of (u32 key, u32 tag) records with key at offset 0: tag = (run, position).
struct Runs {
  Format f;
  std::vector<std::vector<unsigned char>> data;
  std::vector<RunRef> refs;
};

Runs make_runs(size_t k, size_t max_len, uint32_t key_range, std::mt19937& rng) {
  Runs r;
  r.f.record_size = 8;
  r.f.key_offset = 0;
  r.f.key_type = KeyType::u32;
  r.f.key_bytes = 4;
  for (size_t i = 0; i < k; ++i) {
    size_t n = max_len ? rng() % (max_len + 1) : 0;
    if (i % 5 == 1) n = 0;  // empty runs
    std::vector<uint32_t> keys(n);
    for (auto& x : keys) x = rng() % key_range;
    std::sort(keys.begin(), keys.end());
    std::vector<unsigned char> d(n * 8);
    for (size_t j = 0; j < n; ++j) {
      uint32_t tag = uint32_t(i << 24 | j);
      std::memcpy(&d[j * 8], &keys[j], 4);
      std::memcpy(&d[j * 8 + 4], &tag, 4);
    }
    r.data.push_back(std::move(d));
  }
  for (size_t i = 0; i < k; ++i) {
    RunRef ref;
    ref.mem = r.data[i].data();
    ref.records = r.data[i].size() / 8;
    ref.name = "run" + std::to_string(i);
    r.refs.push_back(ref);
  }
  return r;
}

// The oracle: concatenate in run order and stable-sort by key.
std::vector<unsigned char> oracle(const Runs& r) {
  std::vector<unsigned char> all;
  for (const auto& d : r.data) all.insert(all.end(), d.begin(), d.end());
  size_t n = all.size() / 8;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return compare_keys(r.f, &all[a * 8], &all[b * 8]) < 0; });
  std::vector<unsigned char> out(all.size());
  for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * 8], &all[idx[i] * 8], 8);
  return out;
}

std::string temp_path() {
  char p[] = "/tmp/gxsort-unit-XXXXXX";
  int fd = mkstemp(p);
  close(fd);
  unlink(p);
  return p;
}

uint64_t total_records(const Runs& r) {
  uint64_t total = 0;
  for (const auto& ref : r.refs) total += ref.records;
  return total;
}

// r's refs with run i read from a temp file holding data[i] instead, for every i with
// i % step == 0; the files live in `files`.
std::vector<RunRef> file_refs(const Runs& r, const std::vector<std::vector<unsigned char>>& data, size_t step,
                              std::vector<std::unique_ptr<io::TempFile>>& files, bool discardable = false) {
  std::vector<RunRef> refs = r.refs;
  for (size_t i = 0; i < refs.size(); i += step) {
    files.push_back(std::make_unique<io::TempFile>(io::TempFile::create({}, "/tmp", "gxsort-unit-run")));
    if (!data[i].empty()) files.back()->file().write_at(data[i].data(), data[i].size(), 0);
    refs[i].mem = nullptr;
    refs[i].file = &files.back()->file();
    refs[i].discardable = discardable;
  }
  return refs;
}

// The output of merge_runs over refs on `threads` threads, through a temp file.
std::vector<unsigned char> merged(const Format& f, const std::vector<RunRef>& refs, size_t buffer_bytes,
                                  unsigned threads) {
  const std::string path = temp_path();
  io::File out = io::File::create_new(path);
  MergeSetup job;
  job.format = &f;
  job.buffer_bytes = buffer_bytes;
  job.threads = threads;
  const uint64_t records = merge_runs(job, refs, out, 0);
  std::vector<unsigned char> got(records * f.record_size);
  if (!got.empty()) out.read_at(got.data(), got.size(), 0);
  unlink(path.c_str());
  return got;
}

// The CPU backend with a device's merge: windows of at most `window` records, each merged
// by a stable sort of its slices (back to back in run order), so that the windowed merge
// pipeline (merge_runs_on_device: window cuts, the output range, checkpoints) runs
// without a GPU. The GPU suite runs the same pipeline with the device's kernels.
class WindowedCpu : public gxsort_test::CpuDelegate {
 public:
  explicit WindowedCpu(size_t window) : window_(window) {}
  std::string name() const override { return "windowed cpu (test)"; }
  size_t max_window_records(const Format&) const override { return window_; }
  void merge_window(const Format& f, unsigned char* records, const std::vector<uint64_t>& slices,
                    MergeKernel) override {
    const size_t rs = f.record_size, n = size_t(std::accumulate(slices.begin(), slices.end(), uint64_t(0)));
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return compare_keys(f, records + a * rs, records + b * rs) < 0; });
    std::vector<unsigned char> out(n * rs);
    for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * rs], records + idx[i] * rs, rs);
    if (n) std::memcpy(records, out.data(), out.size());
  }

 private:
  size_t window_;
};

}  // namespace

TEST_CASE("the windowed merge pipeline (a device's merge, here on the CPU) equals the CPU merge, from any offset") {
  // Windows of sizes that divide nothing; the output from a byte offset inside a page
  // (a header before it), written through one mapping of the range (without -u) or a
  // mapping each window (-u): the file ends where the output does either way.
  std::mt19937 rng(31);
  for (size_t window : {size_t(1), size_t(7), size_t(1000), size_t(100000)})
    for (bool unique : {false, true})
      for (uint64_t offset : {uint64_t(0), uint64_t(12345)}) {
        Runs r = make_runs(7, 20000, unique ? 300 : 1u << 30, rng);
        std::vector<std::unique_ptr<io::TempFile>> files;
        const std::vector<RunRef> refs = file_refs(r, r.data, 2, files);
        MergeSetup cpu;
        cpu.format = &r.f;
        cpu.threads = 2;
        cpu.unique = unique;
        io::TempFile want = io::TempFile::create({}, "/tmp", "gxsort-unit-merge");
        const uint64_t want_records = merge_runs(cpu, refs, want.file(), 0);
        std::vector<unsigned char> expect(want_records * 8);
        if (!expect.empty()) want.file().read_at(expect.data(), expect.size(), 0);

        WindowedCpu backend(window);
        MergeSetup dev = cpu;
        dev.backend = &backend;
        dev.window_records = device_window_records(backend.max_window_records(r.f), uint64_t(1) << 30, 8);
        io::TempFile got = io::TempFile::create({}, "/tmp", "gxsort-unit-merge");
        const std::vector<unsigned char> header(size_t(offset), 0xAB);
        if (offset) got.file().write_at(header.data(), header.size(), 0);
        MergeSetup::StageSeconds stages;
        dev.stage_seconds = &stages;
        INFO("window " << window << " unique " << unique << " offset " << offset);
        const uint64_t records = merge_runs(dev, refs, got.file(), offset);
        REQUIRE(records == want_records);
        // Each stage's busy seconds are counted, and none more than the pipeline took.
        CHECK(stages.read > 0);
        CHECK(stages.device > 0);
        CHECK(stages.write > 0);
        CHECK(stages.device <= stages.pipeline);
        CHECK(window_stages(stages).size() == 6);
        CHECK(got.file().size() == offset + records * 8);
        std::vector<unsigned char> bytes(size_t(offset) + expect.size());
        if (!bytes.empty()) got.file().read_at(bytes.data(), bytes.size(), 0);
        CHECK(std::equal(header.begin(), header.end(), bytes.begin()));
        CHECK(std::equal(expect.begin(), expect.end(), bytes.begin() + std::ptrdiff_t(offset)));
      }
}

TEST_CASE("the windowed merge pipeline with checkpoints, resumed from each, is the merge in one go") {
  std::mt19937 rng(32);
  for (size_t window : {size_t(5), size_t(4096), size_t(70000)})
    for (bool unique : {false, true}) {
      Runs r = make_runs(6, 30000, unique ? 50 : 1000, rng);
      std::vector<std::unique_ptr<io::TempFile>> files;
      WindowedCpu backend(window);
      MergeSetup job;
      job.format = &r.f;
      job.backend = &backend;
      job.window_records = device_window_records(backend.max_window_records(r.f), uint64_t(1) << 30, 8);
      job.threads = 2;
      job.unique = unique;
      INFO("window " << window << " unique " << unique);
      CHECK(gxsort_test::check_resumable_merge(job, file_refs(r, r.data, 1, files), 64 << 10) == "");
    }
}

TEST_CASE("loser tree merge is the stable merge, K = 1..40") {
  std::mt19937 rng(1);
  for (size_t k = 1; k <= 40; k += (k < 8 ? 1 : 7)) {
    for (uint32_t range : {2u, 50u, 1u << 30}) {
      Runs r = make_runs(k, 300, range, rng);
      std::vector<RunCursor> cursors;
      for (const auto& ref : r.refs) cursors.emplace_back(r.f, ref, 0, ref.records, 64);
      LoserTree t(r.f, cursors);
      std::vector<unsigned char> out;
      while (!t.done()) {
        out.insert(out.end(), t.top().record(), t.top().record() + 8);
        t.pop();
      }
      CHECK(out == oracle(r));
    }
  }
}

TEST_CASE("multiway co-rank splits agree with the stable merge at every rank") {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 30; ++trial) {
    size_t k = 1 + rng() % 9;
    Runs r = make_runs(k, 60, trial % 2 ? 4 : 1000, rng);
    auto want = oracle(r);
    uint64_t total = want.size() / 8;
    for (uint64_t rank = 0; rank <= total; ++rank) {
      auto s = multiway_corank(r.f, r.refs, rank);
      uint64_t sum = 0;
      std::vector<uint64_t> per_run(k, 0);
      for (uint64_t i = 0; i < rank; ++i) {  // the first `rank` outputs, by run
        uint32_t tag;
        std::memcpy(&tag, &want[i * 8 + 4], 4);
        ++per_run[tag >> 24];
      }
      for (size_t i = 0; i < k; ++i) { CHECK(s[i] == per_run[i]); sum += s[i]; }
      CHECK(sum == rank);
    }
  }
}

TEST_CASE("merge_runs with 1..4 threads from memory and file runs equals the oracle") {
  std::mt19937 rng(3);
  for (unsigned threads : {1u, 2u, 4u}) {
    Runs r = make_runs(7, 90000, 1000, rng);  // large enough for the parallel path
    auto want = oracle(r);
    // Half of the runs from files, to cover buffered file cursors.
    std::vector<std::unique_ptr<io::TempFile>> files;
    std::vector<RunRef> refs = file_refs(r, r.data, 2, files);
    CHECK(merged(r.f, refs, 4096, threads) == want);
  }
}

TEST_CASE("merge_runs with verify_sorted names an unsorted input") {
  Format f = Format::typed(KeyType::u64);
  std::vector<uint64_t> a = {1, 5, 3}, b = {2};
  std::vector<RunRef> refs(2);
  refs[0].mem = reinterpret_cast<unsigned char*>(a.data()); refs[0].records = 3; refs[0].name = "a.bin";
  refs[1].mem = reinterpret_cast<unsigned char*>(b.data()); refs[1].records = 1; refs[1].name = "b.bin";
  std::string path = temp_path();
  io::File out = io::File::create_new(path);
  MergeSetup job;
  job.format = &f;
  job.verify_sorted = true;
  try {
    merge_runs(job, refs, out, 0);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("a.bin") != std::string::npos);
  }
  unlink(path.c_str());
}

TEST_CASE("multiway co-rank from a lower split equals the search from zero") {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 30; ++trial) {
    size_t k = 1 + rng() % 9;
    Runs r = make_runs(k, 80, trial % 3 ? 5 : 100000, rng);
    const uint64_t total = total_records(r);
    for (uint64_t r0 = 0; r0 <= total; r0 += 1 + rng() % 7) {
      const auto lower = multiway_corank(r.f, r.refs, r0);
      for (uint64_t r1 = r0; r1 <= total; r1 += 1 + rng() % 5)
        CHECK(multiway_corank(r.f, r.refs, r1, &lower) == multiway_corank(r.f, r.refs, r1));
    }
  }
}

TEST_CASE("co-rank from a lower split never reads the runs' discarded prefixes") {
  // File runs whose records before the lower split are overwritten with the largest key:
  // a search that looked there would find a different split.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    size_t k = 2 + rng() % 6;
    Runs r = make_runs(k, 200, trial % 2 ? 7 : 5000, rng);
    const uint64_t total = total_records(r);
    const uint64_t r0 = total / 3, r1 = total / 3 + rng() % (total - total / 3 + 1);
    const auto lower = multiway_corank(r.f, r.refs, r0);
    const auto want = multiway_corank(r.f, r.refs, r1);
    std::vector<std::vector<unsigned char>> spoiled = r.data;
    for (size_t i = 0; i < k; ++i)
      for (uint64_t j = 0; j < lower[i]; ++j) std::memset(&spoiled[i][j * 8], 0xff, 4);
    std::vector<std::unique_ptr<io::TempFile>> files;
    CHECK(multiway_corank(r.f, file_refs(r, spoiled, 1, files), r1, &lower) == want);
  }
}

TEST_CASE("merge_runs of discardable temp runs on the CPU path keeps every record and drops what it read") {
  // The CPU cursors punch out what they have buffered; neighbouring slices of two
  // merge threads share a page that neither may drop.
  for (unsigned threads : {1u, 2u, 3u}) {
    std::mt19937 rng(6 + threads);
    Runs r = make_runs(5, 20000, 300, rng);
    auto want = oracle(r);
    std::vector<std::unique_ptr<io::TempFile>> files;
    std::vector<RunRef> refs = file_refs(r, r.data, 1, files, true);
    auto blocks = [&] {
      uint64_t b = 0;
      for (const auto& t : files) { struct stat st; fstat(t->file().fd(), &st); b += uint64_t(st.st_blocks); }
      return b;
    };
    for (const auto& t : files) t->file().sync();  // allocated blocks, counted by st_blocks
    const uint64_t before = blocks();
    CHECK(merged(r.f, refs, 3 * 4096 + 8, threads) == want);
    // Hole punching is best effort: a file system without it keeps every block.
    CHECK(blocks() <= before);
    if (blocks() < before) CHECK(blocks() * 2 < before);
  }
}

namespace {

// A sorted run of n records of rs bytes (u64 key at 0, the record's index in the rest),
// written to a temp file around the page cache where the file system allows it.
struct FileRun {
  Format f;
  std::vector<unsigned char> bytes;
  std::unique_ptr<io::TempFile> temp;
  RunRef ref;
};

FileRun make_file_run(size_t rs, size_t n, bool direct, bool discardable, std::mt19937_64& rng) {
  FileRun r;
  r.f.record_size = rs;
  r.f.key_offset = 0;
  r.f.key_type = KeyType::u64;
  r.f.key_bytes = 8;
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = rng() % 1000;
  std::sort(keys.begin(), keys.end());
  io::AlignedBuffer src(n * rs);
  for (size_t i = 0; i < n; ++i) {
    std::memset(src.data() + i * rs, int(i & 0x7f), rs);
    std::memcpy(src.data() + i * rs, &keys[i], 8);
  }
  r.bytes.assign(src.data(), src.data() + n * rs);
  r.temp = std::make_unique<io::TempFile>(io::TempFile::create({}, "/tmp", "gxsort-unit-run"));
  if (direct) r.temp->file().write_direct_at(src.data(), n * rs, 0, 2);
  else if (n) r.temp->file().write_at(src.data(), n * rs, 0);
  r.ref.file = &r.temp->file();
  r.ref.records = n;
  r.ref.name = r.temp->path();
  r.ref.direct = direct;
  r.ref.discardable = discardable;
  return r;
}

}  // namespace

TEST_CASE("RunCursor walks any slice of a file run, direct or cached, with and without read-ahead") {
  // Record sizes whose blocks of lcm(record size, 4096) bytes differ: 4 KiB, 12 KiB,
  // 100 KiB and 4100 records' worth; buffers from below one such unit to many.
  std::mt19937_64 rng(7);
  parallel::BackgroundTasks reads(2);
  for (size_t rs : {size_t(8), size_t(12), size_t(100), size_t(4100)}) {
    for (bool direct : {false, true}) {
      const size_t n = rs == 4100 ? 300 : 20000;
      FileRun run = make_file_run(rs, n, direct, false, rng);
      for (int trial = 0; trial < 12; ++trial) {
        uint64_t b = rng() % (n + 1), e = rng() % (n + 1);
        if (b > e) std::swap(b, e);
        const size_t buffer = trial % 3 == 0 ? rs * (1 + rng() % 5) : size_t(4096) << (rng() % 8);
        for (parallel::BackgroundTasks* pool : {static_cast<parallel::BackgroundTasks*>(nullptr), &reads}) {
          RunCursor c(run.f, run.ref, b, e, buffer, pool);
          uint64_t i = b;
          for (; !c.done(); c.next(), ++i) {
            REQUIRE(c.position() == i);
            REQUIRE(std::memcmp(c.record(), &run.bytes[i * rs], rs) == 0);
          }
          INFO("rs=" << rs << " direct=" << direct << " slice=[" << b << "," << e << ") buffer=" << buffer);
          CHECK(i == e);
        }
      }
    }
  }
}

TEST_CASE("RunCursor drops only whole pages inside its slice of a discardable run, also from a direct block") {
  // A direct block starts on a 4 KiB unit, before the slice: what lies before the slice
  // is a neighbour's and must survive.
  std::mt19937_64 rng(8);
  parallel::BackgroundTasks reads(2);
  for (size_t rs : {size_t(8), size_t(100)}) {
    for (bool direct : {false, true}) {
      for (int trial = 0; trial < 6; ++trial) {
        const size_t n = 30000;
        FileRun run = make_file_run(rs, n, direct, true, rng);
        uint64_t b = rng() % n, e = b + rng() % (n - b + 1);
        {
          RunCursor c(run.f, run.ref, b, e, 8192 + rng() % 65536, trial % 2 ? &reads : nullptr);
          while (!c.done()) c.next();
        }
        std::vector<unsigned char> now(n * rs);
        run.temp->file().read_at(now.data(), now.size(), 0);
        const uint64_t first_page = (b * rs + 4095) / 4096, end_page = e * rs / 4096;
        INFO("rs=" << rs << " direct=" << direct << " slice=[" << b << "," << e << ")");
        for (uint64_t byte = 0; byte < now.size(); byte += 512) {
          const uint64_t page = byte / 4096;
          if (page < first_page || page >= end_page) REQUIRE(now[byte] == run.bytes[byte]);  // kept
        }
      }
    }
  }
}

TEST_CASE("merge_runs of direct temp runs, read ahead on the pool, equals the oracle") {
  for (unsigned threads : {1u, 2u, 3u}) {
    std::mt19937 rng(9 + threads);
    Runs r = make_runs(6, 40000, 500, rng);
    auto want = oracle(r);
    std::vector<std::unique_ptr<io::TempFile>> files;
    std::vector<RunRef> refs = file_refs(r, r.data, 1, files, threads != 2);
    for (auto& ref : refs) ref.direct = true;  // read around the page cache (written through it: still coherent)
    CHECK(merged(r.f, refs, 5 * 4096 + 8, threads) == want);
  }
}

TEST_CASE("a merge with checkpoints, resumed from each, is the merge in one go (1..3 threads, -u, dups)") {
  // The last merge of a resumable job: checkpoints every few KiB, so that groups of equal
  // keys straddle them; a resume starts from the cuts with the output before them kept.
  std::mt19937 rng(12);
  for (unsigned threads : {1u, 3u})
    for (bool unique : {false, true})
      for (uint32_t range : {1u, 3u, 1000u, 1u << 30}) {
        Runs r = make_runs(6, 3000, range, rng);
        std::vector<std::unique_ptr<io::TempFile>> files;
        MergeSetup job;
        job.format = &r.f;
        job.buffer_bytes = 4096;
        job.threads = threads;
        job.unique = unique;
        INFO("threads " << threads << " unique " << unique << " range " << range);
        CHECK(gxsort_test::check_resumable_merge(job, file_refs(r, r.data, 1, files), 8192) == "");
      }
}
