#include <doctest/doctest.h>

#include <string>

#include "gxsort/error.hpp"
#include "plan/plan.hpp"
#include "platform/sizes.hpp"

using namespace gxsort;

TEST_CASE("parse_size_option: units, percent and errors") {
  auto size = [](const char* t, uint64_t base = 0) { return parse_size_option(t, "--memory").of(base); };
  CHECK(size("123") == 123);
  CHECK(size("64K") == 65536);
  CHECK(size("1.5G") == 1610612736ULL);
  CHECK(size("2TiB") == 2199023255552ULL);
  CHECK(size("4mb") == 4194304);
  CHECK(size("25%", 1000) == 250);
  CHECK(parse_size_option("25%", "--memory").given);
  CHECK_FALSE(SizeOption{}.given);
  for (const char* bad : {"", "12Q", "-1G", "120%", "0%", "1e9", " 4G", "1.2.3G"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_size_option(bad, "--memory"), Error);
  }
  CHECK(format_bytes(1536) == "1.5 KiB");
}

TEST_CASE("plan: input that fits is one in-memory chunk") {
  PlanInput in;
  in.input_bytes = 8 << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 64 << 20;
  Plan p = make_plan(in);
  CHECK(p.mode == PlanMode::in_memory);
  CHECK(p.runs == 1);
  CHECK(p.temp_bytes == 0);
  CHECK(p.levels.empty());
  in.input_bytes = 0;
  CHECK(make_plan(in).runs == 0);
}

TEST_CASE("plan: an input whose sizes would wrap 64 bits is refused (usage), naming the input") {
  PlanInput in;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = uint64_t(1) << 30;
  in.input_label = "huge.bin";
  const uint64_t limit = UINT64_MAX / 4 / 16;  // records: the most the check lets through
  in.input_bytes = (limit + 1) * 8;
  try {
    make_plan(in);
    FAIL("planned an input of more than 2^64 bytes of sort memory");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("huge.bin: an input of") == 0);
  }
  in.input_bytes = UINT64_MAX;  // 2^64 - 1 bytes: n * record_size must not wrap either
  CHECK_THROWS_AS(make_plan(in), Error);
}

TEST_CASE("plan: runs kept in memory when the data fits but its sort scratch does not") {
  PlanInput in;
  in.input_bytes = 40 << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 64 << 20;
  Plan p = make_plan(in);
  CHECK(p.mode == PlanMode::runs_in_memory);
  CHECK(p.runs >= 2);
  CHECK(p.levels.size() == 1);
  CHECK(p.temp_bytes == 0);
  uint64_t sum = 0;
  for (auto s : p.run_sizes) sum += s;
  CHECK(sum == p.records);
}

TEST_CASE("plan: external sort with a merge tree under a small fan-in") {
  PlanInput in;
  in.input_bytes = uint64_t(100) << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 4 << 20;
  in.fan_in = 2;
  Plan p = make_plan(in);
  CHECK(p.mode == PlanMode::external);
  // run_records * (16 + 2*8) <= memory
  CHECK(p.run_records * 32 <= in.memory);
  CHECK(p.runs == (p.records + p.run_records - 1) / p.run_records);
  CHECK(p.fan_in == 2);
  size_t width = p.runs;
  for (const auto& lv : p.levels) {
    size_t inputs = 0;
    for (size_t g : lv.groups) { CHECK(g <= 2); inputs += g; }
    CHECK(inputs == width);
    width = lv.groups.size();
  }
  CHECK(p.levels.back().final);
  CHECK(p.levels.back().groups.size() == 1);
  CHECK(p.temp_bytes >= in.input_bytes);
  CHECK(p.temp_bytes <= 2 * in.input_bytes);
  uint64_t written = in.input_bytes;  // the runs
  for (const auto& lv : p.levels) written += lv.bytes_written;
  CHECK(p.bytes_written == written);
  CHECK(p.levels.back().bytes_written == in.input_bytes);
}

