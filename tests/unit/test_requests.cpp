// dedupe, runs, merge, check, reduce, graph build, bfs and gen as requests (gxsort/requests.hpp):
// plan() writes nothing, its report is plan_command's for that command (with and without
// --resume), a plan dropped unrun leaves nothing, and run() of it gives what the file
// functions give (and what std::sort says); in memory and out of core (a small --memory).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "../common/records.hpp"
#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"
#include "render_plan.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

namespace {

constexpr uint64_t kKeys = 1 << 19;  // 4 MiB of u64 keys

// The names in `dir`, sorted (none: nothing was made there).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Key i of a scrambled set with duplicates (about kKeys / 4 distinct).
uint64_t key(uint64_t i) { return ((i % (kKeys / 4)) * 0x9E3779B97F4A7C15ull) >> 20; }

Bytes bytes_of(const std::vector<uint64_t>& keys) {
  Bytes b(keys.size() * 8);
  if (!keys.empty()) std::memcpy(b.data(), keys.data(), b.size());
  return b;
}

// A request's command in memory ("") and out of core ("1M": runs in temp files).
const char* const kMemories[] = {"", "1M"};

struct Setup {
  TempDir inputs{"gxsort-reqs-in"}, outputs{"gxsort-reqs-out"}, temps{"gxsort-reqs-tmp"};
  std::string input = inputs.file("in.bin"), output = outputs.file("out.bin");
  std::vector<std::string> sorted_parts;  // three sorted files: merge's inputs
  std::vector<uint64_t> keys;
  EngineOptions opt;
  explicit Setup(const char* memory) {
    for (uint64_t i = 0; i < kKeys; ++i) keys.push_back(key(i));
    gxsort_test::write_file(input, bytes_of(keys));
    for (int part = 0; part < 3; ++part) {
      std::vector<uint64_t> k(keys.begin() + part * (kKeys / 3), keys.begin() + (part + 1) * (kKeys / 3));
      std::sort(k.begin(), k.end());
      sorted_parts.push_back(inputs.file("part" + std::to_string(part) + ".bin"));
      gxsort_test::write_file(sorted_parts.back(), bytes_of(k));
    }
    opt = gxsort_test::cpu_opts(Format::typed(KeyType::u64), memory);
    opt.tmp_dirs = {temps.path};
    opt.fan_in = 2;  // merge's three inputs: two levels
  }
  // Nothing made where outputs and temp files go, and the inputs as written.
  void check_nothing_written() const {
    CHECK(entries(temps.path).empty());
    CHECK(entries(outputs.path).empty());
    CHECK(entries(inputs.path) == std::vector<std::string>{"in.bin", "part0.bin", "part1.bin", "part2.bin"});
  }
};

// An edge list of kEdges scrambled edges (repeats and self loops among them) over
// kVertices vertices, for graph build; a graph built from it, for bfs.
constexpr uint64_t kVertices = 1 << 12, kEdges = 1 << 17;

struct GraphSetup {
  TempDir inputs{"gxsort-reqs-gin"}, outputs{"gxsort-reqs-gout"}, temps{"gxsort-reqs-gtmp"};
  std::string edges = inputs.file("edges.txt"), graph = outputs.file("g.csr");
  std::vector<std::string> input_names{"edges.txt"};
  EngineOptions opt;
  explicit GraphSetup(const char* memory) {
    std::string text;
    for (uint64_t i = 0; i < kEdges; ++i)
      text += std::to_string(key(i) % kVertices) + " " + std::to_string(key(i * 7 + 3) % kVertices) + "\n";
    gxsort_test::write_file(edges, Bytes(text.begin(), text.end()));
    opt = gxsort_test::cpu_opts(Format::typed(KeyType::u64), memory);
    opt.tmp_dirs = {temps.path};
  }
  void check_nothing_written() const {
    CHECK(entries(temps.path).empty());
    CHECK(entries(outputs.path).empty());
    CHECK(entries(inputs.path) == input_names);
  }
};

// plan(request) with and without --resume: nothing written (its report made too, nor
// once dropped), and its report is `gxsort plan COMMAND`'s (text and JSON).
template <class Request, class Fixture>
void check_plan(const Fixture& s, Request request, CommandKind command, const std::vector<std::string>& inputs,
                const std::string& output) {
  for (const bool resume : {false, true}) {
    CAPTURE(resume);
    request.options.resume = resume;
    {
      const auto p = plan(request);
      s.check_nothing_written();
      const PlanReport want = plan_command(command, inputs, output, request.options);
      CHECK(p.report().resume.has_value() == resume);
      CHECK(p.report().command == command);
      CHECK(cli::plan_json(p.report()) == cli::plan_json(want));
      CHECK(cli::plan_text(p.report()) == cli::plan_text(want));
      s.check_nothing_written();
    }  // dropped here, never run
    s.check_nothing_written();
  }
}

}  // namespace

