// The device-resident sort (slices in, one sort, slices out) against the CPU backend,
// byte for byte, for every flat key type and for records, with slices that do not
// divide the input.
#include <cstring>
#include <random>
#include <vector>

#include "backend/backend.hpp"
#include "device/backend_select.hpp"
#include "backend/peer_sort.hpp"
#include "gpu_test_util.hpp"
#include "../common/composite_keys.hpp"

using namespace gxsort;

namespace {

// The oracle: the CPU backend's stable sort of `records`.
std::vector<unsigned char> cpu_sorted(Backend& cpu, const Format& f, std::vector<unsigned char> records) {
  const size_t n = records.size() / f.record_size;
  HostBuffer scratch = cpu.allocate_host(cpu.sort_scratch_bytes(f, n));
  cpu.sort_chunk(f, records.data(), n, scratch.data());
  return records;
}

// Loads `data` in slices, sorts, unloads in slices; the result against the CPU's sort.
void check_resident(Backend& gpu, Backend& cpu, const Format& f, const std::vector<unsigned char>& data, size_t slice) {
  const size_t n = data.size() / f.record_size;
  const auto want = cpu_sorted(cpu, f, data);
  auto sorter = gpu.begin_resident_sort(f, n);
  REQUIRE(sorter);
  HostBuffer slot = gpu.allocate_host(slice * f.record_size);
  for (size_t first = 0; first < n; first += slice) {
    size_t cnt = std::min(slice, n - first);
    std::memcpy(slot.data(), data.data() + first * f.record_size, cnt * f.record_size);
    sorter->load(slot.data(), first, cnt);
  }
  sorter->sort();
  std::vector<unsigned char> got(data.size());
  for (size_t first = 0; first < n; first += slice) {
    size_t cnt = std::min(slice, n - first);
    std::memset(slot.data(), 0xa5, cnt * f.record_size);  // poisoned: every byte must come from the device
    sorter->unload(slot.data(), first, cnt);
    std::memcpy(got.data() + first * f.record_size, slot.data(), cnt * f.record_size);
  }
  INFO(f.describe() << " n=" << n << " slice=" << slice);
  CHECK(got == want);
}

}  // namespace

TEST_CASE("device-resident flat sort equals the CPU sort for every key type and slice size") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(21);
  for (KeyType t : {KeyType::u32, KeyType::u64, KeyType::i32, KeyType::i64, KeyType::f32, KeyType::f64}) {
    for (bool rev : {false, true}) {
      Format f = Format::typed(t);
      f.reverse = rev;
      for (size_t n : {2, 3, 1000, 65537, 1000003}) {
        for (size_t slice : {1, 777, 65536}) {
          if (n / slice > 5000) continue;
          std::vector<unsigned char> data(n * f.record_size);
          for (auto& b : data) b = uint8_t(rng() % (n % 2 ? 256 : 3));  // some inputs: heavy duplicates
          check_resident(*gpu, *cpu, f, data, slice);
        }
      }
    }
  }
}

TEST_CASE("device-resident record sort equals the CPU sort: typed, byte and composite keys, gensort, odd sizes") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(22);
  std::vector<Format> formats{Format::gensort()};
  for (KeyType t : {KeyType::u32, KeyType::i64, KeyType::f32, KeyType::f64}) {
    Format f;
    f.record_size = 24; f.key_offset = 8; f.key_type = t; f.key_bytes = key_type_width(t);
    formats.push_back(f);
  }
  for (size_t kb : {size_t(3), size_t(9), size_t(20)}) {
    Format f;
    f.record_size = 7 + kb; f.key_offset = 5; f.key_type = KeyType::bytes; f.key_bytes = kb;
    formats.push_back(f);
  }
  for (const Format& f : gxsort_test::composite_formats())
    if (!f.flat()) formats.push_back(f);
  for (Format f : formats) {
    for (bool rev : {false, true}) {
      f.reverse = rev;
      for (size_t n : {2, 3, 1001, 100003}) {
        for (size_t slice : {1, 997, 65536}) {
          if (n / slice > 3000) continue;
          std::vector<unsigned char> data(n * f.record_size);
          // Key bytes from a small alphabet on some inputs (ties past the first word,
          // equal segments that skip a pass, all-equal keys: nothing moves).
          const unsigned alphabet = n % 2 ? 256 : n == 2 ? 1 : 2;
          for (auto& b : data) b = uint8_t(rng() % alphabet);
          for (size_t i = 0; i < n; ++i) data[i * f.record_size + (f.key_offset ? 0 : f.record_size - 1)] = uint8_t(i);
          check_resident(*gpu, *cpu, f, data, slice);
        }
      }
    }
  }
}

