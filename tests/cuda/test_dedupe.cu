// GPU dedupe: the device bitmap against the host bitmap and std::sort + std::unique;
// `dedupe` and `sort -u` on the GPU byte-identical to the CPU, with tiny budgets so that
// groups of equal keys straddle chunks, runs and merge windows.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "backend/device_entry.hpp"
#include "bitmap_dedupe.cuh"
#include "cuda_backend.cuh"
#include "cuda_check.cuh"
#include "gpu_test_util.hpp"
#include "gxsort/gxsort.hpp"
#include "sort_unique.cuh"
#include "engine/group_pass.hpp"

using namespace gxsort;

namespace {

using gxsort_test::Bytes;
using gxsort_test::read_file;
using gxsort_test::write_file;

Bytes random_records(size_t n, size_t rs, uint64_t distinct, std::mt19937_64& rng) {
  Bytes v(n * rs);
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < rs; ++b) v[i * rs + b] = uint8_t(rng());
    uint64_t x = distinct ? rng() % distinct : rng();
    std::memcpy(&v[i * rs], &x, std::min<size_t>(rs, 8));
    if (rs > 8) std::memcpy(&v[i * rs + 8], &i, std::min<size_t>(rs - 8, 4));
  }
  return v;
}

Bytes extract_all(KeyBitmap& bm) {
  Bytes out;
  bm.extract([&](const unsigned char* p, size_t b) { out.insert(out.end(), p, p + b); });
  return out;
}

}  // namespace

namespace {
// The GPU bitmap against the host bitmap: every 4-byte key type, both orders, keys of one
// value, of 1000 and of any. Each pass extracts 2^32 bits on both sides; all_pools runs
// every pool of keys on every type and order, else one a type and order, in turn (each
// type meets two of them, each pool both orders).
void check_bitmaps(bool all_pools) {
  auto backend = make_cuda_backend(0, parse_size_option("2G", "--device-memory"));
  std::mt19937_64 rng(1);
  size_t turn = 0;
  for (KeyType t : {KeyType::u32, KeyType::i32, KeyType::f32})
    for (bool rev : {false, true}) {
      const uint64_t pools[] = {1, 1000, 0};
      for (size_t i = 0; i < (all_pools ? 3 : 1); ++i) {
        const uint64_t distinct = pools[(turn + i) % 3];
        CAPTURE(int(t)); CAPTURE(rev); CAPTURE(distinct);
        Format f = Format::typed(t);
        f.reverse = rev;
        Bytes in = random_records(300007, 4, distinct, rng);
        if (t == KeyType::f32) {  // signed zeros, NaN payloads
          const uint32_t sp[] = {0x80000000u, 0, 0x7fc00001u, 0x7fc00000u, 0xffc00000u};
          for (size_t j = 0; j < 50; ++j) std::memcpy(&in[(rng() % 300007) * 4], &sp[j % 5], 4);
        }
        auto gpu = backend->make_key_bitmap(f, 4096, 0);  // 4096-key pieces: many copies in
        REQUIRE(gpu);
        auto cpu = make_cpu_key_bitmap(f, 4);
        HostBuffer h = backend->allocate_host(in.size());
        std::memcpy(h.data(), in.data(), in.size());
        const size_t n = in.size() / 4;
        gpu->add(h.data(), n / 2);
        gpu->add(h.data() + n / 2 * 4, n - n / 2);
        cpu->add(in.data(), n);
        CHECK(extract_all(*gpu) == extract_all(*cpu));
      }
      ++turn;
    }
}
}  // namespace

TEST_CASE("bitmap dedupe: the GPU bitmap equals the host bitmap, every 4-byte key type, --reverse, many chunks") {
  GPU_TEST_REQUIRE_DEVICE();
  check_bitmaps(false);
}

TEST_CASE("bitmap dedupe: the GPU bitmap equals the host bitmap, every pool of keys on each type and order (long)" *
          doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_bitmaps(true);
}

