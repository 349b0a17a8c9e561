// GPU reductions: flat == nested == cub == CPU, bit for bit, for every key type,
// flat key files and records, sizes 0, 1, around the block size and a few million.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "reduce/reduce_kernels.cuh"

using namespace gxsort;

namespace {

const KeyType kTypes[] = {KeyType::u32, KeyType::i32, KeyType::f32,
                          KeyType::u64, KeyType::i64, KeyType::f64};
const ReduceAlgo kAlgos[] = {ReduceAlgo::flat, ReduceAlgo::nested, ReduceAlgo::cub};
const char* kOps[] = {"sum", "min", "max", "count", "mean", "minmax"};

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { GXSORT_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1)); }
  ~DeviceBuffer() { cudaFree(p); }
  unsigned char* get() const { return static_cast<unsigned char*>(p); }
};

Format record_format(KeyType t, size_t record_size, size_t key_offset) {
  Format f = Format::typed(t);
  f.record_size = record_size;
  f.key_offset = key_offset;
  return f;
}

// Keys: raw random bits (every NaN and infinity pattern for floats) or, with
// `moderate`, finite floats of a moderate range; payload bytes random.
std::vector<unsigned char> make_records(const Format& f, size_t n, bool moderate, std::mt19937_64& rng) {
  std::vector<unsigned char> buf(n * f.record_size);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  const size_t w = key_type_width(f.key_type);
  const bool fl = f.key_type == KeyType::f32 || f.key_type == KeyType::f64;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = rng();
    if (fl && moderate) {
      const double d = std::ldexp(double(int64_t(rng() >> 11)) / 4503599627370496.0 - 0.5, int(rng() % 50) - 25);
      if (w == 4) { float v = float(d); uint32_t b; std::memcpy(&b, &v, 4); x = b; }
      else std::memcpy(&x, &d, 8);
    }
    std::memcpy(&buf[i * f.record_size + f.key_offset], &x, w);
  }
  return buf;
}

ReducePartial gpu_reduce(ReduceAlgo algo, const Format& f, const unsigned char* d, size_t n, uint64_t first) {
  const size_t tb = gxsort::cuda::reduce_gpu_temp_bytes(algo, f, n);
  DeviceBuffer temp(tb);
  return gxsort::cuda::reduce_chunk_gpu(algo, f, d, n, first, temp.get(), tb, 0);
}

// Every algorithm on the device copy of buf equals the CPU, partial and values.
void check_all_algos(const Format& f, const std::vector<unsigned char>& buf, size_t n) {
  const ReducePartial cpu = reduce_chunk_cpu(f, buf.data(), n, 0);
  DeviceBuffer d(buf.size());
  GXSORT_CUDA_CHECK(cudaMemcpy(d.get(), buf.data(), buf.size(), cudaMemcpyHostToDevice));
  for (ReduceAlgo algo : kAlgos) {
    CAPTURE(gxsort::cuda::reduce_algo_name(algo));
    const ReducePartial g = gpu_reduce(algo, f, d.get(), n, 0);
    CHECK(g == cpu);
    for (const char* op : kOps) CHECK(reduce_values(f, parse_choice(std::string(op), "--op", kReduceOps), g) == reduce_values(f, parse_choice(std::string(op), "--op", kReduceOps), cpu));
  }
}

}  // namespace

TEST_CASE("reduce gpu: every type, layout, size and algorithm equals the CPU") {
  GPU_TEST_REQUIRE_DEVICE();
  std::mt19937_64 rng(11);
  const size_t sizes[] = {0, 1, 2, 4095, 4096, 4097, 100003, (size_t(3) << 20) + 17};
  for (KeyType t : kTypes) {
    const Format layouts[] = {Format::typed(t), record_format(t, 16, 8), record_format(t, 13, 3)};
    for (const Format& f : layouts) {
      for (size_t n : sizes) {
        if (n > 200000 && f.record_size == 16) continue;  // the big size: flat keys and odd records
        for (bool moderate : {false, true}) {
          if (moderate && !(t == KeyType::f32 || t == KeyType::f64)) continue;
          CAPTURE(int(t));
          CAPTURE(f.record_size);
          CAPTURE(n);
          CAPTURE(moderate);
          check_all_algos(f, make_records(f, n, moderate, rng), n);
        }
      }
    }
  }
}

