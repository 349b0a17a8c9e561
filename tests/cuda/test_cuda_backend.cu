// GPU tests of the CUDA backend: the device memory manager, the pinned pool and
// sort_chunk, which must be byte-identical to a stable host sort by compare_keys.
//
// The sort_chunk sweeps run quick by default and whole in the long suite
// (gxsort_cuda_tests --long; tests/cuda/main.cpp). The timing case at the end is skipped
// unless asked for:
//   gxsort_cuda_tests --no-skip -tc='bench*'
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "backend/device_entry.hpp"
#include "cuda_backend.cuh"
#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "gpu_test_util.hpp"
#include "../common/oracle_sort.hpp"
#include "gxsort/format.hpp"
#include "pinned_pool.cuh"

using gxsort::Error;
using gxsort::ExitCode;
using gxsort::Format;
using gxsort::HostBuffer;
using gxsort::KeyType;
using gxsort::parse_size_option;
using gxsort::SizeOption;
using gxsort::cuda::CudaBackend;
using gxsort::cuda::DeviceMemory;

namespace {

constexpr size_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// splitmix64: fast, good enough for test data, reproducible.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  void fill(unsigned char* p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t v = next();
      std::memcpy(p + i, &v, 8);
    }
    for (uint64_t v = next(); i < n; ++i, v >>= 8) p[i] = (unsigned char)v;
  }
};

const char* type_name(KeyType t) { return key_type_name(t); }

std::string describe(const Format& f) {
  return std::string(type_name(f.key_type)) + "/" + std::to_string(f.key_bytes) + "B key @" +
         std::to_string(f.key_offset) + " in " + std::to_string(f.record_size) + "B records" +
         (f.reverse ? " reverse" : "");
}

Format typed(KeyType t, bool reverse = false) {
  Format f = Format::typed(t);
  f.reverse = reverse;
  return f;
}
Format record(KeyType t, size_t record_size, size_t offset, bool reverse = false) {
  Format f = Format::typed(t);
  f.record_size = record_size;
  f.key_offset = offset;
  f.reverse = reverse;
  return f;
}
Format bytes_key(size_t record_size, size_t offset, size_t key_bytes, bool reverse = false) {
  Format f;
  f.record_size = record_size;
  f.key_offset = offset;
  f.key_type = KeyType::bytes;
  f.key_bytes = key_bytes;
  f.reverse = reverse;
  return f;
}

// The oracle: std::stable_sort of record indices by compare_keys (on several threads),
// then gather.
std::vector<unsigned char> oracle(const Format& f, const unsigned char* in, size_t n) {
  const size_t R = f.record_size;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t(0));
  gxsort_test::oracle_stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return gxsort::compare_keys(f, in + a * R, in + b * R) < 0; });
  std::vector<unsigned char> out(n * R);
  for (size_t i = 0; i < n; ++i) std::memcpy(&out[i * R], in + idx[i] * R, R);
  return out;
}

// IEEE special values, both signs: zeros, infinities, quiet and signalling NaNs with
// payloads, denormals, the extremes.
const uint32_t kF32Special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u,
                                0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu, 0x7fc00123u, 0xffc00123u};
const uint64_t kF64Special[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
                                0xffffffffffffffffull, 0x0000000000000001ull, 0x8000000000000001ull,
                                0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
                                0xffefffffffffffffull, 0x7ff8000000000123ull, 0xfff8000000000123ull};

enum class Dist { random, few_keys, all_equal, small_range, specials, sorted, reversed };
const Dist kAllDists[] = {Dist::random,   Dist::few_keys, Dist::all_equal, Dist::small_range,
                          Dist::specials, Dist::sorted,   Dist::reversed};
const char* dist_name(Dist d) {
  switch (d) {
    case Dist::random: return "random";
    case Dist::few_keys: return "few keys";
    case Dist::all_equal: return "all equal";
    case Dist::small_range: return "small range";
    case Dist::specials: return "specials";
    case Dist::sorted: return "sorted";
    default: return "reversed";
  }
}

// A key value from a small range: integers in [-500, 500), floats in [-250, 250) by
// halves; byte keys get few distinct values per 8-byte segment, so wide keys tie on the
// prefix and must be decided by their tail.
void small_key(const Format& f, unsigned char* k, Rng& rng) {
  const int64_t v = int64_t(rng.below(1000)) - 500;
  switch (f.key_type) {
    case KeyType::u32: case KeyType::i32: { int32_t x = int32_t(v); std::memcpy(k, &x, 4); break; }
    case KeyType::u64: case KeyType::i64: std::memcpy(k, &v, 8); break;
    case KeyType::f32: { float x = float(v) * 0.5f; std::memcpy(k, &x, 4); break; }
    case KeyType::f64: { double x = double(v) * 0.5; std::memcpy(k, &x, 8); break; }
    default:
      for (size_t s = 0; s < f.key_bytes; s += 8) {
        const unsigned char pick = (unsigned char)rng.below(3);
        for (size_t i = s; i < std::min(f.key_bytes, s + 8); ++i) k[i] = (unsigned char)(0x40 + pick * (i % 5));
      }
  }
}