TEST_CASE("dedupe as a request: a plan that writes nothing, plan_command's report, dedupe_file's bytes") {
  for (const char* memory : kMemories) {
    for (const bool count : {false, true}) {
      CAPTURE(memory);
      CAPTURE(count);
      Setup s(memory);
      s.opt.dedupe.count = count;  // the sort and the group pass (a staged job)
      check_plan(s, DedupeRequest{s.input, s.output, s.opt}, CommandKind::dedupe, {s.input}, s.output);
      CHECK((plan(DedupeRequest{s.input, s.output, s.opt}).report().sort.mode == PlanMode::in_memory) == (*memory == 0));
      const RunStats st = run(plan(DedupeRequest{s.input, s.output, s.opt}));
      CHECK(entries(s.temps.path).empty());
      CHECK(st.records == kKeys);
      const std::string want = s.inputs.file("want.bin");
      dedupe_file(s.input, want, s.opt);
      CHECK(gxsort_test::read_file(s.output) == gxsort_test::read_file(want));
      if (!count) {
        std::vector<uint64_t> k = s.keys;
        std::sort(k.begin(), k.end());
        k.erase(std::unique(k.begin(), k.end()), k.end());
        CHECK(gxsort_test::read_file(s.output) == bytes_of(k));
      }
    }
  }
}

TEST_CASE("runs as a request: a plan that makes no directory, plan_command's report, form_runs's runs") {
  for (const char* memory : kMemories) {
    CAPTURE(memory);
    Setup s(memory);
    const std::string dir = s.outputs.file("runs");
    check_plan(s, RunsRequest{s.input, dir, s.opt}, CommandKind::runs, {s.input}, dir);
    const RunStats st = run(plan(RunsRequest{s.input, dir, s.opt}));
    CHECK(entries(s.temps.path).empty());
    const std::string want = s.inputs.file("want");
    form_runs(s.input, want, s.opt);
    CHECK(st.runs == entries(want).size() - 1);  // the runs and manifest.txt
    CHECK((st.runs > 1) == (*memory != 0));
    CHECK(entries(dir) == entries(want));
    for (const std::string& name : entries(want))
      if (name != "manifest.txt") CHECK(gxsort_test::read_file(dir + "/" + name) == gxsort_test::read_file(want + "/" + name));
    CHECK(run(plan(MergeRequest{{dir}, s.outputs.file("merged.bin"), s.opt})).records == kKeys);
  }
}

TEST_CASE("merge as a request: a plan that writes nothing, plan_command's report, merge_files's bytes") {
  for (const char* memory : kMemories) {
    CAPTURE(memory);
    Setup s(memory);
    check_plan(s, MergeRequest{s.sorted_parts, s.output, s.opt}, CommandKind::merge, s.sorted_parts, s.output);
    CommandPlan<MergeRequest> p = plan(MergeRequest{s.sorted_parts, s.output, s.opt});
    CHECK(p.report().sort.levels.size() == 2);
    run(std::move(p));
    CHECK(entries(s.temps.path).empty());
    const std::string want = s.inputs.file("want.bin");
    merge_files(s.sorted_parts, want, s.opt);
    std::vector<uint64_t> k(s.keys.begin(), s.keys.begin() + 3 * (kKeys / 3));
    std::sort(k.begin(), k.end());
    CHECK(gxsort_test::read_file(s.output) == gxsort_test::read_file(want));
    CHECK(gxsort_test::read_file(s.output) == bytes_of(k));
  }
}