TEST_CASE("reduce gpu: chunked on the device equals the CPU on the whole") {
  GPU_TEST_REQUIRE_DEVICE();
  std::mt19937_64 rng(12);
  for (KeyType t : kTypes) {
    const Format f = Format::typed(t);
    const size_t n = 57 * kReduceBlock + 999;
    const auto buf = make_records(f, n, true, rng);
    const ReducePartial cpu = reduce_chunk_cpu(f, buf.data(), n, 0);
    DeviceBuffer d(buf.size());
    GXSORT_CUDA_CHECK(cudaMemcpy(d.get(), buf.data(), buf.size(), cudaMemcpyHostToDevice));
    for (ReduceAlgo algo : kAlgos) {
      for (int trial = 0; trial < 3; ++trial) {
        ReducePartial total;
        size_t at = 0;
        while (at < n) {
          size_t s = kReduceBlock * (1 + rng() % 9);
          if (at + s > n) s = n - at;
          combine(total, gpu_reduce(algo, f, d.get() + at * f.record_size, s, at));
          at += s;
        }
        CHECK(total == cpu);
      }
    }
  }
}

TEST_CASE("reduce gpu: keys not 16-byte aligned take the scalar path, same result") {
  GPU_TEST_REQUIRE_DEVICE();
  std::mt19937_64 rng(13);
  for (KeyType t : kTypes) {
    const Format f = Format::typed(t);
    const size_t n = 9 * kReduceBlock + 77;
    const auto buf = make_records(f, n, true, rng);
    const ReducePartial cpu = reduce_chunk_cpu(f, buf.data(), n, 0);
    DeviceBuffer d(buf.size() + 16);
    const size_t shift = key_type_width(t);  // aligned to the key, not to 16 bytes
    GXSORT_CUDA_CHECK(cudaMemcpy(d.get() + shift, buf.data(), buf.size(), cudaMemcpyHostToDevice));
    for (ReduceAlgo algo : kAlgos) CHECK(gpu_reduce(algo, f, d.get() + shift, n, 0) == cpu);
  }
}

TEST_CASE("reduce gpu: NaN, infinities and signed zeros in chosen blocks") {
  GPU_TEST_REQUIRE_DEVICE();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  struct Case { std::vector<std::pair<size_t, double>> set; };
  const Case cases[] = {
      {{{5, inf}}},
      {{{5, -inf}, {9000, 1e300}}},
      {{{5, inf}, {3 * kReduceBlock + 1, -inf}}},
      {{{4097, nan}}},
      {{{4097, -nan}, {1, -0.0}}},
      {{{0, 1e308}, {4096, 1e308}, {8192, -1e308}}},
  };
  for (KeyType t : {KeyType::f32, KeyType::f64}) {
    const Format f = Format::typed(t);
    const size_t n = 4 * kReduceBlock + 3;
    for (const Case& c : cases) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = double(int(i % 13) - 6) * 0.25;
      for (auto& [i, x] : c.set) v[i] = x;
      std::vector<unsigned char> buf(n * f.record_size);
      for (size_t i = 0; i < n; ++i) {
        if (t == KeyType::f32) { float x = float(v[i]); std::memcpy(&buf[4 * i], &x, 4); }
        else std::memcpy(&buf[8 * i], &v[i], 8);
      }
      check_all_algos(f, buf, n);
    }
  }
}

TEST_CASE("reduce gpu: byte keys and unknown algorithms are usage errors") {
  GPU_TEST_REQUIRE_DEVICE();
  CHECK_THROWS_AS(gxsort::cuda::reduce_gpu_temp_bytes(ReduceAlgo::flat, Format::gensort(), 10), Error);
  CHECK_THROWS_AS(parse_choice(std::string("tree"), "--algo", kReduceAlgos), Error);
  CHECK(parse_choice(std::string("nested"), "--algo", kReduceAlgos) == ReduceAlgo::nested);
}