void special_key(const Format& f, unsigned char* k, Rng& rng) {
  if (f.key_type == KeyType::f32 && rng.below(4) != 0) {
    std::memcpy(k, &kF32Special[rng.below(std::size(kF32Special))], 4);
  } else if (f.key_type == KeyType::f64 && rng.below(4) != 0) {
    std::memcpy(k, &kF64Special[rng.below(std::size(kF64Special))], 8);
  } else if (f.key_type == KeyType::bytes) {
    for (size_t i = 0; i < f.key_bytes; ++i) k[i] = rng.below(2) ? 0x00 : 0xff;  // extremes of each byte
  } else {
    small_key(f, k, rng);
  }
}

// n random records of format f whose keys follow `d` (payload bytes stay random, so a
// stability error shows as a byte difference).
std::vector<unsigned char> make_input(const Format& f, size_t n, Dist d, Rng& rng) {
  const size_t R = f.record_size, K = f.key_bytes;
  std::vector<unsigned char> v(n * R);
  rng.fill(v.data(), v.size());
  std::vector<unsigned char> pool(5 * K);
  for (size_t i = 0; i < 5; ++i) special_key(f, &pool[i * K], rng);  // a few keys, specials among them
  for (size_t i = 0; i < n; ++i) {
    unsigned char* k = &v[i * R + f.key_offset];
    switch (d) {
      case Dist::few_keys: std::memcpy(k, &pool[rng.below(5) * K], K); break;
      case Dist::all_equal: std::memcpy(k, &pool[0], K); break;
      case Dist::small_range: small_key(f, k, rng); break;
      case Dist::specials: special_key(f, k, rng); break;
      default: break;
    }
  }
  if (d == Dist::sorted || d == Dist::reversed) {
    v = oracle(f, v.data(), n);
    if (d == Dist::reversed)
      for (size_t i = 0; i < n / 2; ++i) std::swap_ranges(&v[i * R], &v[i * R] + R, &v[(n - 1 - i) * R]);
  }
  return v;
}

CudaBackend& backend() {
  // One backend for all sort tests: half the free memory leaves room for the small
  // arenas the memory-manager tests make.
  static std::unique_ptr<CudaBackend> b = std::make_unique<CudaBackend>(0, parse_size_option("50%", "--device-memory"));
  return *b;
}

// A pinned staging buffer reused across cases (pinning is slow).
unsigned char* staging(size_t bytes) {
  static HostBuffer buf;
  if (buf.size() < bytes) buf = backend().allocate_host(std::max(bytes, buf.size() * 2));
  return buf.data();
}

// Sorts a copy of `in` on the GPU and compares it byte for byte with the oracle.
// Returns true when equal; on a difference says where.
bool gpu_matches_oracle(const Format& f, const std::vector<unsigned char>& in, size_t n, std::string& why) {
  const size_t R = f.record_size;
  unsigned char* h = staging(std::max<size_t>(in.size(), 1));
  if (n) std::memcpy(h, in.data(), in.size());
  backend().sort_chunk(f, h, n, nullptr);
  const std::vector<unsigned char> want = oracle(f, in.data(), n);
  if (n == 0 || std::memcmp(h, want.data(), want.size()) == 0) return true;
  size_t i = 0;
  while (std::memcmp(h + i * R, &want[i * R], R) != 0) ++i;
  why = "first difference at record " + std::to_string(i) + " of " + std::to_string(n);
  return false;
}

const size_t kSmallSizes[] = {0, 1, 2, 3, 5, 16, 17, 31, 127, 128, 129, 255, 256, 257,
                              1000, 1023, 1024, 1025, 4093, 65535, 65536, 65537};

// How much of the sweep a case runs. quick (the default suite): every distribution at
// every small size (2^16 - 1 and 2^16 in random keys only: the host oracle dominates the
// run time) and one input past 2^18, its distribution chosen by the seed. full (the long
// suite): every small size in every distribution and four inputs past 2^20 (2^20 +- 1 and
// a prime past two million).
enum class Sweep { quick, full };

void check_input(const Format& f, size_t n, Dist d, Rng& rng) {
  const std::vector<unsigned char> in = make_input(f, n, d, rng);
  std::string why;
  const bool ok = gpu_matches_oracle(f, in, n, why);
  INFO(describe(f), ", ", dist_name(d), ", n = ", n, ": ", why);
  CHECK(ok);
}

