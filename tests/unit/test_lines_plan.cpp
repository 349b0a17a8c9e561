// plan_lines (gxsort/lines.hpp): its mode at the budget's boundary, decided as sort_lines
// decides it (a text exactly at the budget leaves no room for its index: runs; a text
// within it, in memory when its lines' index fits beside it, else runs), checked against
// what sort_lines does with the same text; its runs and passes; merge, check, a stream.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"
#include "gxsort/lines.hpp"

using namespace gxsort;

namespace {

constexpr uint64_t kBudget = uint64_t(1) << 20;  // the in-memory API's least

EngineOptions plan_options(const gxsort_test::TempDir& dir, size_t fan_in = 0) {
  EngineOptions opt;
  opt.memory.bytes = kBudget;
  opt.memory.given = true;
  opt.tmp_dirs = {dir.path};
  opt.threads = 2;
  opt.device = Device::cpu;
  opt.fan_in = fan_in;
  return opt;
}

// `lines` lines of `bytes` bytes in all (their terminators counted), into `path`.
void write_lines(const std::string& path, uint64_t bytes, uint64_t lines) {
  std::string text;
  for (uint64_t i = 0; i < lines; ++i) {
    const uint64_t size = bytes / lines + (i < bytes % lines ? 1 : 0);
    text += std::string(size - 1, char('a' + (i * 7) % 26)) + "\n";
  }
  std::ofstream(path, std::ios::binary).write(text.data(), std::streamsize(text.size()));
}

// The mode sort_lines takes sorting `path` ("in memory" or "runs").
std::string sorted_mode(const std::string& path, const gxsort_test::TempDir& dir) {
  return sort_lines({path}, dir.file("out"), LineOrder{}, plan_options(dir)).mode;
}

}  // namespace

TEST_CASE("plan_lines: a text exactly at the budget goes through runs, as sort_lines takes it") {
  gxsort_test::TempDir dir("gxsort-unit-lines-plan");
  const std::string in = dir.file("in.txt");
  write_lines(in, kBudget, 1024);
  const LinesPlan p = plan_lines(CommandKind::sort, {in}, dir.file("out"), LineOrder{}, plan_options(dir));
  CHECK(p.memory == kBudget);
  CHECK(p.input_bytes == kBudget);
  CHECK(p.mode == LinesPlanMode::runs);
  CHECK(p.in_memory_lines == 0);
  CHECK(p.chunk_bytes == kBudget / 4);  // two chunks at once: a run written while the next is sorted
  CHECK(p.runs == 4);
  CHECK(p.merge_passes == 1);
  CHECK(p.resumable);
  CHECK(p.temp_dirs == std::vector<std::string>{dir.path});
  CHECK(std::string(lines_plan_mode_name(p.mode)) == "external");
  CHECK(sorted_mode(in, dir) == "runs");
}

TEST_CASE("plan_lines: a text within the budget is in memory when its index fits, else runs") {
  gxsort_test::TempDir dir("gxsort-unit-lines-plan");
  const std::string in = dir.file("in.txt");
  const uint64_t room_lines = 10;  // the index's room beside the text: 10 lines of 80 bytes
  write_lines(in, kBudget - room_lines * 80, room_lines);
  const LinesPlan fits = plan_lines(CommandKind::sort, {in}, dir.file("out"), LineOrder{}, plan_options(dir));
  CHECK(fits.mode == LinesPlanMode::in_memory);
  CHECK(fits.in_memory_lines == room_lines);
  CHECK(fits.input_bytes > fits.in_memory_lines);  // not whatever its lines: only up to 10 of them
  CHECK(sorted_mode(in, dir) == "in memory");
  write_lines(in, kBudget - room_lines * 80, room_lines + 1);  // one line more than the index's room
  CHECK(plan_lines(CommandKind::sort, {in}, dir.file("out"), LineOrder{}, plan_options(dir)).in_memory_lines == room_lines);
  CHECK(sorted_mode(in, dir) == "runs");
}