TEST_CASE("merge_tree: levels, carried runs and bytes") {
  uint64_t peak = 0;
  auto lv = merge_tree({10, 10, 10, 10, 10}, 4, 2, &peak);
  REQUIRE(lv.size() == 3);
  CHECK(lv[0].groups == std::vector<size_t>{2, 2, 1});
  CHECK(lv[0].bytes_read == 160);  // the carried run is not copied
  CHECK(lv[1].groups == std::vector<size_t>{2, 1});
  CHECK(lv[2].final);
  CHECK(lv[2].groups == std::vector<size_t>{2});
  CHECK(lv[2].bytes_written == 200);
  CHECK(peak == 200 + 160);
  auto one = merge_tree({7}, 4, 8, nullptr);
  REQUIRE(one.size() == 1);
  CHECK(one[0].final);
}

TEST_CASE("plan: memory below the minimum and fan-in clamping") {
  PlanInput in;
  in.input_bytes = 64 << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 512 << 10;
  try {
    make_plan(in);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("minimum of 1.0 MiB") != std::string::npos);
  }
  in.memory = 1 << 20;
  in.fan_in = 1000;
  Plan p = make_plan(in);
  CHECK(p.fan_in < 1000);
  CHECK(p.fan_in_clamped);
  CHECK(p.merge_buffer_bytes >= kMinMergeBuffer / 2);
}

TEST_CASE("plan: a device chunk limit splits input that fits the host") {
  PlanInput in;
  in.input_bytes = 8 << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 8;
  in.memory = 1 << 30;
  in.max_chunk_records = 100000;
  Plan p = make_plan(in);
  CHECK(p.mode == PlanMode::runs_in_memory);
  CHECK(p.run_records <= 100000);
}

TEST_CASE("plan report: the plan's mode, runs and merge tree") {
  PlanInput in;
  in.input_bytes = 20 << 20;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 1 << 20;
  in.fan_in = 4;
  const Plan p = make_plan(in);
  const PlanReport r = plan_report(p);
  CHECK(r.sort.mode == PlanMode::external);
  CHECK(r.records == p.records);
  CHECK(r.sort.runs == p.runs);
  CHECK(r.sort.run_sizes == p.run_sizes);
  CHECK(r.sort.fan_in == 4);
  REQUIRE(r.sort.levels.size() == p.levels.size());
  CHECK(r.sort.levels.back().final);
  CHECK(r.sort.levels.front().groups == p.levels.front().groups);
}

TEST_CASE("direct I/O: on, off, and auto when the temp runs would fill half the page cache") {
  CHECK(parse_choice(std::string("auto"), "--direct-io", kDirectIos) == DirectIo::automatic);
  CHECK(parse_choice(std::string("on"), "--direct-io", kDirectIos) == DirectIo::on);
  CHECK(parse_choice(std::string("off"), "--direct-io", kDirectIos) == DirectIo::off);
  CHECK_THROWS_AS(parse_choice(std::string("yes"), "--direct-io", kDirectIos), Error);
  CHECK(use_direct_io(DirectIo::on, 0, uint64_t(1) << 40));
  CHECK_FALSE(use_direct_io(DirectIo::off, uint64_t(1) << 40, 0));
  CHECK_FALSE(use_direct_io(DirectIo::automatic, 500, 1000));
  CHECK(use_direct_io(DirectIo::automatic, 501, 1000));

  PlanInput in;
  in.input_bytes = uint64_t(100) << 20;
  in.memory = 4 << 20;
  in.page_cache_bytes = uint64_t(1) << 30;  // 100 MiB of runs fit
  CHECK_FALSE(make_plan(in).direct_io);
  in.page_cache_bytes = uint64_t(150) << 20;
  CHECK(make_plan(in).direct_io);
  in.direct_io = DirectIo::off;
  CHECK_FALSE(make_plan(in).direct_io);
  in.direct_io = DirectIo::on;
  in.memory = uint64_t(1) << 30;  // in memory: no temp files, nothing to bypass
  CHECK_FALSE(make_plan(in).direct_io);
}