void check_format(const Format& f, uint64_t seed, Sweep sweep) {
  Rng rng(seed);
  for (Dist d : kAllDists)
    for (size_t n : kSmallSizes)
      if (sweep == Sweep::full || d == Dist::random || n < 65535 || n > 65536) check_input(f, n, d, rng);
  if (std::getenv("GXSORT_TEST_SMALL")) return;  // e.g. under compute-sanitizer
  const Dist large_dists[] = {Dist::random, Dist::few_keys, Dist::small_range};
  if (sweep == Sweep::quick) {
    check_input(f, (1u << 18) + 1, large_dists[seed % 3], rng);
    return;
  }
  const std::pair<size_t, Dist> large[] = {{(1u << 20) - 1, Dist::random},
                                           {(1u << 20) + 1, Dist::few_keys},
                                           {(1u << 20) + 1, Dist::small_range},
                                           {2000003, Dist::random}};
  for (const auto& nd : large) check_input(f, nd.first, nd.second, rng);
}

// The formats of the sort_chunk cases, each swept by check_format.
void check_flat_typed_keys(Sweep sweep) {
  uint64_t seed = 1;
  for (KeyType t : {KeyType::u32, KeyType::u64, KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64})
    for (bool rev : {false, true}) check_format(typed(t, rev), seed++, sweep);
  CHECK(backend().memory().in_use() == 0);
}

void check_typed_records(Sweep sweep) {
  uint64_t seed = 100;
  const Format formats[] = {
      record(KeyType::i64, 24, 8),       record(KeyType::i64, 24, 8, true), record(KeyType::u32, 12, 4),
      record(KeyType::f64, 16, 0),       record(KeyType::f32, 8, 4, true),  record(KeyType::i32, 13, 5),
      record(KeyType::u64, 20, 3),       record(KeyType::f64, 11, 3, true), record(KeyType::f32, 6, 1),
      record(KeyType::u64, 9, 0),
  };
  for (const Format& f : formats) check_format(f, seed++, sweep);
  CHECK(backend().memory().in_use() == 0);
}

void check_byte_keys(Sweep sweep) {
  uint64_t seed = 200;
  Format gensort_rev = Format::gensort();
  gensort_rev.reverse = true;
  const Format formats[] = {
      bytes_key(16, 2, 4),  bytes_key(16, 2, 4, true), bytes_key(12, 4, 8), bytes_key(8, 0, 8, true),
      Format::gensort(),    gensort_rev,               bytes_key(32, 6, 20), bytes_key(32, 6, 20, true),
      bytes_key(3, 0, 3),   bytes_key(40, 1, 17),      bytes_key(5, 4, 1, true), bytes_key(24, 8, 16),
  };
  for (const Format& f : formats) check_format(f, seed++, sweep);
  CHECK(backend().memory().in_use() == 0);
}