namespace {
// Keys for the device-resident paths: n keys of width `bits` above `base`, or all equal.
std::vector<uint32_t> device_case_keys(size_t n, int kind, std::mt19937_64& rng) {
  std::vector<uint32_t> k(n);
  for (auto& x : k) {
    switch (kind) {
      case 0: x = uint32_t(rng() % (n + 1) * 37); break;              // sparse, narrow
      case 1: x = uint32_t(rng() % (n + 1)); break;                   // the PBBS shape
      case 2: x = uint32_t(rng()); break;                             // the whole 32 bits
      case 3: x = 0xfffffff0u + uint32_t(rng() % 16); break;          // the top of the range
      case 4: x = 12345u; break;                                      // all equal
      default: x = uint32_t(rng() % 16); break;                       // below 2^4: nothing to sort
    }
  }
  return k;
}
std::vector<uint32_t> sorted_unique(std::vector<uint32_t> k) {
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  return k;
}
// Device memory and a stream for one test case.
struct DeviceCase {
  gxsort::cuda::DeviceMemory mem;
  cudaStream_t s{};
  explicit DeviceCase(size_t bytes) : mem(0, bytes) { GXSORT_CUDA_CHECK(cudaStreamCreate(&s)); }
  ~DeviceCase() { cudaStreamDestroy(s); }
};
}  // namespace

TEST_CASE("bitmap dedupe and sort+unique: device-resident keys against std::sort + std::unique (the bench's paths)") {
  GPU_TEST_REQUIRE_DEVICE();
  namespace gc = gxsort::cuda;
  DeviceCase dc(size_t(2) << 30);
  auto& mem = dc.mem;
  const cudaStream_t s = dc.s;
  std::mt19937_64 rng(2);
  // One bitmap for every case: bitmap_unique_device must leave it clear.
  auto d_bits = mem.buffer<uint32_t>(gc::BitmapPolicy::kWords, "bits");
  auto work = mem.allocate(gc::bitmap_scan_bytes(), "work");
  gc::bitmap_clear(d_bits.data(), s);
  for (size_t n : {size_t(0), size_t(1), size_t(33), size_t(1) << 20, size_t(3000017)})
    for (int kind = 0; kind < 6; ++kind) {
      CAPTURE(n); CAPTURE(kind);
      const std::vector<uint32_t> keys = device_case_keys(n, kind, rng);
      const std::vector<uint32_t> want = sorted_unique(keys);
      auto d_keys = mem.buffer<uint32_t>(std::max<size_t>(n, 1), "keys");
      auto d_out = mem.buffer<uint32_t>(std::max<size_t>(n, 1), "out");
      auto d_sorted = mem.buffer<uint32_t>(std::max<size_t>(n, 1), "sorted");
      auto su_work = mem.allocate(gc::sort_unique_work_bytes(n), "sort unique work");
      if (n) GXSORT_CUDA_CHECK(cudaMemcpy(d_keys.data(), keys.data(), n * 4, cudaMemcpyHostToDevice));
      for (int path = 0; path < 2; ++path) {
        CAPTURE(path);
        const size_t m = path == 0 ? gc::bitmap_unique_device(d_keys.data(), n, d_bits.data(), work.get(), d_out.data(),
                                                              KeyType::u32, false, s)
                                   : gc::sort_unique_u32(d_keys.data(), n, d_sorted.data(), d_out.data(), su_work.get(), s);
        std::vector<uint32_t> got(m);
        if (m) GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_out.data(), m * 4, cudaMemcpyDeviceToHost));
        CHECK(got == want);
      }
    }
  std::vector<uint32_t> bits(gc::BitmapPolicy::kWords);
  GXSORT_CUDA_CHECK(cudaMemcpy(bits.data(), d_bits.data(), bits.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(std::all_of(bits.begin(), bits.end(), [](uint32_t w) { return w == 0; }));
}

TEST_CASE("sort+unique: every key bit width (the low bits left to the unique: 0 to 4)") {
  GPU_TEST_REQUIRE_DEVICE();
  namespace gc = gxsort::cuda;
  DeviceCase dc(size_t(1) << 30);
  auto& mem = dc.mem;
  const cudaStream_t s = dc.s;
  std::mt19937_64 rng(4);
  // Around the unique's tile of 5120 keys, and many tiles (groups crossing tile edges).
  for (size_t n : {size_t(5119), size_t(5120), size_t(5121), size_t(200003)})
  for (int bits = 0; bits <= 32; ++bits) {
    CAPTURE(n);
    CAPTURE(bits);
    auto d_keys = mem.buffer<uint32_t>(n, "keys");
    auto d_out = mem.buffer<uint32_t>(n, "out");
    auto d_sorted = mem.buffer<uint32_t>(n, "sorted");
    auto work = mem.allocate(gc::sort_unique_work_bytes(n), "work");
    std::vector<uint32_t> keys(n);
    const uint64_t range = uint64_t(1) << bits;
    for (auto& k : keys) k = uint32_t(rng() % range);
    keys[rng() % n] = uint32_t(range - 1);  // the width is exactly `bits`
    GXSORT_CUDA_CHECK(cudaMemcpy(d_keys.data(), keys.data(), n * 4, cudaMemcpyHostToDevice));
    const size_t m = gc::sort_unique_u32(d_keys.data(), n, d_sorted.data(), d_out.data(), work.get(), s);
    std::vector<uint32_t> got(m);
    GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_out.data(), m * 4, cudaMemcpyDeviceToHost));
    CHECK(got == sorted_unique(keys));
  }
}

