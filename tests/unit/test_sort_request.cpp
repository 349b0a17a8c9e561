// The sort command as a request (gxsort/sort_request.hpp): plan() writes nothing, its
// report is plan_sort's, run() of it gives sort_file's bytes, and a plan dropped unrun
// leaves nothing; in memory and out of core (a small --memory: runs in temp files).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <string>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"
#include "render_plan.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

namespace {

// The names in `dir` (none: nothing was made there).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// `n` u64 keys in a scrambled order, written to `path`.
void write_keys(const std::string& path, uint64_t n) {
  Bytes b(n * 8);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t v = (i * 0x9E3779B97F4A7C15ull) ^ (i >> 3);
    std::memcpy(b.data() + i * 8, &v, 8);
  }
  gxsort_test::write_file(path, b);
}

// A sort of 1M u64 records (8 MiB): in memory, or out of core with --memory 2M (the
// CPU's choice: partition; --ooc merge: runs merged).
struct Case {
  const char* memory;
  OocMethod ooc;
  PlanMode mode;
};
const Case kCases[] = {{"", OocMethod::automatic, PlanMode::in_memory},
                       {"2M", OocMethod::automatic, PlanMode::partition},
                       {"2M", OocMethod::merge, PlanMode::external}};

struct Setup {
  TempDir inputs{"gxsort-req-in"}, outputs{"gxsort-req-out"}, temps{"gxsort-req-tmp"};
  std::string input = inputs.file("in.bin"), output = outputs.file("out.bin");
  EngineOptions opt;
  explicit Setup(const Case& c) {
    write_keys(input, 1 << 20);
    opt = gxsort_test::cpu_opts(Format::typed(KeyType::u64), c.memory);
    opt.ooc = c.ooc;
    opt.tmp_dirs = {temps.path};
  }
  SortRequest request() const { return {input, output, opt}; }
};

}  // namespace

TEST_CASE("plan() of a sort writes nothing, its report is plan_sort's, and a plan dropped unrun leaves nothing") {
  for (const Case& c : kCases) {
    CAPTURE(c.memory);
    CAPTURE(plan_mode_name(c.mode));
    Setup s(c);
    for (const bool resume : {false, true}) {
      s.opt.resume = resume;
      {
        const SortPlan p = plan(s.request());
        CHECK(p.report().sort.mode == c.mode);
        CHECK(p.report().resume.has_value() == resume);
        CHECK(p.report().records == (1u << 20));
        CHECK(cli::plan_json(p.report()) == cli::plan_json(plan_sort(s.input, s.output, s.opt)));
        CHECK(cli::plan_text(p.report()) == cli::plan_text(plan_sort(s.input, s.output, s.opt)));
        CHECK(entries(s.temps.path).empty());
        CHECK(entries(s.outputs.path).empty());
      }  // dropped here, never run
      CHECK(entries(s.temps.path).empty());
      CHECK(entries(s.outputs.path).empty());
      CHECK(entries(s.inputs.path) == std::vector<std::string>{"in.bin"});
    }
  }
}

TEST_CASE("run(plan(request)) gives sort_file's bytes and the plan's mode and runs, and leaves no temp file") {
  for (const Case& c : kCases) {
    CAPTURE(plan_mode_name(c.mode));
    Setup s(c);
    SortPlan p = plan(s.request());
    const PlanReport planned = p.report();
    const RunStats st = run(std::move(p));
    CHECK(st.mode == plan_mode_name(planned.sort.mode));
    CHECK(st.runs == planned.sort.runs);
    CHECK(st.records == planned.records);
    CHECK(entries(s.temps.path).empty());
    const Bytes got = gxsort_test::read_file(s.output);
    sort_file(s.input, s.outputs.file("want.bin"), s.opt);
    CHECK(got == gxsort_test::read_file(s.outputs.file("want.bin")));
    CHECK(got.size() == (8u << 20));
  }
}

TEST_CASE("a SortPlan run or moved from refuses to be used again") {
  Setup s(kCases[0]);
  SortPlan p = plan(s.request());
  SortPlan q = std::move(p);
  CHECK_THROWS_AS(p.report(), Error);  // NOLINT(bugprone-use-after-move): what is tested
  CHECK_THROWS_AS(run(std::move(p)), Error);
  run(std::move(q));
  CHECK(gxsort_test::read_file(s.output).size() == (8u << 20));
}

TEST_CASE("a FIFO's plan is partial (its runs' size), and its run sorts what the writer sent") {
  Setup s(kCases[2]);
  const std::string fifo = s.inputs.file("in.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Bytes data = gxsort_test::read_file(s.input);
  std::thread writer([&] { gxsort_test::write_file(fifo, data); });  // its open waits for plan()'s
  SortPlan p = plan(SortRequest{fifo, s.output, s.opt});
  CHECK(p.report().stream);
  CHECK(p.report().input_bytes == 0);
  CHECK(p.report().sort.run_records > 0);
  CHECK(entries(s.temps.path).empty());
  const RunStats st = run(std::move(p));
  writer.join();
  CHECK(st.mode == "external (stream)");
  sort_file(s.input, s.outputs.file("want.bin"), s.opt);
  CHECK(gxsort_test::read_file(s.output) == gxsort_test::read_file(s.outputs.file("want.bin")));
  CHECK(entries(s.temps.path).empty());
}