TEST_CASE("a merge's FIFO is opened by its run, not its plan: the plan is partial, the run merges what was sent") {
  Setup s("1M");
  const std::string fifo = s.inputs.file("in.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // plan() returns with no writer at the FIFO: it did not open it (an open would wait).
  CommandPlan<MergeRequest> p = plan(MergeRequest{{s.sorted_parts[0], fifo, s.sorted_parts[1]}, s.output, s.opt});
  CHECK(entries(s.temps.path).empty());
  const Bytes sent = gxsort_test::read_file(s.sorted_parts[2]);
  std::thread writer([&] { gxsort_test::write_file(fifo, sent); });  // its open waits for the run's
  const RunStats st = run(std::move(p));
  writer.join();
  CHECK(st.records == 3 * (kKeys / 3));
  CHECK(entries(s.temps.path).empty());  // the FIFO's copy removed
  merge_files(s.sorted_parts, s.inputs.file("want.bin"), s.opt);
  CHECK(gxsort_test::read_file(s.output) == gxsort_test::read_file(s.inputs.file("want.bin")));
}

TEST_CASE("check and reduce as requests: plans that write nothing, plan_command's reports, the file functions' results") {
  for (const char* memory : kMemories) {
    CAPTURE(memory);
    Setup s(memory);
    check_plan(s, CheckRequest{s.sorted_parts[0], s.opt}, CommandKind::check, {s.sorted_parts[0]}, s.output);
    check_plan(s, ReduceRequest{s.input, ReduceOp::sum, ReduceAlgo::flat, s.opt}, CommandKind::reduce, {s.input}, s.output);
    for (const std::string& path : {s.input, s.sorted_parts[0]}) {
      const CheckResult got = run(plan(CheckRequest{path, s.opt})), want = check_file(path, s.opt);
      CHECK(got.sorted == (path != s.input));
      CHECK(got.records == want.records);
      CHECK(got.first_violation == want.first_violation);
      CHECK(got.duplicates == want.duplicates);
      CHECK(got.checksum == want.checksum);
      CHECK(got.xxh3 == want.xxh3);
    }
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::minmax}) {
      const ReduceResult got = run(plan(ReduceRequest{s.input, op, ReduceAlgo::flat, s.opt}));
      CHECK(got.values == reduce_file(s.input, op, ReduceAlgo::flat, s.opt).values);
      if (op == ReduceOp::minmax) {
        REQUIRE(got.values.size() == 2);
        CHECK(uint64_t(got.values[0].magnitude) == *std::min_element(s.keys.begin(), s.keys.end()));
        CHECK(uint64_t(got.values[1].magnitude) == *std::max_element(s.keys.begin(), s.keys.end()));
      }
    }
    s.check_nothing_written();
  }
}

TEST_CASE("graph build as a request: a plan that writes nothing, plan_command's report, graph_build's CSR") {
  for (const char* memory : kMemories) {
    CAPTURE(memory);
    GraphSetup s(memory);
    GraphBuildOptions build;
    build.symmetrize = true;
    s.opt.graph.build = build;  // what plan_command reads
    check_plan(s, GraphBuildRequest{s.edges, s.graph, build, s.opt}, CommandKind::graph_build, {s.edges}, s.graph);
    const GraphBuildResult got = run(plan(GraphBuildRequest{s.edges, s.graph, build, s.opt}));
    CHECK(entries(s.temps.path).empty());
    const std::string want_path = s.inputs.file("want.csr");
    const GraphBuildResult want = graph_build(s.edges, want_path, build, s.opt);
    CHECK(got.input_edges == kEdges);
    CHECK(got.vertices == want.vertices);
    CHECK(got.edges == want.edges);
    CHECK((got.edges > 0 && got.edges < 2 * kEdges));  // repeats and loops dropped
    CHECK(gxsort_test::read_file(s.graph) == gxsort_test::read_file(want_path));
  }
}

TEST_CASE("bfs as a request: a plan that writes nothing, plan_command's report, bfs_file's levels and parents") {
  GraphSetup s("");  // the graph is loaded whole: no out-of-core bfs
  const std::string graph = s.inputs.file("g.csr");
  GraphBuildOptions build;
  build.symmetrize = true;
  const GraphBuildResult built = graph_build(s.edges, graph, build, s.opt);
  s.input_names = {"edges.txt", "g.csr"};
  BfsOptions bfs;
  bfs.levels_output = s.outputs.file("levels");
  bfs.parents_output = s.outputs.file("parents");
  s.opt.graph.bfs = bfs;  // what plan_command reads
  check_plan(s, BfsRequest{graph, bfs, s.opt}, CommandKind::bfs, {graph}, bfs.levels_output);
  const PlanReport planned = plan(BfsRequest{graph, bfs, s.opt}).report();
  CHECK(planned.bfs.graph_known);
  CHECK(planned.bfs.vertices == built.vertices);
  CHECK(planned.bfs.edges == built.edges);
  const BfsResult got = run(plan(BfsRequest{graph, bfs, s.opt}));
  CHECK(entries(s.temps.path).empty());
  BfsOptions want_bfs = bfs;
  want_bfs.levels_output = s.inputs.file("want_levels");
  want_bfs.parents_output = s.inputs.file("want_parents");
  const BfsResult want = bfs_file(graph, want_bfs, s.opt);
  CHECK(got.vertices == built.vertices);
  REQUIRE(got.searches.size() == 1);
  REQUIRE(want.searches.size() == 1);
  CHECK(got.searches[0].reached > 1);
  CHECK(got.searches[0].reached == want.searches[0].reached);
  CHECK(got.searches[0].depth == want.searches[0].depth);
  CHECK(got.searches[0].edges_traversed == want.searches[0].edges_traversed);
  CHECK(gxsort_test::read_file(bfs.levels_output) == gxsort_test::read_file(want_bfs.levels_output));
  CHECK(gxsort_test::read_file(bfs.parents_output) == gxsort_test::read_file(want_bfs.parents_output));
}