// Inputs that span several 64 MiB copy slices, on both streams, checked against the oracle.
void check_copy_slices(const std::vector<std::pair<Format, size_t>>& cases) {
  Rng rng(11);
  for (const auto& c : cases) {
    const Format f = c.first;
    const size_t n = c.second;
    std::string why;
    const bool ok = gpu_matches_oracle(f, make_input(f, n, Dist::random, rng), n, why);
    INFO(describe(f), ", n = ", n, ": ", why);
    CHECK(ok);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// device_budget and parse_size_option are pure host code: they run with or without a GPU.

TEST_CASE("--device-memory: sizes and percents of free memory") {
  using gxsort::cuda::device_budget;
  auto budget = [](const char* text) { return parse_size_option(text, "--device-memory"); };
  const size_t free_b = 10 * GiB, total_b = 16 * GiB;
  CHECK(device_budget(SizeOption{}, free_b, total_b) == size_t(double(free_b) * 0.8));
  CHECK(device_budget(budget("50%"), free_b, total_b) == 5 * GiB);
  CHECK(device_budget(budget("100%"), free_b, total_b) == free_b);
  CHECK(device_budget(budget("12.5%"), free_b, total_b) == free_b / 8);
  CHECK(device_budget(budget("123456"), free_b, total_b) == 123456);
  CHECK(device_budget(budget("64K"), free_b, total_b) == 64 * KiB);
  CHECK(device_budget(budget("64k"), free_b, total_b) == 64 * KiB);
  CHECK(device_budget(budget("512MiB"), free_b, total_b) == 512 * MiB);
  CHECK(device_budget(budget("2GB"), free_b, total_b) == 2 * GiB);
  CHECK(device_budget(budget("1.5G"), free_b, total_b) == 3 * GiB / 2);
  CHECK(device_budget(budget("16G"), free_b, total_b) == 16 * GiB);  // more than free is the arena's problem
  for (const char* bad : {"abc", "G", "0%", "150%", "-1G", "1.2.3G", "5X", "1e9", "%", " 8G"}) {
    INFO("text: ", bad);
    CHECK_THROWS_AS(budget(bad), Error);
  }
  for (const char* too_big : {"0", "17G", "1T"}) {
    INFO("text: ", too_big);
    CHECK_THROWS_AS(device_budget(budget(too_big), free_b, total_b), Error);
  }
}

TEST_CASE("format_bytes") {
  using gxsort::format_bytes;
  CHECK(format_bytes(17) == "17 B");
  CHECK(format_bytes(3 * GiB) == "3.0 GiB");
  CHECK(format_bytes(1536 * KiB) == "1.5 MiB");
}

// ---------------------------------------------------------------------------------------
// The device memory manager.

TEST_CASE("DeviceMemory: alignment, reuse, coalescing and peak") {
  GPU_TEST_REQUIRE_DEVICE();
  DeviceMemory m(0, size_t(4 * MiB));
  CHECK(m.budget() == 4 * MiB);
  CHECK(m.in_use() == 0);
  CHECK(m.largest_free() == 4 * MiB);

  auto a = m.allocate(1, "a");
  auto b = m.allocate(1000, "b");
  auto c = m.allocate(3, "c");
  auto z = m.allocate(0, "zero");  // never a null pointer: CUB reads null as a size query
  for (auto* x : {&a, &b, &c, &z}) {
    REQUIRE(x->get() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(x->get()) % DeviceMemory::kAlignment == 0);
  }
  CHECK(a.size() == 1);
  CHECK(m.in_use() == 256 + 1024 + 256 + 256);
  CHECK(m.live_allocations() == 4);
  // Distinct, non-overlapping blocks in address order (first fit from an empty arena).
  CHECK(static_cast<char*>(b.get()) == static_cast<char*>(a.get()) + 256);
  CHECK(static_cast<char*>(c.get()) == static_cast<char*>(b.get()) + 1024);

  // Reuse: a freed hole is found again by first fit.
  void* bp = b.get();
  b.reset();
  CHECK(m.in_use() == 256 + 256 + 256);
  auto b2 = m.allocate(900, "b2");
  CHECK(b2.get() == bp);

  // Coalescing: freeing neighbours makes one block big enough for their sum.
  void* ap = a.get();
  b2.reset();
  a.reset();
  auto ab = m.allocate(256 + 1024, "a+b");
  CHECK(ab.get() == ap);
  ab.reset();
  c.reset();
  z.reset();
  CHECK(m.in_use() == 0);
  CHECK(m.live_allocations() == 0);
  CHECK(m.largest_free() == 4 * MiB);  // everything coalesced back into one block

  // Peak tracking.
  m.reset_peak();
  CHECK(m.peak() == 0);
  {
    auto x = m.allocate(MiB, "x");
    auto y = m.allocate(2 * MiB, "y");
    CHECK(m.peak() == 3 * MiB);
  }
  CHECK(m.in_use() == 0);
  CHECK(m.peak() == 3 * MiB);
  m.reset_peak();
  CHECK(m.peak() == 0);

  // The whole budget is usable, in one piece, and move keeps ownership.
  auto all = m.allocate(4 * MiB, "all");
  gxsort::cuda::DeviceAllocation moved = std::move(all);
  CHECK(!all);
  CHECK(moved.size() == 4 * MiB);
  CHECK(m.in_use() == 4 * MiB);
  moved = gxsort::cuda::DeviceAllocation();
  CHECK(m.in_use() == 0);

  // The memory is real device memory.
  auto buf = m.buffer<uint64_t>(1000, "typed");
  CHECK(buf.size() == 1000);
  CHECK(buf.bytes() == 8000);
  std::vector<uint64_t> h(1000), back(1000, 0);
  std::iota(h.begin(), h.end(), uint64_t(7));
  GXSORT_CUDA_CHECK(cudaMemcpy(buf.data(), h.data(), 8000, cudaMemcpyHostToDevice));
  GXSORT_CUDA_CHECK(cudaMemcpy(back.data(), buf.data(), 8000, cudaMemcpyDeviceToHost));
  CHECK(back == h);
}

TEST_CASE("DeviceMemory: a request that does not fit is a clear resource error") {
  GPU_TEST_REQUIRE_DEVICE();
  DeviceMemory m(0, size_t(2 * MiB));
  auto held = m.allocate(MiB + MiB / 2, "held");
  try {
    m.allocate(3 * MiB, "the test buffer");
    FAIL("allocated past the budget");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::io);
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("device memory budget exceeded") != std::string::npos);
    CHECK(msg.find("requested 3.0 MiB for the test buffer") != std::string::npos);
    CHECK(msg.find("budget 2.0 MiB") != std::string::npos);
    CHECK(msg.find("1.5 MiB in use") != std::string::npos);
  }
  // Fits the budget's sum but not its free space.
  CHECK_THROWS_AS(m.allocate(MiB, "too much"), Error);
  CHECK_FALSE(m.fits(MiB));
  CHECK(m.fits(MiB / 2));
  CHECK(m.in_use() == MiB + MiB / 2);  // a failed request changes nothing
}

