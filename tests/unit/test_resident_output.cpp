// unload_in_parts (engine/resident_output.hpp): a device-resident sort's records copied to
// the mapped output on many threads, each through its own piece of the staging. The
// device is played by a host array; what lands in the file is compared byte for byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/test_files.hpp"
#include "engine/resident_output.hpp"
#include "io/file.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

namespace {

// "Sorted" records held in host memory. Each unload must land wholly in one staging
// buffer and never in a piece another unload is filling at the same time.
class HostResident final : public DeviceResidentSort {
 public:
  HostResident(Bytes records, size_t record_size, std::vector<std::pair<unsigned char*, size_t>> staging)
      : records_(std::move(records)), rs_(record_size), staging_(std::move(staging)) {}
  void load(const unsigned char*, size_t, size_t) override {}
  void sort() override {}
  void unload(unsigned char* host, size_t first, size_t count) override {
    const size_t n = count * rs_;
    REQUIRE((first + count) * rs_ <= records_.size());
    const bool inside = std::any_of(staging_.begin(), staging_.end(), [&](const auto& s) {
      return host >= s.first && host + n <= s.first + s.second;
    });
    {
      std::lock_guard<std::mutex> l(m_);
      if (!inside) ++outside_;
      for (const auto& [b, e] : in_flight_)
        if (host < e && b < host + n) ++overlaps_;
      in_flight_.emplace_back(host, host + n);
      ++calls_;
      firsts_.push_back(first);
    }
    std::memcpy(host, records_.data() + first * rs_, n);
    std::lock_guard<std::mutex> l(m_);
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), std::make_pair(host, host + n)));
  }
  int outside_ = 0, overlaps_ = 0, calls_ = 0;
  std::vector<size_t> firsts_;  // the first record of every unload

 private:
  Bytes records_;
  size_t rs_;
  std::vector<std::pair<unsigned char*, size_t>> staging_;
  std::mutex m_;
  std::vector<std::pair<unsigned char*, unsigned char*>> in_flight_;
};

struct Outcome {
  Bytes file;
  int outside, overlaps, calls;
  std::vector<size_t> firsts;
  uint64_t last_done = 0;
  bool monotonic = true;
};

Outcome unload(const Bytes& records, size_t rs, size_t buffers, size_t buffer_bytes, unsigned threads) {
  TempDir dir;
  std::vector<Bytes> store(buffers, Bytes(buffer_bytes));
  std::vector<unsigned char*> staging;
  std::vector<std::pair<unsigned char*, size_t>> spans;
  for (auto& b : store) {
    staging.push_back(b.data());
    spans.emplace_back(b.data(), b.size());
  }
  HostResident resident(records, rs, spans);
  Outcome o{};
  std::mutex m;
  ProgressFn progress = [&](const Progress& p) {
    std::lock_guard<std::mutex> l(m);
    if (p.done < o.last_done || p.total != records.size() || std::string(p.phase) != "write") o.monotonic = false;
    o.last_done = p.done;
  };
  {
    io::File out = io::File::create_new(dir.file("out"));
    out.start_write_behind();
    const uint64_t n = records.size() / rs;
    if (n) {
      io::MappedRange dst(out, 0, records.size(), threads);
      unload_in_parts(resident, rs, n, dst, staging, buffer_bytes, threads, progress);
    }
  }
  o.file = gxsort_test::read_file(dir.file("out"));
  o.outside = resident.outside_;
  o.overlaps = resident.overlaps_;
  o.calls = resident.calls_;
  o.firsts = resident.firsts_;
  return o;
}

Bytes random_bytes(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<unsigned char>(rng());
  return b;
}

}  // namespace

TEST_CASE("unload_in_parts writes every record where it belongs, each part through its own piece") {
  struct Case {
    size_t rs, n, buffers, buffer_bytes;
    unsigned threads;
  };
  const Case cases[] = {
      {8, 1, 4, 8, 16},                      // one record, a buffer of one record
      {8, 2, 1, 64 << 20, 16},               // two records, one part
      {8, 1048577, 4, 1 << 20, 3},           // 8 MiB + 8 bytes: 2 parts, pieces of 1 MiB
      {8, 1048577, 1, 1 << 20, 2},           // both parts' pieces cut from one buffer
      {100, 200003, 3, 1 << 20, 4},          // 20 MB of 100-byte records: 4 parts, 2 pieces a buffer
      {100, 200003, 2, 150, 4},              // a buffer of 1.5 records: one part, one record a piece
      {16, 1572865, 4, 6 << 20, 7},          // 24 MiB + 16 bytes of 16-byte records: 6 parts
      {24, 350000, 5, 333333, 16},           // sizes that divide nothing: 2 parts
  };
  for (const Case& c : cases) {
    CAPTURE(c.rs);
    CAPTURE(c.n);
    CAPTURE(c.buffers);
    CAPTURE(c.buffer_bytes);
    CAPTURE(c.threads);
    const Bytes records = random_bytes(c.rs * c.n, unsigned(c.n));
    const Outcome o = unload(records, c.rs, c.buffers, c.buffer_bytes, c.threads);
    CHECK(o.file == records);
    CHECK(o.outside == 0);
    CHECK(o.overlaps == 0);
    CHECK(o.calls >= 1);
    CHECK(o.monotonic);
    CHECK(o.last_done == records.size());
  }
}

TEST_CASE("unload_in_parts splits an output of 8 MiB or more over its threads") {
  // 8 MiB + 8 bytes over 3 threads: 2 parts of 524289 and 524288 records, pieces of 1 MiB
  // (131072 records): the second part's first unload starts at record 524289, where one
  // part's pieces (multiples of 131072) never start.
  const Bytes records = random_bytes(8 * 1048577, 5);
  const Outcome o = unload(records, 8, 4, 1 << 20, 3);
  CHECK(o.file == records);
  CHECK(o.calls == 9);
  CHECK(std::count(o.firsts.begin(), o.firsts.end(), size_t(524289)) == 1);
  // Below 8 MiB: one part, in order.
  const Bytes small = random_bytes(8 * 1048575, 6);
  const Outcome one = unload(small, 8, 4, 1 << 20, 3);
  CHECK(one.file == small);
  CHECK(std::is_sorted(one.firsts.begin(), one.firsts.end()));
  CHECK(one.firsts == std::vector<size_t>{0, 131072, 262144, 393216, 524288, 655360, 786432, 917504});
}

TEST_CASE("unload_in_parts refuses staging that holds no record") {
  TempDir dir;
  const Bytes records = random_bytes(200, 1);
  HostResident resident(records, 100, {});
  io::File out = io::File::create_new(dir.file("out"));
  io::MappedRange dst(out, 0, records.size(), 1);
  Bytes small(99);
  std::vector<unsigned char*> staging{small.data()};
  CHECK_THROWS_AS(unload_in_parts(resident, 100, 2, dst, staging, small.size(), 2, nullptr), std::logic_error);
  CHECK_THROWS_AS(unload_in_parts(resident, 100, 2, dst, {}, 100, 2, nullptr), std::logic_error);
}