TEST_CASE("plan_lines: a small text surely in memory; runs and passes with the fan-in") {
  gxsort_test::TempDir dir("gxsort-unit-lines-plan");
  const std::string small = dir.file("small.txt"), big = dir.file("big.txt");
  write_lines(small, 1000, 100);
  const LinesPlan s = plan_lines(CommandKind::dedupe, {small}, "", LineOrder{}, plan_options(dir));
  CHECK(s.mode == LinesPlanMode::in_memory);
  CHECK(s.input_bytes <= s.in_memory_lines);
  write_lines(big, 9 * kBudget / 2, 9 * 512);  // 18 chunks of a quarter of the budget, 9 of half
  const LinesPlan wide = plan_lines(CommandKind::sort, {big}, dir.file("out"), LineOrder{}, plan_options(dir, 32));
  CHECK(wide.runs == 18);  // two chunks at once: a quarter of the budget each
  CHECK(wide.merge_passes == 1);
  const LinesPlan b = plan_lines(CommandKind::sort, {big}, dir.file("out"), LineOrder{}, plan_options(dir, 4));
  CHECK(b.mode == LinesPlanMode::runs);
  CHECK(b.runs == 9);  // 18 would pass the fan-in: one chunk at a time, half the budget
  CHECK(b.fan_in == 4);
  CHECK(b.merge_passes == 2);  // 9 -> 3 -> the output
}

TEST_CASE("plan_lines: merge, check, a stream, and a command it does not plan") {
  gxsort_test::TempDir dir("gxsort-unit-lines-plan");
  const std::string a = dir.file("a.txt"), b = dir.file("b.txt");
  write_lines(a, 100, 10);
  write_lines(b, 200, 10);
  const LinesPlan m = plan_lines(CommandKind::merge, {a, b}, dir.file("out"), LineOrder{}, plan_options(dir));
  CHECK(m.mode == LinesPlanMode::merge);
  CHECK(m.runs == 2);
  CHECK(m.input_bytes == 300);
  CHECK(m.backend == "cpu");
  CHECK(plan_lines(CommandKind::check, {a}, "", LineOrder{}, plan_options(dir)).mode == LinesPlanMode::pass);
  const LinesPlan st = plan_lines(CommandKind::sort, {"/dev/null"}, "", LineOrder{}, plan_options(dir));
  CHECK(st.stream);
  CHECK(st.mode == LinesPlanMode::stream);
  CHECK(st.chunk_bytes == kBudget / 2);
  CHECK_THROWS_AS(plan_lines(CommandKind::reduce, {a}, "", LineOrder{}, plan_options(dir)), Error);
}

TEST_CASE("plan_lines: merge of more inputs than the fan-in: merge_lines' passes, a fan-in within the budget") {
  gxsort_test::TempDir dir("gxsort-unit-lines-plan");
  std::vector<std::string> inputs;
  for (int i = 0; i < 5; ++i) {
    inputs.push_back(dir.file("in" + std::to_string(i)));
    std::ofstream(inputs.back()) << "line " << i << "\n";
  }
  const LinesPlan two = plan_lines(CommandKind::merge, inputs, dir.file("out"), LineOrder{}, plan_options(dir, 2));
  CHECK(two.fan_in == 2);
  CHECK(two.merge_passes == 3);  // 5 -> 3 -> 2 -> the output
  CHECK(two.temp_dirs == std::vector<std::string>{dir.path});
  const RunStats st = merge_lines(inputs, dir.file("out"), LineOrder{}, plan_options(dir, 2));
  CHECK(st.merge_levels == two.merge_passes);
  CHECK(st.input_bytes == 35);
  CHECK(plan_lines(CommandKind::merge, inputs, dir.file("out"), LineOrder{}, plan_options(dir)).merge_passes == 1);
  // 1001 buffers of 4 KiB (the least) are more than 1 MiB: as many as fit, the writer's included.
  const LinesPlan wide = plan_lines(CommandKind::merge, inputs, dir.file("out"), LineOrder{}, plan_options(dir, 1000));
  CHECK(wide.fan_in == kBudget / 4096 - 1);
}