TEST_CASE("DeviceMemory: budgets from text and budgets past free memory") {
  GPU_TEST_REQUIRE_DEVICE();
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaSetDevice(0));
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  {
    DeviceMemory m(0, parse_size_option("64M", "--device-memory"));
    CHECK(m.budget() == 64 * MiB);
  }
  {
    DeviceMemory m(0, parse_size_option("1%", "--device-memory"));
    CHECK(m.budget() > 0);
    CHECK(m.budget() <= free_b / 100);
  }
  try {
    DeviceMemory m(0, parse_size_option("banana", "--device-memory"));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
  }
  try {
    DeviceMemory m(0, total_b);  // more than is free (something always is in use)
    FAIL("accepted");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == ExitCode::io);
    CHECK(std::string(e.what()).find("exceeds the free memory") != std::string::npos);
  }
  // The device is still usable after a refused budget.
  DeviceMemory ok(0, size_t(MiB));
  CHECK(ok.allocate(100, "after").get() != nullptr);
}

TEST_CASE("DeviceMemory: the arena is reserved at its first allocation, not before") {
  GPU_TEST_REQUIRE_DEVICE();
  GXSORT_CUDA_CHECK(cudaSetDevice(0));
  size_t free0 = 0, free1 = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free0, &total_b));
  const size_t budget = std::min<size_t>(free0 / 4, size_t(8) << 30);
  DeviceMemory m(0, budget);
  CHECK(m.base() == nullptr);
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free1, &total_b));
  CHECK(free1 + budget / 2 > free0);  // nothing of the budget taken yet
  gxsort::cuda::DeviceAllocation a = m.allocate(100, "first");
  REQUIRE(a.get() != nullptr);
  CHECK(m.base() == a.get());  // first fit from the arena's start
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free1, &total_b));
  CHECK(free1 + budget <= free0 + (size_t(64) << 20));  // the whole budget, at once
  CHECK(m.allocate(budget - 4096, "the rest").get() != nullptr);
}

TEST_CASE("pinned pool: buffers are pinned and counted") {
  GPU_TEST_REQUIRE_DEVICE();
  using namespace gxsort::cuda;
  const size_t before = pinned_bytes_in_use();
  {
    HostBuffer a = allocate_pinned(3 * MiB);
    HostBuffer b = allocate_pinned(12345);
    REQUIRE(a.data() != nullptr);
    CHECK(a.size() == 3 * MiB);
    CHECK(pinned_bytes_in_use() == before + 3 * MiB + 12345);
    CHECK(pinned_bytes_peak() >= before + 3 * MiB + 12345);
    cudaPointerAttributes attr;
    GXSORT_CUDA_CHECK(cudaPointerGetAttributes(&attr, a.data()));
    CHECK(attr.type == cudaMemoryTypeHost);
    HostBuffer c = std::move(b);  // moving hands over ownership, the count stays
    CHECK(pinned_bytes_in_use() == before + 3 * MiB + 12345);
    std::memset(a.data(), 0x5a, a.size());  // writable
  }
  CHECK(pinned_bytes_in_use() == before);
  HostBuffer empty = allocate_pinned(0);
  CHECK(empty.data() == nullptr);
  CHECK(pinned_bytes_in_use() == before);
}

// ---------------------------------------------------------------------------------------
// The backend.

TEST_CASE("CudaBackend: identity, devices and sizing") {
  GPU_TEST_REQUIRE_DEVICE();
  CHECK(gxsort::cuda_device_usable());
  CudaBackend& b = backend();
  INFO(b.name());
  CHECK(b.name().rfind("cuda:0 (", 0) == 0);
  CHECK(b.sort_scratch_bytes(Format::gensort(), 1000) == 0);
  const gxsort::DeviceInfo d = b.info();
  CHECK(d.budget == b.memory().budget());
  CHECK(d.total_memory >= d.budget);
  CHECK(d.multiprocessors > 0);

  const auto devs = gxsort::cuda_list_devices(parse_size_option("25%", "--device-memory"));
  REQUIRE(!devs.empty());
  CHECK(devs[0].name == d.name);
  CHECK(devs[0].budget > 0);
  CHECK(devs[0].budget <= devs[0].free_memory / 4 + 1);

  auto made = gxsort::make_cuda_backend(0, parse_size_option("16M", "--device-memory"));
  CHECK(made->name() == b.name());
  CHECK_THROWS_AS(gxsort::make_cuda_backend(999, parse_size_option("16M", "--device-memory")), Error);

  // max_chunk_records is the largest n whose working set fits what is free.
  for (const Format& f : {typed(KeyType::u64), typed(KeyType::u32), Format::gensort(),
                          record(KeyType::i64, 24, 8), bytes_key(32, 6, 20)}) {
    const size_t n = b.max_chunk_records(f);
    INFO(describe(f), ": max ", n);
    CHECK(n > 0);
    CHECK(b.sort_device_bytes(f, n) <= b.memory().largest_free());
    if (n < (size_t(1) << 31))  // else capped by the 32-bit index, not by memory
      CHECK(b.sort_device_bytes(f, n + n / 100 + 1) > b.memory().largest_free());
  }
}