namespace {

// The distributed sort's device exchange in one process (the handle of this process's own
// sorted records is read in place; another process's goes through CUDA IPC, which the
// MPI runs of tools/gpu-check.sh cover): a slice sorted, shared, and its pieces loaded
// into a receiver out of order of position but in the order given, sorted again.
void check_receiver(Backend& gpu, Backend& cpu, const Format& f, const std::vector<unsigned char>& data) {
  const size_t R = f.record_size, n = data.size() / R;
  const auto sorted = cpu_sorted(cpu, f, data);
  auto first = gpu.begin_resident_sort(f, n);
  REQUIRE(first);
  auto* shared = dynamic_cast<PeerSharedSort*>(first.get());
  REQUIRE(shared);
  HostBuffer slot = gpu.allocate_host(data.size());
  std::memcpy(slot.data(), data.data(), data.size());
  first->load(slot.data(), 0, n);
  first->sort();
  const std::string handle = shared->share_sorted();
  // The receiver takes the last third, then the middle one.
  const size_t a = n / 3, b = n - n / 3, m = n - a;
  auto rec = shared->receiver(m);
  REQUIRE(rec);
  CHECK(rec->open(handle));
  CHECK_FALSE(rec->open("not a handle"));  // one that cannot be opened: the host exchange instead
  rec->load_from(handle, b, 0, n - b);
  rec->load_from(handle, a, n - b, b - a);
  first.reset();  // the slice's memory goes; the receiver keeps the backend
  rec->sort();
  std::vector<unsigned char> pieces(sorted.begin() + b * R, sorted.end());
  pieces.insert(pieces.end(), sorted.begin() + a * R, sorted.begin() + b * R);
  const auto want = cpu_sorted(cpu, f, pieces);
  std::memset(slot.data(), 0xa5, m * R);
  rec->unload(slot.data(), 0, m);
  INFO(f.describe() << " n=" << n);
  CHECK(std::memcmp(slot.data(), want.data(), m * R) == 0);
}

}  // namespace

TEST_CASE("the device exchange's receiver: pieces of a shared sorted slice, sorted again, equal the CPU sort") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(23);
  std::vector<Format> formats{Format::typed(KeyType::u32), Format::typed(KeyType::f64), Format::gensort()};
  for (const Format& f : gxsort_test::composite_formats()) formats.push_back(f);
  for (const Format& f : formats)
    for (size_t n : {size_t(3), size_t(1001), size_t(300007)}) {
      std::vector<unsigned char> data(n * f.record_size);
      for (auto& byte : data) byte = uint8_t(rng() % (n % 2 ? 256 : 3));  // 1001: heavy duplicates
      check_receiver(*gpu, *cpu, f, data);
    }
  // A receiver that the device cannot hold beside the sorted slice: none.
  auto small = make_backend(Device::cuda, 2, parse_size_option("64M", "--device-memory"));
  const Format u64 = Format::typed(KeyType::u64);
  const size_t n = small->max_chunk_records(u64);
  auto first = small->begin_resident_sort(u64, n);
  REQUIRE(first);
  std::vector<unsigned char> keys(n * 8);
  for (auto& byte : keys) byte = uint8_t(rng());
  HostBuffer slot = small->allocate_host(keys.size());
  std::memcpy(slot.data(), keys.data(), keys.size());
  first->load(slot.data(), 0, n);
  first->sort();
  CHECK(dynamic_cast<PeerSharedSort&>(*first).receiver(n) == nullptr);
  CHECK(dynamic_cast<PeerSharedSort&>(*first).receiver(1) == nullptr);
}