// Keys ordered by k >> low with the low bits shuffled, in groups of the given kind:
// 0 random sizes up to 3000, 1 one group for everything (a chain of tiles without a
// head, longer than the look-back's window of 32 tiles), 2 every key its own group,
// 3 sizes 1 or 2, 4 groups of 64 with gaps between group ids.
static std::vector<uint32_t> group_ordered_keys(size_t n, int low, int kind, std::mt19937_64& rng) {
  std::vector<uint32_t> k;
  k.reserve(n);
  uint32_t group = uint32_t(rng() % 1000);
  while (k.size() < n) {
    size_t len = kind == 0 ? 1 + rng() % 3000 : kind == 1 ? n : kind == 2 ? 1 : kind == 3 ? 1 + rng() % 2 : 64;
    len = std::min(len, n - k.size());
    for (size_t i = 0; i < len; ++i) k.push_back((group << low) | uint32_t(rng() % (1u << low)));
    group += kind == 4 ? 1 + uint32_t(rng() % 5) : 1;
  }
  return k;
}

TEST_CASE("low-bit unique: keys ordered by k >> low, every low width, groups across tiles") {
  GPU_TEST_REQUIRE_DEVICE();
  namespace gc = gxsort::cuda;
  DeviceCase dc(size_t(1) << 30);
  auto& mem = dc.mem;
  const cudaStream_t s = dc.s;
  std::mt19937_64 rng(5);
  // Around the unique's tile of 5120 keys, and hundreds of tiles.
  for (size_t n : {size_t(1), size_t(2), size_t(5119), size_t(5120), size_t(5121), size_t(1000003)})
    for (int low = 0; low <= gc::kMaxLowBits; ++low)
      for (int kind = 0; kind < 5; ++kind) {
        CAPTURE(n); CAPTURE(low); CAPTURE(kind);
        const std::vector<uint32_t> keys = group_ordered_keys(n, low, kind, rng);
        auto d_keys = mem.buffer<uint32_t>(n, "keys");
        auto d_out = mem.buffer<uint32_t>(n, "out");
        auto work = mem.allocate(gc::sort_unique_work_bytes(n), "work");
        GXSORT_CUDA_CHECK(cudaMemcpy(d_keys.data(), keys.data(), n * 4, cudaMemcpyHostToDevice));
        const size_t m = gc::low_bit_unique_u32(d_keys.data(), n, low, d_out.data(), work.get(), s);
        std::vector<uint32_t> got(m);
        GXSORT_CUDA_CHECK(cudaMemcpy(got.data(), d_out.data(), m * 4, cudaMemcpyDeviceToHost));
        CHECK(got == sorted_unique(keys));
      }
}