TEST_CASE("sort_chunk: a chunk of max_chunk_records fits, one more is refused") {
  GPU_TEST_REQUIRE_DEVICE();
  CudaBackend small(0, parse_size_option("48M", "--device-memory"));
  for (const Format& f : {Format::gensort(), typed(KeyType::f64), bytes_key(16, 2, 4)}) {
    const size_t n = small.max_chunk_records(f);
    INFO(describe(f), ": max ", n);
    REQUIRE(n > 1000);
    Rng rng(n);
    std::vector<unsigned char> in = make_input(f, n, Dist::random, rng);
    HostBuffer h = small.allocate_host(in.size() + f.record_size);
    std::memcpy(h.data(), in.data(), in.size());
    small.sort_chunk(f, h.data(), n, nullptr);
    const std::vector<unsigned char> want = oracle(f, in.data(), n);
    CHECK(std::memcmp(h.data(), want.data(), want.size()) == 0);
    CHECK(small.memory().in_use() == 0);  // everything went back
    CHECK(small.memory().peak() <= small.memory().budget());
    try {
      small.sort_chunk(f, h.data(), n + n / 50 + 1, nullptr);
      FAIL("sorted past the budget");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == ExitCode::io);
      CHECK(std::string(e.what()).find("device memory budget exceeded") != std::string::npos);
    }
  }
}

// Each sweep twice: quick in the default suite, full in the long one (run on request:
// gxsort_cuda_tests --long; tests/cuda/main.cpp).
TEST_CASE("sort_chunk: flat typed keys") {
  GPU_TEST_REQUIRE_DEVICE();
  check_flat_typed_keys(Sweep::quick);
}

TEST_CASE("sort_chunk: flat typed keys, full sweep (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_flat_typed_keys(Sweep::full);
}

TEST_CASE("sort_chunk: records with typed keys at an offset") {
  GPU_TEST_REQUIRE_DEVICE();
  check_typed_records(Sweep::quick);
}

TEST_CASE("sort_chunk: records with typed keys at an offset, full sweep (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_typed_records(Sweep::full);
}

TEST_CASE("sort_chunk: byte keys (4, 8, 10 = gensort, 20 bytes and odd widths)") {
  GPU_TEST_REQUIRE_DEVICE();
  check_byte_keys(Sweep::quick);
}

TEST_CASE("sort_chunk: byte keys (4, 8, 10 = gensort, 20 bytes and odd widths), full sweep (long)" *
          doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_byte_keys(Sweep::full);
}

// 64 MiB copy slices. The default: flat keys past one slice by 5 records (slice 0 on one
// stream, a 40-byte slice 1 on the other) and gensort records past two slices by a few
// records (the records path, a stream used twice, a tiny last slice). The long case: three
// full slices in both paths and 4-byte flat keys too. The host oracle dominates the run
// time (about 0.5 s a million 8-byte keys).
TEST_CASE("sort_chunk: chunks of many copy slices") {
  GPU_TEST_REQUIRE_DEVICE();
  check_copy_slices({{typed(KeyType::i64, true), 8388613}, {Format::gensort(), 1342181}});
}

TEST_CASE("sort_chunk: chunks of many copy slices, three in every path (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_copy_slices({{typed(KeyType::i64, true), 24000007},  // 3 slices
                     {typed(KeyType::f32), 40000003},        // 3 slices
                     {Format::gensort(), 2000003}});         // 3 slices
}

TEST_CASE("sort_chunk: pageable host memory works too") {
  GPU_TEST_REQUIRE_DEVICE();
  Rng rng(7);
  for (const Format& f : {typed(KeyType::f32), Format::gensort()}) {
    const size_t n = 200003;
    std::vector<unsigned char> in = make_input(f, n, Dist::few_keys, rng);
    std::vector<unsigned char> h = in;
    backend().sort_chunk(f, h.data(), n, nullptr);
    CHECK(h == oracle(f, in.data(), n));
  }
}