TEST_CASE("the arena cut to the device exchange's need: a slice's sort, then a receiver of 1/8 more beside it") {
  GPU_TEST_REQUIRE_DEVICE();
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(29);
  for (const Format& f : {Format::typed(KeyType::u64), Format::gensort()}) {
    const size_t n = 200003, receivable = n + n / 8 + 1;
    auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
    CHECK_FALSE(gpu->fit_device_budget(gpu->device_budget()));  // never kept equal or grown
    const uint64_t need = gpu->sort_device_bytes(f, n) + gpu->sort_device_bytes(f, receivable) + (uint64_t(16) << 20);
    REQUIRE(gpu->fit_device_budget(need));
    CHECK(gpu->device_budget() <= need);
    CHECK(gpu->device_budget() + 256 > need);
    std::vector<unsigned char> data(n * f.record_size);
    for (auto& byte : data) byte = uint8_t(rng());
    check_receiver(*gpu, *cpu, f, data);  // sorts right in the new arena
    auto first = gpu->begin_resident_sort(f, n);
    REQUIRE(first);
    CHECK_FALSE(gpu->fit_device_budget(need / 2));  // a sort holds the arena
    HostBuffer slot = gpu->allocate_host(data.size());
    std::memcpy(slot.data(), data.data(), data.size());
    first->load(slot.data(), 0, n);
    first->sort();
    auto& shared = dynamic_cast<PeerSharedSort&>(*first);
    CHECK(shared.receiver(size_t(gpu->device_budget() / f.record_size)) == nullptr);  // the arena's bytes in records
    CHECK(shared.receiver(receivable) != nullptr);
  }
}

TEST_CASE("a sort of fewer than 2 records takes no resident path") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  CHECK(gpu->begin_resident_sort(Format::typed(KeyType::u64), 1) == nullptr);
  CHECK(gpu->begin_resident_sort(Format::gensort(), 1) == nullptr);
}

TEST_CASE("check on the GPU equals check on the CPU: violations, duplicates, checksum") {
  GPU_TEST_REQUIRE_DEVICE();
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  std::mt19937_64 rng(5);
  Format rec;
  rec.record_size = 13; rec.key_offset = 1; rec.key_type = KeyType::bytes; rec.key_bytes = 11;
  for (Format f : {Format::typed(KeyType::f64), Format::typed(KeyType::i32), Format::gensort(), rec}) {
    for (bool rev : {false, true}) {
      f.reverse = rev;
      for (size_t n : {0, 1, 2, 1000, 100003}) {
        for (int shape = 0; shape < 3; ++shape) {
          std::vector<unsigned char> data(n * f.record_size);
          for (auto& b : data) b = uint8_t(rng() % 2);  // duplicates and ties past the prefix
          if (shape > 0) {  // sorted, then (shape 2) one record out of place
            auto cpu = make_cpu_backend(1);
            HostBuffer scratch = cpu->allocate_host(cpu->sort_scratch_bytes(f, n));
            cpu->sort_chunk(f, data.data(), n, scratch.data());
            if (shape == 2 && n > 10) std::swap_ranges(data.begin(), data.begin() + f.record_size, data.end() - f.record_size);
          }
          CheckPartial want = check_chunk_cpu(f, data.data(), n, 77);
          HostBuffer host = gpu->allocate_host(std::max<size_t>(data.size(), 1));
          std::memcpy(host.data(), data.data(), data.size());
          CheckPartial got = gpu->check_chunk(f, host.data(), n, 77);
          INFO(f.describe() << " n=" << n << " shape=" << shape);
          CHECK(got.first_violation == want.first_violation);
          CHECK(got.duplicates == want.duplicates);
          CHECK(got.checksum == want.checksum);
        }
      }
    }
  }
}

TEST_CASE("fit_device_to_sorts: the arena fitted to one sort of n records holds that sort (the in-memory sort's fit)") {
  GPU_TEST_REQUIRE_DEVICE();
  auto cpu = make_cpu_backend(2);
  std::mt19937_64 rng(31);
  std::vector<Format> formats{Format::typed(KeyType::u32), Format::typed(KeyType::f64), Format::gensort()};
  for (const Format& f : gxsort_test::composite_formats()) formats.push_back(f);
  for (const Format& f : formats)
    for (size_t n : {size_t(2), size_t(1001), size_t(300007)}) {
      auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
      REQUIRE(fit_device_to_sorts(*gpu, f, n));
      CHECK(gpu->device_budget() <= gpu->sort_device_bytes(f, n) + (uint64_t(16) << 20));
      CHECK(gpu->max_chunk_records(f) >= n);
      std::vector<unsigned char> data(n * f.record_size);
      for (auto& byte : data) byte = uint8_t(rng() % (n % 2 ? 256 : 3));
      check_resident(*gpu, *cpu, f, data, 4099);  // sorts right in the fitted arena
    }
  auto gpu = make_backend(Device::cuda, 2, parse_size_option("1G", "--device-memory"));
  CHECK_FALSE(fit_device_to_sorts(*gpu, Format::typed(KeyType::u64), 1));  // fewer than 2 records: kept
  CHECK_FALSE(fit_device_to_sorts(*gpu, Format::typed(KeyType::u64), gpu->max_chunk_records(Format::typed(KeyType::u64)) + 1));
}
