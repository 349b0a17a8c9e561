// The out-of-core GPU merge pass (windows cut by the multiway co-rank, merged on the
// device) against the CPU loser tree, byte for byte: K = 1..64 uneven runs, every
// format (composite keys too), tiny windows so that groups of equal keys straddle
// window boundaries.
#include <cstring>
#include <random>
#include <unistd.h>
#include <vector>

#include "../common/composite_keys.hpp"
#include "device/backend_select.hpp"
#include "gpu_test_util.hpp"
#include "engine/merge.hpp"
#include "plan/plan_request.hpp"
#include "../common/resumable_merge.hpp"

using namespace gxsort;

namespace {

std::vector<unsigned char> merge_with(const Format& f, const std::vector<RunRef>& runs, Backend* backend,
                                      MergeKernel kernel, uint64_t window_memory) {
  uint64_t total = 0;
  for (const auto& r : runs) total += r.records;
  io::TempFile out = io::TempFile::create({}, "/tmp", "gxsort-cuda-test");
  MergeSetup job;
  job.format = &f;
  job.backend = backend;
  job.merge_kernel = kernel;
  job.window_records = backend ? device_window_records(backend->max_window_records(f), window_memory, f.record_size) : 0;
  job.buffer_bytes = 1 << 16;
  job.threads = 2;
  merge_runs(job, runs, out.file(), 0);
  std::vector<unsigned char> got(total * f.record_size);
  if (!got.empty()) out.file().read_at(got.data(), got.size(), 0);
  return got;
}

std::vector<Format> formats() {
  std::vector<Format> fs;
  for (KeyType t : {KeyType::u32, KeyType::u64, KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64})
    fs.push_back(Format::typed(t));
  Format r;
  r.record_size = 24; r.key_offset = 8; r.key_type = KeyType::i64; r.key_bytes = 8; fs.push_back(r);
  r.record_size = 13; r.key_offset = 5; r.key_type = KeyType::f32; r.key_bytes = 4; fs.push_back(r);
  r.record_size = 16; r.key_offset = 3; r.key_type = KeyType::bytes; r.key_bytes = 5; fs.push_back(r);
  fs.push_back(Format::gensort());
  return fs;
}

// Sorted runs of u64 keys in [0, range) held in `data`, one of n_min + rng() % n_spread
// keys each, sorted on the CPU backend.
std::vector<RunRef> sorted_u64_runs(std::mt19937_64& rng, size_t count, size_t n_min, size_t n_spread, uint64_t range,
                                    std::vector<std::vector<unsigned char>>& data) {
  auto cpu = make_cpu_backend(2);
  const Format f = Format::typed(KeyType::u64);
  data.assign(count, {});
  std::vector<RunRef> runs(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t n = n_min + rng() % n_spread;
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = rng() % range;
    data[i].resize(n * 8);
    std::memcpy(data[i].data(), keys.data(), n * 8);
    HostBuffer scratch = cpu->allocate_host(cpu->sort_scratch_bytes(f, n));
    cpu->sort_chunk(f, data[i].data(), n, scratch.data());
    runs[i].mem = data[i].data();
    runs[i].records = n;
    runs[i].name = "run" + std::to_string(i);
  }
  return runs;
}

}  // namespace

