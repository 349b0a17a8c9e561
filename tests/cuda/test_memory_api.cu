// The in-memory API (gxsort/memory.hpp) on device buffers: sort and argsort of records in
// device memory, on the caller's stream, byte-identical to a stable host sort and to the
// API's CPU sort of the same bytes; a host pointer given as a device buffer is refused.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "cuda_check.cuh"
#include "gpu_test_util.hpp"
#include "gxsort/memory.hpp"
#include "../common/records.hpp"

using namespace gxsort;

namespace {

using Bytes = std::vector<unsigned char>;

Bytes random_records(const Format& f, size_t n, uint64_t seed, unsigned mod) {
  Bytes data(n * f.record_size);
  uint64_t x = seed;
  for (auto& b : data) {
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    b = static_cast<unsigned char>(((z ^ (z >> 27)) >> 8) % mod);  // small mod: many equal keys
  }
  return data;
}


std::vector<Format> formats() {
  KeyField a = Format::single_field(KeyType::u16, 0), b = Format::single_field(KeyType::f32, 4);
  b.desc = true;
  return {Format::typed(KeyType::u64), Format::typed(KeyType::f32),
          Format::of_keys(16, {Format::single_field(KeyType::i64, 8)}, false), Format::of_keys(12, {a, b}, false),
          Format::gensort()};
}

// Sorts and argsorts `data` in device memory on a stream of the test's own, with `o`'s
// resources (a workspace, a device budget).
void check_device_calls(const Format& f, const Bytes& data, MemoryOptions o = {}) {
  const size_t n = data.size() / f.record_size;
  const std::vector<uint64_t> want = gxsort_test::stable_order(f, data);
  Bytes want_sorted(data.size());
  for (size_t i = 0; i < n; ++i)
    std::memcpy(&want_sorted[i * f.record_size], &data[want[i] * f.record_size], f.record_size);
  cudaStream_t stream;
  GXSORT_CUDA_CHECK(cudaStreamCreate(&stream));
  void* d_data = nullptr;
  uint64_t* d_perm = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&d_data, std::max<size_t>(data.size(), 1)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_perm, std::max<size_t>(n, 1) * 8));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(d_data, data.data(), data.size(), cudaMemcpyHostToDevice, stream));
  o.location = BufferLocation::device;
  o.stream = reinterpret_cast<uintptr_t>(stream);
  argsort(d_data, n, f, d_perm, o);  // ordered after the copy queued on the stream
  gxsort::sort(d_data, n, f, o);
  Bytes got(data.size());
  std::vector<uint64_t> perm(n);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(got.data(), d_data, got.size(), cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(perm.data(), d_perm, n * 8, cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(got == want_sorted);
  CHECK(perm == want);
  Bytes on_cpu = data;
  MemoryOptions cpu;
  cpu.device = Device::cpu;
  gxsort::sort(on_cpu.data(), n, f, cpu);
  CHECK(got == on_cpu);
  cudaFree(d_data);
  cudaFree(d_perm);
  cudaStreamDestroy(stream);
}

}  // namespace

TEST_CASE("memory api: device buffers sort and argsort as the host does") {
  GPU_TEST_REQUIRE_DEVICE();
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(100003)})
      for (unsigned mod : {256u, 3u}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        CAPTURE(mod);
        check_device_calls(f, random_records(f, n, n + mod, mod));
      }
}

TEST_CASE("memory api: host buffers on the GPU backend give the CPU's bytes") {
  GPU_TEST_REQUIRE_DEVICE();
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const Bytes data = random_records(f, 200003, 7, 5);
    Bytes gpu = data, cpu = data;
    MemoryOptions o;
    o.device = Device::cuda;
    gxsort::sort(gpu.data(), 200003, f, o);
    o.device = Device::cpu;
    gxsort::sort(cpu.data(), 200003, f, o);
    CHECK(gpu == cpu);
  }
}

TEST_CASE("memory api: two device sorts at once") {
  GPU_TEST_REQUIRE_DEVICE();
  const Format f = Format::typed(KeyType::u64);
  const Bytes a = random_records(f, 1 << 20, 1, 256), b = random_records(f, 1 << 20, 2, 3);
  std::thread t([&] { check_device_calls(f, a); });
  check_device_calls(f, b);
  t.join();
}

TEST_CASE("memory api: a host pointer given as a device buffer is a DeviceError") {
  GPU_TEST_REQUIRE_DEVICE();
  std::vector<uint64_t> v = {3, 1, 2};
  MemoryOptions o;
  o.location = BufferLocation::device;
  CHECK_THROWS_AS(gxsort::sort(v.data(), v.size(), Format::typed(KeyType::u64), o), DeviceError);
  CHECK(v == std::vector<uint64_t>{3, 1, 2});
}

