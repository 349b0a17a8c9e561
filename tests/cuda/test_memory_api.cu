// The in-memory API (gxsort/memory.hpp) on device buffers: sort, argsort, unique and merge
// of records in device memory, on the caller's stream, byte-identical to a stable host sort
// (and unique's groups, merge's ties by input order) and to the API's CPU calls on the
// same bytes; a host pointer given as a device buffer is refused.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
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
  return {Format::typed(KeyType::u64), Format::typed(KeyType::u32), Format::typed(KeyType::f32),
          Format::of_keys(16, {Format::single_field(KeyType::i64, 8)}, false), Format::of_keys(12, {a, b}, false),
          Format::gensort()};
}

// Sorts, sorts a copy of, and argsorts `data` in device memory on a stream of the test's
// own, with `o`'s resources (a workspace, a device budget).
void check_device_calls(const Format& f, const Bytes& data, MemoryOptions o = {}) {
  const size_t n = data.size() / f.record_size;
  const std::vector<uint64_t> want = gxsort_test::stable_order(f, data);
  Bytes want_sorted(data.size());
  for (size_t i = 0; i < n; ++i)
    std::memcpy(&want_sorted[i * f.record_size], &data[want[i] * f.record_size], f.record_size);
  cudaStream_t stream;
  GXSORT_CUDA_CHECK(cudaStreamCreate(&stream));
  void* d_data = nullptr;
  void* d_copy = nullptr;
  uint64_t* d_perm = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&d_data, std::max<size_t>(data.size(), 1)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_copy, std::max<size_t>(data.size(), 1)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_perm, std::max<size_t>(n, 1) * 8));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(d_data, data.data(), data.size(), cudaMemcpyHostToDevice, stream));
  o.location = BufferLocation::device;
  o.stream = reinterpret_cast<uintptr_t>(stream);
  argsort(d_data, n, f, d_perm, o);  // ordered after the copy queued on the stream
  sort_copy(d_data, d_copy, n, f, o);
  Bytes input_after(data.size()), copy(data.size());
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(input_after.data(), d_data, data.size(), cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(copy.data(), d_copy, data.size(), cudaMemcpyDeviceToHost, stream));
  gxsort::sort(d_data, n, f, o);
  Bytes got(data.size());
  std::vector<uint64_t> perm(n);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(got.data(), d_data, got.size(), cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(perm.data(), d_perm, n * 8, cudaMemcpyDeviceToHost, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(got == want_sorted);
  CHECK(copy == want_sorted);
  CHECK(input_after == data);
  CHECK(perm == want);
  Bytes on_cpu = data;
  MemoryOptions cpu;
  cpu.device = Device::cpu;
  gxsort::sort(on_cpu.data(), n, f, cpu);
  CHECK(got == on_cpu);
  cudaFree(d_data);
  cudaFree(d_copy);
  cudaFree(d_perm);
  cudaStreamDestroy(stream);
}

}  // namespace

TEST_CASE("memory api: device buffers sort and argsort as the host does") {
  GPU_TEST_REQUIRE_DEVICE();
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(100003)})
      for (unsigned mod : {256u, 3u, 1u}) {  // 1: every byte zero, every key equal
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
    // A sorted copy past a 2 MiB budget: runs sorted on the GPU from pageable memory,
    // merged from their files into the output.
    Bytes copy(data.size());
    MemoryOptions small;
    small.device = Device::cuda;
    small.memory = parse_size_option("2M", "memory");
    small.tmp_dirs = {"/tmp"};
    sort_copy(data.data(), copy.data(), 200003, f, small);
    CHECK(copy == cpu);
    // In place past 1 MiB (two merge levels into a temp file, read back), and argsort past
    // 2 MiB (its indexed records made and sorted on the GPU run by run, merged).
    Bytes inplace = data;
    MemoryOptions tiny = small;
    tiny.memory = parse_size_option("1M", "memory");
    gxsort::sort(inplace.data(), 200003, f, tiny);
    CHECK(inplace == cpu);
    std::vector<uint64_t> perm_gpu(200003), perm_cpu(200003);
    argsort(data.data(), 200003, f, perm_gpu.data(), small);
    argsort(data.data(), 200003, f, perm_cpu.data(), o);
    CHECK(perm_gpu == perm_cpu);
  }
}

