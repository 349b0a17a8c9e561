// gxsort check across chunk boundaries (chunks are 64 MiB): a violation and a duplicate
// exactly where two chunks meet, and the checksum's order independence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"

using namespace gxsort;

namespace {
std::string write_temp(const std::vector<uint64_t>& v) {
  char p[] = "/tmp/gxsort-check-XXXXXX";
  int fd = mkstemp(p);
  close(fd);
  unlink(p);
  io::File f = io::File::create_new(p);
  f.write_at(v.data(), v.size() * 8, 0);
  return p;
}
}  // namespace

TEST_CASE("check finds a violation and a duplicate where two chunks meet") {
  const size_t boundary = (size_t(64) << 20) / 8;  // first record of the second chunk
  std::vector<uint64_t> v(boundary + 1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 2 * i;
  EngineOptions opt;
  opt.device = Device::cpu;
  opt.format = Format::typed(KeyType::u64);

  v[boundary] = v[boundary - 1];  // duplicate across the boundary
  std::string a = write_temp(v);
  CheckResult r = check_file(a, opt);
  CHECK(r.sorted);
  CHECK(r.duplicates == 1);
  CHECK(r.records == v.size());

  v[boundary] = v[boundary - 1] - 1;  // violation at the boundary
  std::string b = write_temp(v);
  r = check_file(b, opt);
  CHECK_FALSE(r.sorted);
  CHECK(r.first_violation == boundary);

  std::reverse(v.begin(), v.end());
  std::string c = write_temp(v);
  CHECK(check_file(c, opt).checksum == r.checksum);
  for (auto& p : {a, b, c}) unlink(p.c_str());
}