namespace {
// dedupe (both strategies, --count, --keep-last, in memory and with --memory 2M) and
// sort -u on the CPU and the GPU, byte for byte. every_option: each case with every
// --count and --keep-last; else two of the four a case, in turn (an even case: both or
// neither, an odd one: one of them), which over the cases still gives each its four.
void check_dedupe_outputs(bool every_option) {
  gxsort_test::TempDir d("gxsort-cuda-dedupe");
  std::mt19937_64 rng(3);
  struct Case { Format f; size_t n; uint64_t distinct; };
  Format rec;
  rec.record_size = 16; rec.key_offset = 0; rec.key_type = KeyType::u64; rec.key_bytes = 8;
  Format recb;
  recb.record_size = 20; recb.key_offset = 0; recb.key_type = KeyType::bytes; recb.key_bytes = 12;
  const std::vector<Case> cases = {
      {Format::typed(KeyType::u32), 400009, 5000}, {Format::typed(KeyType::i32), 300007, 0},
      {Format::typed(KeyType::u64), 300007, 1}, {Format::typed(KeyType::f32), 200003, 2000},
      {rec, 250007, 3000}, {recb, 100003, 700}};
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    const Bytes in = random_records(c.n, c.f.record_size, c.distinct, rng);
    const std::string ip = d.path + "/in.bin";
    write_file(ip, in);
    for (const char* strategy : {"sort", "bitmap"})
      for (bool count : {false, true})
        for (bool last : {false, true})
          for (const char* mem : {"", "2M"}) {
            if (std::string(strategy) == "bitmap" && (count || !bitmap_format_ok(c.f))) continue;
            if (!every_option && (count != last) != (ci % 2 == 1)) continue;
            CAPTURE(c.f.describe()); CAPTURE(strategy); CAPTURE(count); CAPTURE(last); CAPTURE(mem);
            Bytes outs[2];
            for (int dev = 0; dev < 2; ++dev) {
              EngineOptions o;
              o.format = c.f;
              o.device = dev ? Device::cuda : Device::cpu;
              o.device_memory = parse_size_option(std::string(strategy) == "bitmap" ? "2G" : "64M", "--device-memory");
              if (*mem) o.memory = parse_size_option(mem, "--memory");
              o.threads = 2;  // tiny --memory needs few merge threads
              o.tmp_dirs = {d.path};
              o.fsync = false;
              o.dedupe.strategy = parse_choice(std::string(strategy), "--strategy", kDedupeStrategies);
              o.dedupe.count = count;
              o.dedupe.keep_last = last;
              const std::string op = d.path + "/out" + std::to_string(dev) + ".bin";
              dedupe_file(ip, op, o);
              outs[dev] = read_file(op);
            }
            CHECK(outs[0] == outs[1]);
            CHECK(!outs[0].empty());
          }
    // sort -u itself
    Bytes su[2];
    for (int dev = 0; dev < 2; ++dev) {
      EngineOptions o;
      o.format = c.f;
      o.device = dev ? Device::cuda : Device::cpu;
      o.device_memory = parse_size_option("64M", "--device-memory");
      o.memory = parse_size_option("2M", "--memory");
      o.threads = 2;
      o.tmp_dirs = {d.path};
      o.fsync = false;
      o.unique = true;
      const std::string op = d.path + "/su" + std::to_string(dev) + ".bin";
      sort_file(ip, op, o);
      su[dev] = read_file(op);
    }
    CHECK(su[0] == su[1]);
  }
}
}  // namespace

TEST_CASE("dedupe and sort -u: the GPU output is byte-identical to the CPU's (tiny budgets: groups across chunks, runs, windows)") {
  GPU_TEST_REQUIRE_DEVICE();
  check_dedupe_outputs(false);
}

TEST_CASE("dedupe and sort -u: the GPU output is the CPU's with every --count and --keep-last on each case (long)" *
          doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_dedupe_outputs(true);
}