// Past a 64 MiB budget, 8M 16-byte records (i64 key): runs on the GPU, merged on the
// device in windows the plan sized to the whole arena (which the runs leave as it was),
// in place (into a temp file, read back); a copy merges on the CPU into its output.
TEST_CASE("memory api: host buffers past a 64 MiB budget merge in device windows") {
  GPU_TEST_REQUIRE_DEVICE();
  const Format f = Format::of_keys(16, {Format::single_field(KeyType::i64, 8)}, false);
  const size_t n = size_t(8) << 20;
  const Bytes data = random_records(f, n, 9, 256);
  Bytes cpu = data;
  MemoryOptions o;
  o.device = Device::cpu;
  gxsort::sort(cpu.data(), n, f, o);
  o.device = Device::cuda;
  o.memory = parse_size_option("64M", "memory");
  o.tmp_dirs = {"/tmp"};
  Bytes inplace = data, copy(data.size());
  gxsort::sort(inplace.data(), n, f, o);
  CHECK(inplace == cpu);
  sort_copy(data.data(), copy.data(), n, f, o);
  CHECK(copy == cpu);
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
  const size_t n = (size_t(64) << 20) / 8;  // 64 MiB of keys, and their permutation
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  // The keys, their sorted copy, the permutation and 64 MiB: too little to sort in place.
  const size_t keep = 4 * (size_t(64) << 20);
  REQUIRE(free_b > keep);
  void* hog = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&hog, free_b - keep));
  std::unique_ptr<void, cudaError_t (*)(void*)> held(hog, cudaFree);  // freed if the case throws too
  check_device_calls(f, random_records(f, n, 2, 256), o);
  held.reset();
  check_device_calls(f, random_records(f, 4099, 3, 5), o);
}

namespace {

// Device memory of a test, freed at scope exit (also when a CHECK fails and the case goes on).
struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(size_t bytes) { GXSORT_CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 1))); }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(DeviceBytes&& o) noexcept : p(o.p) { o.p = nullptr; }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  uint64_t* words() const { return static_cast<uint64_t*>(p); }
};