namespace {

// The GPU's sort of `in` with the records in pinned memory (the engine's path, checked
// against the oracle by the cases above): what a sort through staging must give.
std::vector<unsigned char> pinned_sort(const Format& f, const std::vector<unsigned char>& in, size_t n) {
  unsigned char* h = staging(std::max<size_t>(in.size(), 1));
  std::memcpy(h, in.data(), in.size());
  backend().sort_chunk(f, h, n, nullptr);
  return std::vector<unsigned char>(h, h + in.size());
}

// sort_into from `in` into a fresh output, pageable or pinned at either end; `in` unchanged.
void check_sort_into(const Format& f, const std::vector<unsigned char>& in, size_t n, bool pinned_in,
                     bool pinned_out, const std::vector<unsigned char>& want) {
  HostBuffer pin_in = gxsort::cuda::allocate_pinned(pinned_in ? in.size() : 0);
  HostBuffer pin_out = gxsort::cuda::allocate_pinned(pinned_out ? in.size() : 0);
  std::vector<unsigned char> page_in = pinned_in ? std::vector<unsigned char>() : in;
  std::vector<unsigned char> page_out(pinned_out ? 0 : in.size(), 0xA5);
  unsigned char* src = pinned_in ? pin_in.data() : page_in.data();
  unsigned char* dst = pinned_out ? pin_out.data() : page_out.data();
  if (pinned_in) std::memcpy(src, in.data(), in.size());
  size_t reported = 0;
  backend().sort_into(f, src, dst, n, [&](size_t first, size_t count) { reported += first + count; });
  INFO(describe(f), ", n = ", n, ", pinned in ", pinned_in, ", pinned out ", pinned_out);
  CHECK(std::memcmp(dst, want.data(), want.size()) == 0);
  CHECK(std::memcmp(src, in.data(), in.size()) == 0);
  CHECK(reported == n);
}

}  // namespace

// Pageable memory past one 64 MiB copy slice goes through pinned staging
// (cuda/host_staging.cuh), in place (sort_chunk) and from one buffer into another
// (sort_into, the in-memory API's sorted copy): flat keys over two slices and a 40-byte
// third, gensort records over two slices and a bit, and flat keys and records whose keys
// are all equal (nothing sorted: what was read goes out). Each against the pinned path.
TEST_CASE("sort_chunk and sort_into: pageable memory past a slice goes through pinned staging") {
  GPU_TEST_REQUIRE_DEVICE();
  const unsigned threads = backend().host_threads();
  backend().set_host_threads(4);
  Rng rng(17);
  const std::pair<Format, Dist> cases[] = {{typed(KeyType::i64, true), Dist::random},
                                           {typed(KeyType::i64, true), Dist::all_equal},  // out from the order words
                                           {Format::gensort(), Dist::random},
                                           {Format::gensort(), Dist::all_equal}};
  for (const auto& [f, d] : cases) {
    const size_t n = (f.flat() ? 2 * (64 * MiB) + 40 : 2 * (64 * MiB) + 4000) / f.record_size;
    const std::vector<unsigned char> in = make_input(f, n, d, rng);
    const std::vector<unsigned char> want = pinned_sort(f, in, n);
    if (d == Dist::all_equal) CHECK(want == in);
    std::vector<unsigned char> h = in;
    backend().sort_chunk(f, h.data(), n, nullptr);
    CHECK(h == want);
    for (bool pinned_in : {false, true})
      for (bool pinned_out : {false, true}) check_sort_into(f, in, n, pinned_in, pinned_out, want);
  }
  for (size_t n : {0, 1, 2}) {  // below a slice, one record, none
    const Format f = typed(KeyType::u32);
    const std::vector<unsigned char> in = make_input(f, n, Dist::random, rng);
    check_sort_into(f, in, n, false, false, oracle(f, in.data(), n));
  }
  backend().set_host_threads(threads);
  CHECK(backend().memory().in_use() == 0);
}

// ---------------------------------------------------------------------------------------
// Timing (skipped by default): sort_chunk against the PCIe copies it cannot avoid and
// against a raw CUB radix sort of the same keys already on the device.