namespace {

// Every format, both orders, K = 1..64 runs, merged on the GPU and compared with the
// CPU's merge. all_kernels: every kernel on every merge; else one kernel a merge,
// in turn, so that each kernel still meets every format, both orders, and runs with and
// without duplicates.
void check_window_merges(bool all_kernels) {
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("2G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  const MergeKernel kernels[] = {MergeKernel::basic, MergeKernel::tiled, MergeKernel::circular, MergeKernel::thrust};
  std::mt19937_64 rng(9);
  size_t turn = 0;
  for (Format f : formats()) {
    for (bool rev : {false, true}) {
      f.reverse = rev;
      for (size_t k : {1, 2, 3, 5, 8, 17, 33, 64}) {
        // Runs: random records sorted by the CPU backend; few distinct keys in half the
        // cases so that equal keys cross runs and windows.
        const bool dups = k % 2 == 1;
        std::vector<std::vector<unsigned char>> data(k);
        std::vector<RunRef> runs(k);
        for (size_t i = 0; i < k; ++i) {
          size_t n = rng() % 3000;
          if (i % 7 == 3) n = 0;
          auto& d = data[i];
          d.resize(n * f.record_size);
          for (auto& b : d) b = uint8_t(rng());
          if (dups)
            for (size_t j = 0; j < n; ++j)
              for (size_t b = 0; b < f.key_bytes; ++b) d[j * f.record_size + f.key_offset + b] = uint8_t(rng() % 2);
          HostBuffer scratch = cpu->allocate_host(cpu->sort_scratch_bytes(f, n));
          cpu->sort_chunk(f, d.data(), n, scratch.data());
          runs[i].mem = d.data();
          runs[i].records = n;
          runs[i].name = "run" + std::to_string(i);
        }
        auto want = merge_with(f, runs, nullptr, MergeKernel::automatic, 0);
        // The first kernel moves on by one each merge, and by one more each format (16
        // merges): over the formats each kernel gets every K, with and without --reverse.
        ++turn;
        for (size_t i = 0; i < (all_kernels ? 4 : 1); ++i) {
          const MergeKernel kernel = kernels[(turn + turn / 16 + i) % 4];
          // Window memory for three slots of ~1000 records: many windows per merge.
          auto got = merge_with(f, runs, gpu.get(), kernel, 3 * 1000 * f.record_size);
          INFO(f.describe() << " k=" << k << " kernel=" << choice_name(kernel, kMergeKernels));
          CHECK(got == want);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("GPU windowed merge equals the CPU loser tree for K = 1..64 uneven runs and every format") {
  GPU_TEST_REQUIRE_DEVICE();
  check_window_merges(false);
}

TEST_CASE("GPU windowed merge for K = 1..64 uneven runs and every format, every kernel on each (long)" *
          doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_window_merges(true);
}

TEST_CASE("GPU sort_chunk and windowed merge give the same bytes as the CPU for a whole external sort") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(4);
  Format f = Format::typed(KeyType::f64);
  const size_t n = 1000003;
  std::vector<unsigned char> data(n * 8);
  for (size_t i = 0; i < n; ++i) { uint64_t x = rng(); std::memcpy(&data[i * 8], &x, 8); }  // NaNs and infinities too
  auto a = data, b = data;
  HostBuffer scratch = cpu->allocate_host(cpu->sort_scratch_bytes(f, n));
  cpu->sort_chunk(f, a.data(), n, scratch.data());
  gpu->sort_chunk(f, b.data(), n, nullptr);
  CHECK(a == b);
}

TEST_CASE("GPU windowed merge with checkpoints, resumed from each, is the merge in one go (-u, dups)") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("2G", "--device-memory"));
  std::mt19937_64 rng(13);
  const Format f = Format::typed(KeyType::u64);
  for (bool unique : {false, true})
    for (uint64_t range : {uint64_t(2), uint64_t(500), ~uint64_t(0)}) {
      std::vector<std::vector<unsigned char>> data;
      const std::vector<RunRef> runs = sorted_u64_runs(rng, 5, 1000, 4000, range, data);
      MergeSetup job;
      job.format = &f;
      job.backend = gpu.get();
      job.window_records = device_window_records(gpu->max_window_records(f), 3 * 1000 * 8, 8);  // windows of ~1000 records: a checkpoint after each
      job.buffer_bytes = 1 << 16;
      job.threads = 2;
      job.unique = unique;
      INFO("unique " << unique << " range " << range);
      CHECK(gxsort_test::check_resumable_merge(job, runs, 1) == "");
    }
}

// Windows of whole 4 MiB sum blocks: the merge hashes each window as it writes it, and
// the sums it leaves at each checkpoint are those of the output (no read-back).
TEST_CASE("GPU windowed merge with checkpoints hashes its windows: the sums are the output's") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("2G", "--device-memory"));
  std::mt19937_64 rng(17);
  const Format f = Format::typed(KeyType::u64);
  std::vector<std::vector<unsigned char>> data;
  // 5.6-8 MB each: windows that do not divide them
  const std::vector<RunRef> runs = sorted_u64_runs(rng, 3, 700000, 300000, 1000000, data);
  for (uint64_t checkpoint_bytes : {uint64_t(1), uint64_t(9) << 20}) {
    MergeSetup job;
    job.format = &f;
    job.backend = gpu.get();
    job.window_records = device_window_records(gpu->max_window_records(f), 3 * (uint64_t(6) << 20), 8);  // 6 MiB windows: one whole 4 MiB block each
    job.buffer_bytes = 1 << 16;
    job.threads = 2;
    size_t hashed = 0;
    INFO("checkpoint bytes " << checkpoint_bytes);
    CHECK(gxsort_test::check_resumable_merge(job, runs, checkpoint_bytes, &hashed) == "");
    CHECK(hashed > 1);
  }
}

TEST_CASE("GPU windowed merge of composite-key runs equals the CPU loser tree (small windows)") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("2G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(23);
  for (const Format& f : gxsort_test::composite_formats())
    for (size_t k : {2, 5, 17}) {
      INFO(f.describe() << " k=" << k);
      std::vector<std::vector<unsigned char>> data(k);
      std::vector<RunRef> runs(k);
      for (size_t i = 0; i < k; ++i) {
        const size_t n = i % 7 == 3 ? 0 : rng() % 4000;
        data[i] = gxsort_test::composite_input(f, n, k % 2 ? 3 : 0, rng);
        HostBuffer scratch = cpu->allocate_host(std::max<size_t>(1, cpu->sort_scratch_bytes(f, n)));
        cpu->sort_chunk(f, data[i].data(), n, scratch.data());
        runs[i].mem = data[i].data();
        runs[i].records = n;
        runs[i].name = "run" + std::to_string(i);
      }
      const auto want = merge_with(f, runs, nullptr, MergeKernel::automatic, 0);
      // Three slots of ~1000 records: many windows, and groups of equal keys across them.
      CHECK(merge_with(f, runs, gpu.get(), MergeKernel::automatic, 3 * 1000 * f.record_size) == want);
    }
}