DeviceBytes on_device(const Bytes& host) {
  DeviceBytes d(host.size());
  GXSORT_CUDA_CHECK(cudaMemcpy(d.p, host.data(), host.size(), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> from_device(const void* d, size_t count) {
  std::vector<T> host(count);
  GXSORT_CUDA_CHECK(cudaMemcpy(host.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

using gxsort_test::Groups;
using gxsort_test::unique_oracle;

MemoryOptions device_options(MemoryOptions o, cudaStream_t stream) {
  o.location = BufferLocation::device;
  o.stream = reinterpret_cast<uintptr_t>(stream);
  return o;
}

// unique of `data` in device memory (outputs on the device too) against the oracle and
// the host unique on the CPU; once more without counts and first indices, and in place.
void check_device_unique(const Format& f, const Bytes& data, const MemoryOptions& given = {}) {
  const size_t rs = f.record_size, n = data.size() / rs;
  const Groups want = unique_oracle(f, data);
  const size_t k = want.counts.size();
  cudaStream_t stream;
  GXSORT_CUDA_CHECK(cudaStreamCreate(&stream));
  const MemoryOptions o = device_options(given, stream);
  const DeviceBytes d_data = on_device(data), d_out(data.size()), d_counts(n * 8), d_first(n * 8);
  CHECK(unique(d_data.p, n, f, d_out.p, d_counts.words(), d_first.words(), o) == k);
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(from_device<unsigned char>(d_out.p, k * rs) == want.records);
  CHECK(from_device<uint64_t>(d_counts.p, k) == want.counts);
  CHECK(from_device<uint64_t>(d_first.p, k) == want.first);
  CHECK(from_device<unsigned char>(d_data.p, data.size()) == data);  // the input is not written
  CHECK(first_unsorted(d_data.p, n, f, o) == first_unsorted(data.data(), n, f));
  MemoryOptions cpu;
  cpu.device = Device::cpu;
  Bytes host_out(data.size());
  std::vector<uint64_t> host_counts(n), host_first(n);
  CHECK(unique(data.data(), n, f, host_out.data(), host_counts.data(), host_first.data(), cpu) == k);
  CHECK(Bytes(host_out.begin(), host_out.begin() + long(k * rs)) == want.records);
  const DeviceBytes d_bare(data.size());
  CHECK(unique(d_data.p, n, f, d_bare.p, nullptr, nullptr, o) == k);
  CHECK(from_device<unsigned char>(d_bare.p, k * rs) == want.records);
  CHECK(unique(d_data.p, n, f, d_data.p, d_counts.words(), nullptr, o) == k);  // out is the input
  CHECK(from_device<unsigned char>(d_data.p, k * rs) == want.records);
  CHECK(from_device<uint64_t>(d_counts.p, k) == want.counts);
  cudaStreamDestroy(stream);
}

// Float keys of every special value: NaNs of both signs and two payloads, signed zeros,
// infinities, a denormal, each many times in a shuffled order.
template <class T>
Bytes special_floats(size_t n) {
  const T v[] = {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(), T(0.0), T(-0.0),
                 std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                 std::numeric_limits<T>::denorm_min(), T(-1.5), T(2.0)};
  Bytes data(n * sizeof(T));
  uint64_t x = 5;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    T value = v[(x >> 33) % (sizeof v / sizeof v[0])];
    if ((x >> 20) % 7 == 0 && std::isnan(value)) {  // another NaN payload, the same sign
      unsigned char b[sizeof(T)];
      std::memcpy(b, &value, sizeof(T));
      b[0] ^= 1;
      std::memcpy(&value, b, sizeof(T));
    }
    std::memcpy(&data[i * sizeof(T)], &value, sizeof(T));
  }
  return data;
}

// The inputs of a merge: sizes[i] records each, sorted stably on the host.
std::vector<Bytes> sorted_parts(const Format& f, const std::vector<size_t>& sizes, unsigned mod, uint64_t seed) {
  std::vector<Bytes> parts;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const Bytes part = random_records(f, sizes[i], seed + i, mod);
    const std::vector<uint64_t> order = gxsort_test::stable_order(f, part);
    Bytes sorted(part.size());
    for (size_t j = 0; j < order.size(); ++j)
      std::memcpy(&sorted[j * f.record_size], &part[order[j] * f.record_size], f.record_size);
    parts.push_back(sorted);
  }
  return parts;
}

// merge of the parts in device memory against the stable sort of them laid end to end
// (ties by input order) and the host merge; the byte past the output is not written.
// out_offset: the output that many bytes into its allocation (not aligned to a record's words).
void check_device_merge(const Format& f, const std::vector<Bytes>& parts, const MemoryOptions& given = {},
                        size_t out_offset = 0) {
  Bytes all;
  for (const Bytes& p : parts) all.insert(all.end(), p.begin(), p.end());
  const std::vector<uint64_t> order = gxsort_test::stable_order(f, all);
  Bytes want(all.size());
  for (size_t j = 0; j < order.size(); ++j)
    std::memcpy(&want[j * f.record_size], &all[order[j] * f.record_size], f.record_size);
  cudaStream_t stream;
  GXSORT_CUDA_CHECK(cudaStreamCreate(&stream));
  std::vector<std::unique_ptr<DeviceBytes>> d_parts;
  std::vector<SortedRecords> in, host_in;
  for (const Bytes& p : parts) {
    d_parts.push_back(std::make_unique<DeviceBytes>(on_device(p)));
    in.push_back({d_parts.back()->p, p.size() / f.record_size});
    CHECK(first_unsorted(in.back().data, in.back().count, f, device_options(given, stream)) == in.back().count);
    host_in.push_back({p.data(), p.size() / f.record_size});
  }
  Bytes past(out_offset + all.size() + 1, 0xAB);
  const DeviceBytes d_out = on_device(past);
  merge(in, f, static_cast<unsigned char*>(d_out.p) + out_offset, device_options(given, stream));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  const Bytes got = from_device<unsigned char>(d_out.p, past.size());
  CHECK(Bytes(got.begin() + long(out_offset), got.end() - 1) == want);
  CHECK(got.back() == 0xAB);
  CHECK(Bytes(got.begin(), got.begin() + long(out_offset)) == Bytes(out_offset, 0xAB));
  MemoryOptions cpu;
  cpu.device = Device::cpu;
  Bytes host_out(all.size());
  merge(host_in, f, host_out.data(), cpu);
  CHECK(host_out == want);
  cudaStreamDestroy(stream);
}

}  // namespace

TEST_CASE("memory api: device unique gives the host unique's groups") {
  GPU_TEST_REQUIRE_DEVICE();
  for (const Format& f : formats())
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1001), size_t(100003)})
      for (unsigned mod : {256u, 3u}) {
        CAPTURE(f.describe());
        CAPTURE(n);
        CAPTURE(mod);
        check_device_unique(f, random_records(f, n, n + mod, mod));
      }
}