namespace {

template <class F>
double best_ms(int reps, F&& run) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

// H2D then D2H of `bytes` between pinned `h` and device `d`: the copies sort_chunk needs.
double copies_ms(unsigned char* h, void* d, size_t bytes) {
  return best_ms(3, [&] {
    GXSORT_CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    GXSORT_CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
  });
}

template <class K, class V>
double raw_cub_ms(DeviceMemory& m, const std::vector<K>& keys_host, bool pairs) {
  const size_t n = keys_host.size();
  auto k0 = m.buffer<K>(n, "bench keys"), k1 = m.buffer<K>(n, "bench keys alt");
  auto v0 = m.buffer<V>(pairs ? n : 1, "bench vals"), v1 = m.buffer<V>(pairs ? n : 1, "bench vals alt");
  cub::DoubleBuffer<K> kb(k0.data(), k1.data());
  cub::DoubleBuffer<V> vb(v0.data(), v1.data());
  size_t temp_bytes = 0;
  if (pairs) GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kb, vb, uint32_t(n)));
  else GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, kb, uint32_t(n)));
  auto temp = m.allocate(temp_bytes, "bench temp");
  cudaEvent_t e0, e1;
  GXSORT_CUDA_CHECK(cudaEventCreate(&e0));
  GXSORT_CUDA_CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int rep = 0; rep < 4; ++rep) {
    GXSORT_CUDA_CHECK(cudaMemcpy(k0.data(), keys_host.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    kb = cub::DoubleBuffer<K>(k0.data(), k1.data());
    vb = cub::DoubleBuffer<V>(v0.data(), v1.data());
    GXSORT_CUDA_CHECK(cudaEventRecord(e0));
    if (pairs) GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, kb, vb, uint32_t(n)));
    else GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, kb, uint32_t(n)));
    GXSORT_CUDA_CHECK(cudaEventRecord(e1));
    GXSORT_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    GXSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (rep > 0) best = std::min(best, ms);  // the first run warms up
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return best;
}

}  // namespace

TEST_CASE("bench: sort_chunk vs raw cub::DeviceRadixSort" * doctest::skip()) {
  GPU_TEST_REQUIRE_DEVICE();
  CudaBackend& b = backend();
  std::printf("\ndevice: %s, budget %s\n", b.name().c_str(), gxsort::format_bytes(b.memory().budget()).c_str());
  std::printf("| case | n | bytes | sort_chunk ms | H2D+D2H ms | raw cub ms (keys on device) | sort_chunk / copies |\n");
  std::printf("|---|---|---|---|---|---|---|\n");

  {  // 2^28 random u64 keys
    const Format f = typed(KeyType::u64);
    const size_t n = size_t(1) << 28, bytes = n * 8;
    std::vector<uint64_t> keys(n);
    Rng rng(42);
    for (auto& k : keys) k = rng.next();
    HostBuffer h = b.allocate_host(bytes);
    b.sort_chunk(f, h.data(), 1 << 20, nullptr);  // warm-up (kernels load lazily)
    double sort_ms = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      std::memcpy(h.data(), keys.data(), bytes);
      sort_ms = std::min(sort_ms, best_ms(1, [&] { b.sort_chunk(f, h.data(), n, nullptr); }));
    }
    CHECK(std::is_sorted(reinterpret_cast<uint64_t*>(h.data()), reinterpret_cast<uint64_t*>(h.data()) + n));
    double copy_ms = 0;
    {
      auto d = b.memory().allocate(bytes, "bench copy target");
      copy_ms = copies_ms(h.data(), d.get(), bytes);
    }
    const double cub_ms = raw_cub_ms<uint64_t, uint32_t>(b.memory(), keys, false);
    std::printf("| u64 keys (SortKeys) | 2^28 | %.2f GiB | %.1f | %.1f | %.1f | %.2f |\n", bytes / double(GiB), sort_ms,
                copy_ms, cub_ms, sort_ms / copy_ms);
  }
  {  // 2^26 random gensort records (100 bytes, 10-byte keys)
    const Format f = Format::gensort();
    const size_t n = size_t(1) << 26, bytes = n * 100;
    std::vector<unsigned char> recs(bytes);
    Rng rng(43);
    rng.fill(recs.data(), bytes);
    HostBuffer h = b.allocate_host(bytes);
    std::memcpy(h.data(), recs.data(), 1 << 20);
    b.sort_chunk(f, h.data(), (1 << 20) / 100, nullptr);  // warm-up
    double sort_ms = 1e30;
    for (int rep = 0; rep < 2; ++rep) {
      std::memcpy(h.data(), recs.data(), bytes);
      sort_ms = std::min(sort_ms, best_ms(1, [&] { b.sort_chunk(f, h.data(), n, nullptr); }));
    }
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) sorted = gxsort::compare_keys(f, h.data() + (i - 1) * 100, h.data() + i * 100) <= 0;
    CHECK(sorted);
    double copy_ms = 0;
    {
      auto d = b.memory().allocate(bytes, "bench copy target");
      copy_ms = copies_ms(h.data(), d.get(), bytes);
    }
    std::vector<uint64_t> prefixes(n);
    for (size_t i = 0; i < n; ++i) prefixes[i] = gxsort::key_prefix(f, recs.data() + i * 100);
    const double cub_pairs_ms = raw_cub_ms<uint64_t, uint32_t>(b.memory(), prefixes, true);
    std::printf("| gensort 100 B records, 10 B keys | 2^26 | %.2f GiB | %.1f | %.1f | %.1f (SortPairs of the 8-byte prefix + u32 index) | %.2f |\n",
                bytes / double(GiB), sort_ms, copy_ms, cub_pairs_ms, sort_ms / copy_ms);
  }
  std::fflush(stdout);
}