TEST_CASE("a command's plan run or moved from refuses to be used again; a run without an output refuses") {
  Setup s("");
  CommandPlan<CheckRequest> p = plan(CheckRequest{s.input, s.opt});
  CommandPlan<CheckRequest> q = std::move(p);
  CHECK_THROWS_AS(p.report(), Error);  // NOLINT(bugprone-use-after-move): what is tested
  CHECK_THROWS_AS(run(std::move(p)), Error);
  CHECK(run(std::move(q)).records == kKeys);
  // Planned without an output (as `gxsort plan` does), the run refuses, writing nothing.
  CHECK_THROWS_AS(run(plan(DedupeRequest{s.input, "", s.opt})), Error);
  CHECK_THROWS_AS(run(plan(RunsRequest{s.input, "", s.opt})), Error);
  s.check_nothing_written();
  GraphSetup g("");
  CHECK_THROWS_AS(run(plan(GraphBuildRequest{g.edges, "", {}, g.opt})), Error);
  g.check_nothing_written();
}

TEST_CASE("gen as a request: a plan that writes nothing, its report, gen_file's and gen_graph's bytes") {
  Setup s("");
  GenOptions g;
  g.count = 100000;
  g.dist = GenDist::sorted;  // u64 record i is i: an oracle of its own
  const Format u64 = Format::typed(KeyType::u64);
  // Checked by the plan: more than 2^64 bytes, no graph kind.
  CHECK_THROWS_AS(plan(GenRequest{s.output, u64, GenOptions{UINT64_MAX / 8 + 1, GenDist::uniform, 1}, s.opt}), Error);
  CHECK_THROWS_AS(plan(GenGraphRequest{s.output, GraphGenOptions{}, s.opt}), Error);
  {
    const auto p = plan(GenRequest{s.output, u64, g, s.opt});
    s.check_nothing_written();
    CHECK(p.report().command == CommandKind::gen);
    CHECK(p.report().output == s.output);
    CHECK(p.report().records == g.count);
    CHECK(p.report().record_size == 8);
    CHECK(p.report().format == u64.describe());
  }  // dropped unrun
  s.check_nothing_written();
  const RunStats st = run(plan(GenRequest{s.output, u64, g, s.opt}));
  CHECK(st.records == g.count);
  std::vector<uint64_t> want(g.count);
  for (uint64_t i = 0; i < g.count; ++i) want[i] = i;
  CHECK(gxsort_test::read_file(s.output) == bytes_of(want));
  for (const GenDist dist : {GenDist::uniform, GenDist::zipf}) {
    g.dist = dist;
    run(plan(GenRequest{s.output, u64, g, s.opt}));
    gen_file(s.outputs.file("want.bin"), u64, g, s.opt);
    CHECK(gxsort_test::read_file(s.output) == gxsort_test::read_file(s.outputs.file("want.bin")));
  }
  GraphGenOptions graph;
  graph.kind = GraphKind::rmat;
  graph.scale = 10;
  const std::string edges = s.outputs.file("edges.bin"), want_edges = s.outputs.file("want_edges.bin");
  const auto gp = plan(GenGraphRequest{edges, graph, s.opt});
  CHECK(!std::filesystem::exists(edges));
  CHECK(entries(s.temps.path).empty());
  CHECK(gp.report().records == graph.edge_factor << graph.scale);
  CHECK(gp.report().record_size == 8);  // u32 pairs
  run(plan(GenGraphRequest{edges, graph, s.opt}));
  gen_graph(want_edges, graph, s.opt);
  CHECK(std::filesystem::file_size(edges) == (graph.edge_factor << graph.scale) * 8);
  CHECK(gxsort_test::read_file(edges) == gxsort_test::read_file(want_edges));
  CHECK(entries(s.temps.path).empty());
}