TEST_CASE("memory api: a workspace keeps the GPU between calls, fitted to each") {
  GPU_TEST_REQUIRE_DEVICE();
  DeviceWorkspace ws;
  MemoryOptions o;
  o.workspace = &ws;
  // Growing, shrinking past half, the same size again, other formats: each call's arena.
  for (size_t n : {size_t(1000), size_t(300007), size_t(517), size_t(300007), size_t(2)})
    for (const Format& f : formats()) {
      CAPTURE(f.describe());
      CAPTURE(n);
      check_device_calls(f, random_records(f, n, n, 7), o);
    }
  ws.release();
  check_device_calls(Format::typed(KeyType::u64), random_records(Format::typed(KeyType::u64), 4099, 3, 256), o);
  // Two threads sharing it take turns on the GPU.
  const Format f = Format::typed(KeyType::f32);
  const Bytes a = random_records(f, 1 << 20, 5, 256), b = random_records(f, 1 << 19, 6, 3);
  std::thread t([&] { check_device_calls(f, a, o); });
  check_device_calls(f, b, o);
  t.join();
}

TEST_CASE("memory api: a device buffer past the device budget is sorted through host memory") {
  GPU_TEST_REQUIRE_DEVICE();
  MemoryOptions o;
  o.device_memory = parse_size_option("8M", "device_memory");  // 4 MiB of records and more do not fit
  DeviceWorkspace ws;
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    const size_t n = (size_t(6) << 20) / f.record_size + 3;
    check_device_calls(f, random_records(f, n, 11, 5), o);
    MemoryOptions with_ws = o;
    with_ws.workspace = &ws;
    check_device_calls(f, random_records(f, n, 12, 256), with_ws);
  }
}

// 2^31 + 1001 u32 keys (8 GiB): past what one device sort takes (CUB's int counts).
TEST_CASE("memory api: a device buffer of more than 2^31 records (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  const size_t n = (size_t(1) << 31) + 1001;
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < n * 4 * 3) {
    MESSAGE("skipped: the GPU has " << free_b << " bytes free, the case needs three times " << n * 4);
    return;
  }
  std::vector<uint32_t> keys(n);
  uint64_t x = 99, sum = 0, sum_sq = 0;
  for (auto& k : keys) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    k = uint32_t(x >> 33) % 1000003u;  // duplicates: about 2000 of each key
    sum += k;
    sum_sq += uint64_t(k) * k;
  }
  void* d = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&d, n * 4));
  GXSORT_CUDA_CHECK(cudaMemcpy(d, keys.data(), n * 4, cudaMemcpyHostToDevice));
  MemoryOptions o;
  o.location = BufferLocation::device;
  gxsort::sort(d, n, Format::typed(KeyType::u32), o);
  GXSORT_CUDA_CHECK(cudaMemcpy(keys.data(), d, n * 4, cudaMemcpyDeviceToHost));
  cudaFree(d);
  uint64_t got_sum = 0, got_sq = 0;
  size_t disorder = 0;
  for (size_t i = 0; i < n; ++i) {
    got_sum += keys[i];
    got_sq += uint64_t(keys[i]) * keys[i];
    disorder += i > 0 && keys[i - 1] > keys[i];
  }
  CHECK(disorder == 0);
  CHECK(got_sum == sum);
  CHECK(got_sq == sum_sq);
}

// The workspace's GPU backend was made while the GPU was free (its budget: most of that
// memory); a later call finds most of it taken by the caller and goes through host memory.
TEST_CASE("memory api: a workspace made on a free GPU, called when the caller holds most of it") {
  GPU_TEST_REQUIRE_DEVICE();
  DeviceWorkspace ws;
  MemoryOptions o;
  o.workspace = &ws;
  const Format f = Format::typed(KeyType::u64);
  check_device_calls(f, random_records(f, 1000, 1, 256), o);
  const size_t n = (size_t(256) << 20) / 8;  // 256 MiB of keys, and their permutation
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t keep = 3 * (size_t(256) << 20);  // the keys, the permutation and 256 MiB: too little to sort in place
  REQUIRE(free_b > keep);
  void* hog = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&hog, free_b - keep));
  check_device_calls(f, random_records(f, n, 2, 256), o);
  cudaFree(hog);
  check_device_calls(f, random_records(f, 4099, 3, 5), o);
}