TEST_CASE("memory api: device unique of float keys: NaNs and signed zeros as the host's") {
  GPU_TEST_REQUIRE_DEVICE();
  for (size_t n : {size_t(1), size_t(9), size_t(10007)}) {
    CAPTURE(n);
    check_device_unique(Format::typed(KeyType::f64), special_floats<double>(n));
    check_device_unique(Format::typed(KeyType::f32), special_floats<float>(n));
    // numpy's order: every NaN one group, -0.0 and +0.0 one group
    check_device_unique(with_float_order(Format::typed(KeyType::f64), FloatOrder::numpy), special_floats<double>(n));
    check_device_unique(with_float_order(Format::typed(KeyType::f32), FloatOrder::numpy), special_floats<float>(n));
  }
}

TEST_CASE("memory api: device unique with a workspace, and past the device budget") {
  GPU_TEST_REQUIRE_DEVICE();
  DeviceWorkspace ws;
  MemoryOptions o;
  o.workspace = &ws;
  for (const Format& f : formats()) {
    CAPTURE(f.describe());
    check_device_unique(f, random_records(f, 4099, 1, 3), o);
    check_device_calls(f, random_records(f, 4099, 2, 256), o);  // the workspace's next call
  }
  MemoryOptions small;
  small.device_memory = parse_size_option("8M", "device_memory");
  const Format f = Format::typed(KeyType::u64);
  check_device_unique(f, random_records(f, (size_t(6) << 20) / 8 + 3, 3, 5), small);
}

TEST_CASE("memory api: device merge of 1, 2 and 3 inputs is stable, as the host merge") {
  GPU_TEST_REQUIRE_DEVICE();
  const std::vector<std::vector<size_t>> shapes = {
      {0}, {1}, {1001}, {0, 0}, {1, 0}, {0, 1}, {1001, 517}, {3, 100003}, {1001, 0, 77}, {1, 1, 1}, {4099, 4097, 4101}};
  for (const Format& f : formats())
    for (const std::vector<size_t>& sizes : shapes)
      for (unsigned mod : {256u, 3u}) {
        CAPTURE(f.describe());
        CAPTURE(sizes.size());
        CAPTURE(sizes[0]);
        CAPTURE(mod);
        check_device_merge(f, sorted_parts(f, sizes, mod, sizes.size() * 100 + mod));
      }
  DeviceWorkspace ws;
  MemoryOptions o;
  o.workspace = &ws;
  check_device_merge(Format::typed(KeyType::u64), sorted_parts(Format::typed(KeyType::u64), {5000, 7001}, 3, 9), o);
  const Format numpy_f64 = with_float_order(Format::typed(KeyType::f64), FloatOrder::numpy);
  check_device_merge(numpy_f64, sorted_parts(numpy_f64, {1001, 2003}, 7, 5));
  // An output not aligned to a record's widest word (8 or 16 bytes): merged into the arena, then copied.
  for (const Format& f : formats())
    for (size_t offset : {size_t(1), size_t(4), size_t(8)}) {
      CAPTURE(f.describe());
      CAPTURE(offset);
      check_device_merge(f, sorted_parts(f, {1001, 517, 3}, 5, 21), {}, offset);
    }
  MemoryOptions small;  // 6.4 MB of inputs: past an 8 MiB device budget, merged through host memory
  small.device_memory = parse_size_option("8M", "device_memory");
  check_device_merge(Format::typed(KeyType::u64), sorted_parts(Format::typed(KeyType::u64), {400003, 400001}, 5, 11),
                     small);
}

