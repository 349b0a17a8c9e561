// plan_command's typed report (gxsort/plan_report.hpp) of small files: the fields the
// CLI renders (tests/cli covers the renderings).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"

using namespace gxsort;

namespace {

using gxsort_test::Bytes;
using gxsort_test::TempDir;
using gxsort_test::cpu_opts;
using gxsort_test::write_file;

// `n` u64 keys, ascending when `sorted`, else descending.
std::string u64_file(const TempDir& d, const std::string& name, uint64_t n, bool sorted) {
  Bytes b(n * 8);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t v = sorted ? i : n - i;
    std::memcpy(b.data() + i * 8, &v, 8);
  }
  write_file(d.file(name), b);
  return d.file(name);
}

EngineOptions u64_opts(const TempDir& d, const std::string& memory = "") {
  EngineOptions o = cpu_opts(Format::typed(KeyType::u64), memory);
  o.tmp_dirs = {d.path};
  return o;
}

}  // namespace

TEST_CASE("plan report: a sort in memory") {
  TempDir d;
  const std::string in = u64_file(d, "in.bin", 10000, false);
  const PlanReport r = plan_command(CommandKind::sort, {in}, "", u64_opts(d));
  CHECK(r.command == CommandKind::sort);
  CHECK(r.input == in);
  CHECK_FALSE(r.backend.empty());
  CHECK_FALSE(r.stream);
  CHECK(r.records == 10000);
  CHECK(r.record_size == 8);
  CHECK(r.input_bytes == 80000);
  CHECK(r.sort.mode == PlanMode::in_memory);
  CHECK(r.sort.runs == 1);
  CHECK(r.sort.levels.empty());
  CHECK(r.temp_dirs.empty());
  CHECK_FALSE(r.resume);
  CHECK_FALSE(r.distributed);
}

TEST_CASE("plan report: an external sort, its runs and merge levels, and --resume with no killed run") {
  TempDir d;
  const std::string in = u64_file(d, "in.bin", 200000, false);
  EngineOptions o = u64_opts(d, "1M");
  o.ooc = OocMethod::merge;
  o.fan_in = 4;
  o.resume = true;
  const PlanReport r = plan_command(CommandKind::sort, {in}, d.file("out.bin"), o);
  CHECK(r.sort.mode == PlanMode::external);
  CHECK(r.memory == 1 << 20);
  REQUIRE(r.sort.run_records > 0);
  CHECK(r.sort.runs == (200000 + r.sort.run_records - 1) / r.sort.run_records);
  CHECK(r.sort.run_sizes.size() == r.sort.runs);
  CHECK(r.sort.fan_in == 4);
  REQUIRE(r.sort.runs > 4);
  REQUIRE(r.sort.levels.size() >= 2);
  size_t merged = 0;
  for (size_t g : r.sort.levels.front().groups) merged += g;
  CHECK(merged == r.sort.runs);
  CHECK(r.sort.levels.back().final);
  CHECK(r.temp_dirs == std::vector<std::string>{d.path});
  REQUIRE(r.resume);
  REQUIRE(r.resume->pieces);
  CHECK(r.resume->pieces->resumable);
  CHECK(r.resume->pieces->job_dir.empty());  // nothing killed: it starts from the beginning
}

TEST_CASE("plan report: merge's tree over its inputs, check's chunks, dedupe's strategy") {
  TempDir d;
  const std::string a = u64_file(d, "a.bin", 20000, true);
  EngineOptions o = u64_opts(d, "1M");
  o.fan_in = 2;
  const PlanReport m = plan_command(CommandKind::merge, {a, a, a}, d.file("m.bin"), o);
  CHECK(m.command == CommandKind::merge);
  CHECK(m.records == 60000);
  CHECK(m.sort.runs == 3);
  REQUIRE(m.sort.levels.size() == 2);
  CHECK(m.sort.levels[0].groups == std::vector<size_t>{2, 1});
  CHECK(m.sort.levels[1].groups == std::vector<size_t>{2});
  CHECK(m.sort.levels[1].final);

  const PlanReport c = plan_command(CommandKind::check, {a}, "", u64_opts(d, "1M"));
  CHECK(c.command == CommandKind::check);
  CHECK(c.threads == 2);
  CHECK(c.chunks.slots == 3);
  CHECK(c.chunks.chunk_bytes * c.chunks.slots <= c.memory);

  EngineOptions dd = u64_opts(d);
  dd.dedupe.count = true;
  const PlanReport u = plan_command(CommandKind::dedupe, {a}, d.file("u.bin"), dd);
  CHECK(u.command == CommandKind::dedupe);
  CHECK(u.dedupe.strategy == DedupePath::sort);
  CHECK_FALSE(u.dedupe.keep_first);  // --count: sort, then the group pass
  CHECK(u.dedupe.group.chunk_records > 0);
  CHECK(u.sort.mode == PlanMode::in_memory);
}
