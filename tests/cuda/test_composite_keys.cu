// Composite keys on the GPU: sort_chunk and check of records whose key is several
// fields (packing into 64 bits, 128 bits and more; descending fields,
// --reverse, big-endian forms, bytes:N, f32/f64 with NaNs and signed zeros, in totalOrder
// and in numpy's order) give the bytes the CPU backend gives, and the order of an oracle that decodes each field itself.
// (The windowed merge of composite keys: test_window_merge.cu.)
#include <cstring>
#include <random>
#include <vector>

#include "../common/composite_keys.hpp"
#include "device/backend_select.hpp"
#include "gpu_test_util.hpp"
#include "kernels/check_chunk.hpp"

using namespace gxsort;
using gxsort_test::composite_formats;
using gxsort_test::composite_input;
using gxsort_test::oracle_sorted;

namespace {

using Bytes = std::vector<unsigned char>;

// composite_formats() and their float fields in numpy's order.
std::vector<Format> every_format() {
  std::vector<Format> fs = composite_formats();
  for (const Format& f : gxsort_test::numpy_float_formats()) fs.push_back(f);
  return fs;
}

Bytes sorted_by(Backend& b, const Format& f, Bytes data) {
  const size_t n = data.size() / f.record_size;
  HostBuffer scratch = b.allocate_host(std::max<size_t>(1, b.sort_scratch_bytes(f, n)));
  b.sort_chunk(f, data.data(), n, scratch.data());
  return data;
}

// Every format at sizes up to `largest`, each key field drawing any value, one of two and
// one only (composite_input: leading fields tie, later ones or stability decide).
void check_sorts(size_t largest) {
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(21);
  for (const Format& f : every_format())
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(65537), size_t(1000003)})
      for (uint64_t distinct : {uint64_t(0), uint64_t(2), uint64_t(1)}) {
        if (n > largest || (n == 1000003 && distinct == 1)) continue;
        INFO(f.describe() << " n=" << n << " distinct=" << distinct);
        const Bytes in = composite_input(f, n, distinct, rng);
        const Bytes want = sorted_by(*cpu, f, in);
        CHECK(sorted_by(*gpu, f, in) == want);
        if (n <= 65537) CHECK(want == oracle_sorted(f, in.data(), n));
      }
}

// Every format, n records whose key fields draw any value and one of two, unsorted and
// sorted.
void check_checks(size_t n) {
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  std::mt19937_64 rng(22);
  for (const Format& f : every_format())
    for (uint64_t distinct : {uint64_t(0), uint64_t(2)}) {
      INFO(f.describe() << " distinct=" << distinct);
      const Bytes in = composite_input(f, n, distinct, rng);
      const Bytes sorted = oracle_sorted(f, in.data(), n);
      for (const Bytes* b : {&in, &sorted}) {
        const CheckPartial want = check_chunk_cpu(f, b->data(), n, 5);
        const CheckPartial got = gpu->check_chunk(f, b->data(), n, 5);
        CHECK(got.first_violation == want.first_violation);
        CHECK(got.duplicates == want.duplicates);
        CHECK(got.checksum == want.checksum);
      }
    }
}

}  // namespace

// The default cases stop at 65537 records (sort) and 30011 (check); the long ones (run on
// request: gxsort_cuda_tests --long) add a million records and check 100003.
TEST_CASE("GPU sort_chunk of composite keys: the CPU's bytes and the fields' stable order") {
  GPU_TEST_REQUIRE_DEVICE();
  check_sorts(65537);
}

TEST_CASE("GPU sort_chunk of composite keys, up to a million records (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_sorts(1000003);
}

TEST_CASE("GPU check of composite keys: violations and duplicates as on the CPU") {
  GPU_TEST_REQUIRE_DEVICE();
  check_checks(30011);
}

TEST_CASE("GPU check of composite keys, 100003 records (long)" * doctest::test_suite("long")) {
  GPU_TEST_REQUIRE_DEVICE();
  check_checks(100003);
}