TEST_CASE("memory api: a device merge refuses an unsorted input as the host merge does") {
  GPU_TEST_REQUIRE_DEVICE();
  const Format f = Format::typed(KeyType::u64);
  const std::vector<uint64_t> a = {1, 2, 3}, b = {1, 5, 4};
  const DeviceBytes d_a(24), d_b(24), d_out(48);
  GXSORT_CUDA_CHECK(cudaMemcpy(d_a.p, a.data(), 24, cudaMemcpyHostToDevice));
  GXSORT_CUDA_CHECK(cudaMemcpy(d_b.p, b.data(), 24, cudaMemcpyHostToDevice));
  MemoryOptions o;
  o.location = BufferLocation::device;
  CHECK_THROWS_WITH_AS(merge(d_a.p, 3, d_b.p, 3, f, d_out.p, o),
                       "merge: input 1 is not sorted: record 2 is smaller than the one before it", Error);
  CHECK(first_unsorted(d_a.p, 3, f, o) == 3);
  CHECK(first_unsorted(d_b.p, 3, f, o) == 2);
  CHECK(first_unsorted(d_b.p, 2, f, o) == 2);
  std::vector<uint64_t> host_a = a, out(6);
  CHECK_THROWS_AS(merge(host_a.data(), 3, d_b.p, 3, f, d_out.p, o), DeviceError);  // a host input
  CHECK_THROWS_AS(merge(d_a.p, 3, d_a.p, 3, f, out.data(), o), DeviceError);        // a host output
  uint64_t counts[3];
  CHECK_THROWS_AS(unique(d_a.p, 3, f, d_out.p, counts, nullptr, o), DeviceError);  // host counts
}

// A buffer several times the device budget, keys of at most 8 bytes: sorted on the device
// in chunks merged there. The host route is closed (its spill directory does not exist and
// its budget is far below the buffer), so only the device route can pass.
TEST_CASE("memory api: a device buffer past the device budget is sorted on the device in chunks") {
  GPU_TEST_REQUIRE_DEVICE();
  MemoryOptions o;
  // 20 MiB buffers: one sort of them needs twice that, while chunks fit (a chunked sort
  // keeps 16 MiB besides its chunks). Small: the host oracle takes most of the case's time.
  o.device_memory = parse_size_option("32M", "device_memory");
  o.memory = parse_size_option("8M", "memory");
  o.tmp_dirs = {"/nonexistent/gxsort-chunked-sort-test"};
  o.location = BufferLocation::device;
  for (const Format& f : formats()) {
    if (!f.key_fits_prefix()) continue;  // wider keys: through host memory (the case above)
    {
      const unsigned mod = f.flat() ? 256u : 3u;  // records: many ties across the chunks, payloads telling them apart
      CAPTURE(f.describe());
      const size_t n = (size_t(20) << 20) / f.record_size + 7;
      const Bytes data = random_records(f, n, 13 + mod, mod);
      const std::vector<uint64_t> order = gxsort_test::stable_order(f, data);
      Bytes want(data.size());
      for (size_t i = 0; i < n; ++i)
        std::memcpy(&want[i * f.record_size], &data[order[i] * f.record_size], f.record_size);
      const DeviceBytes d = on_device(data), copy = on_device(Bytes(data.size()));
      sort_copy(d.p, copy.p, n, f, o);
      CHECK(from_device<unsigned char>(copy.p, data.size()) == want);
      CHECK(from_device<unsigned char>(d.p, data.size()) == data);
      gxsort::sort(d.p, n, f, o);
      CHECK(from_device<unsigned char>(d.p, data.size()) == want);
    }
  }
}

// The calls run on the caller's thread: the device they make current for a buffer on
// another GPU is not left current (CuPy and torch allocate on the current device).
TEST_CASE("memory api: a call on another GPU's buffer leaves the caller's current device") {
  GPU_TEST_REQUIRE_DEVICE();
  int gpus = 0;
  GXSORT_CUDA_CHECK(cudaGetDeviceCount(&gpus));
  if (gpus < 2) {
    std::printf("SKIPPED (needs two GPUs, %d visible): the caller's current device\n", gpus);
    MESSAGE("SKIPPED: needs two GPUs");
    return;
  }
  const Format f = Format::typed(KeyType::u64);
  const Bytes data = random_records(f, 1000, 5, 256);
  GXSORT_CUDA_CHECK(cudaSetDevice(1));
  const DeviceBytes d = on_device(data), copy = on_device(data);
  GXSORT_CUDA_CHECK(cudaSetDevice(0));
  MemoryOptions o;
  o.location = BufferLocation::device;
  o.device_index = 1;
  sort_copy(d.p, copy.p, 1000, f, o);
  gxsort::sort(d.p, 1000, f, o);
  int current = -1;
  GXSORT_CUDA_CHECK(cudaGetDevice(&current));
  CHECK(current == 0);
  CHECK(from_device<unsigned char>(d.p, data.size()) == from_device<unsigned char>(copy.p, data.size()));
}
