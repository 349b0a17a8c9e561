// make_plan(PlanRequest): every command's sizes within its budget, threads resolved once, the
// documented errors for budgets too small, and empty inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "gxsort/error.hpp"
#include "io/output.hpp"
#include "engine/run_parts.hpp"
#include "kernels/reduce.hpp"
#include "plan/plan_request.hpp"

using namespace gxsort;

namespace {

PlanRequest job(CommandKind kind, uint64_t records, uint64_t memory, size_t record_size = 8) {
  PlanRequest j;
  j.command = kind;
  j.format = Format::typed(record_size == 4 ? KeyType::u32 : KeyType::u64);
  j.sort.record_size = record_size;
  j.sort.sort_bytes_per_record = 2 * record_size;
  j.sort.input_bytes = records * record_size;
  j.sort.memory = memory;
  j.sort.page_cache_bytes = uint64_t(8) << 30;
  j.threads = 3;
  return j;
}

// Slots of chunks of the plan's size fit the budget.
void check_stream(const StreamPlan& s, uint64_t memory) {
  CHECK(s.chunk_records >= 1);
  CHECK(s.slots >= 1);
  CHECK(uint64_t(s.chunk_bytes) * s.slots <= memory);
}

std::string usage_message(const PlanRequest& j) {
  try {
    make_plan(j);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("job plan: threads resolved once, --threads kept, 0 the CPUs") {
  PlanRequest j = job(CommandKind::check, 1000, 64 << 20);
  CHECK(make_plan(j).threads == 3);
  j.threads = 0;
  CHECK(make_plan(j).threads == resolve_threads(0));
  CHECK(resolve_threads(0) >= 1);
  for (CommandKind k : {CommandKind::sort, CommandKind::runs, CommandKind::merge, CommandKind::dedupe, CommandKind::reduce,
                    CommandKind::graph_build, CommandKind::bfs}) {
    PlanRequest o = job(k, 1000, 64 << 20);
    o.input_records = {1000};
    INFO(command_name(k));
    CHECK(make_plan(o).threads == 3);
    CHECK(make_plan(o).command == k);
  }
}

TEST_CASE("job plan: check and reduce chunks fit --memory, and the budget too small is refused") {
  for (uint64_t memory : {uint64_t(1) << 20, uint64_t(64) << 20, uint64_t(4) << 30}) {
    INFO(memory);
    const Plan c = make_plan(job(CommandKind::check, 10000000, memory));
    check_stream(c.chunks, memory);
    CHECK(c.chunks.chunk_bytes <= (64 << 20));
    const Plan r = make_plan(job(CommandKind::reduce, 10000000, memory));
    check_stream(r.chunks, memory);
    CHECK(r.chunks.chunk_records % kReduceBlock == 0);  // whole blocks: results do not depend on chunks
  }
  // A device's chunk limit caps the chunks.
  PlanRequest capped = job(CommandKind::check, 10000000, uint64_t(1) << 30);
  capped.sort.max_chunk_records = 5000;
  CHECK(make_plan(capped).chunks.chunk_records == 5000);
  CHECK(usage_message(job(CommandKind::check, 100, 16)).find("--memory 16 B is too small to check 8-byte records") == 0);
  CHECK(usage_message(job(CommandKind::reduce, 100, 1000)).find("too small to reduce") != std::string::npos);
}

TEST_CASE("job plan: empty inputs and streams") {
  const Plan c = make_plan(job(CommandKind::check, 0, 64 << 20));
  CHECK(c.records == 0);
  CHECK(c.chunks.chunk_records == 1);
  CHECK(make_plan(job(CommandKind::reduce, 0, 64 << 20)).chunks.chunk_records == kReduceBlock);
  PlanRequest s = job(CommandKind::check, 0, uint64_t(1) << 30);
  s.stream = true;
  CHECK(make_plan(s).chunks.chunk_bytes == (64 << 20));  // a stream: full chunks until it ends
  const Plan runs = make_plan(job(CommandKind::runs, 0, 64 << 20));
  CHECK(runs.runs == 0);
  CHECK(runs.chunks.slots == 0);
  PlanRequest stream_sort = job(CommandKind::sort, 0, 4 << 20);
  stream_sort.stream = true;
  const Plan ss = make_plan(stream_sort);
  CHECK(ss.stream);
  CHECK(ss.run_records > 0);
  check_stream(ss.chunks, 4 << 20);
}

TEST_CASE("job plan: sort keeps the sort planner's plan and adds the windows") {
  PlanRequest j = job(CommandKind::sort, 5 << 20, 64 << 20);  // 40 MiB of data in 64 MiB: runs in memory
  const Plan p = make_plan(j);
  CHECK(p.mode == PlanMode::runs_in_memory);
  CHECK(p.window_memory == (64 << 20) - (40 << 20));
  CHECK(p.memory_merge_buffer_bytes > 0);
  PlanRequest ext = job(CommandKind::sort, 50 << 20, 16 << 20);
  ext.sort.ooc = OocMethod::merge;
  const Plan e = make_plan(ext);
  CHECK(e.mode == PlanMode::external);
  CHECK(e.window_memory == e.memory);
  CHECK(e.chunks.slots == 3);
  CHECK(uint64_t(e.run_records) * 8 == e.chunks.chunk_bytes);
  CHECK(usage_message(job(CommandKind::sort, 100, 1000)).find("is below the minimum") != std::string::npos);
}

TEST_CASE("job plan: an external sort's runs beyond 3/4 of what the page cache keeps dirty are written back early") {
  const uint64_t backlog = io::Output::kSyncedBacklog;  // 512 MiB
  PlanRequest big = job(CommandKind::sort, 400 << 20, 16 << 20);  // 3200 MiB of runs
  big.sort.ooc = OocMethod::merge;
  big.sort.dirty_background_bytes = uint64_t(4) << 30;  // keeps 3/4 of it, 3 GiB, dirty
  CHECK(make_plan(big).early_writeback_bytes == uint64_t(128) << 20);
  PlanRequest ext = job(CommandKind::sort, 50 << 20, 16 << 20);  // 400 MiB of runs
  ext.sort.ooc = OocMethod::merge;
  ext.sort.dirty_background_bytes = backlog + (uint64_t(100) << 20);  // the backlog leaves 100 MiB
  CHECK(make_plan(ext).early_writeback_bytes == uint64_t(300) << 20);
  ext.sort.dirty_background_bytes = uint64_t(400) << 20;  // the backlog alone fills it: all early
  CHECK(make_plan(ext).early_writeback_bytes == uint64_t(400) << 20);
  ext.sort.dirty_background_bytes = uint64_t(1) << 30;  // the runs stay under both
  CHECK(make_plan(ext).early_writeback_bytes == 0);
  ext.sort.dirty_background_bytes = 0;  // none known: the kernel's flusher decides, as before
  CHECK(make_plan(ext).early_writeback_bytes == 0);
  ext.sort.dirty_background_bytes = uint64_t(400) << 20;
  ext.sort.direct_io = DirectIo::on;  // runs around the page cache: on the disk already
  CHECK(make_plan(ext).early_writeback_bytes == 0);
  PlanRequest mem = job(CommandKind::sort, 5 << 20, 64 << 20);  // no runs
  CHECK(make_plan(mem).early_writeback_bytes == 0);
}

TEST_CASE("job plan: an external sort with one merge level holds its last runs in memory for the merge") {
  // 10M + 1000 u64 in 16 MiB on the CPU's 16 bytes a record: 3 slots of at most
  // 512K-record (4 MiB) runs and their scratch; 21 runs of equal size (the last 10
  // records short: 10486760 = 20 x 499370 + 499360); one level.
  PlanRequest one = job(CommandKind::sort, (10 << 20) + 1000, 16 << 20);
  one.sort.ooc = OocMethod::merge;
  CHECK(make_plan(one).held_runs == 0);  // only where the executor holds them (the API writes every run)
  one.hold_runs = true;
  const Plan p = make_plan(one);
  REQUIRE(p.mode == PlanMode::external);
  REQUIRE(p.runs == 21);
  CHECK(p.run_records == 499370);
  CHECK(p.run_sizes.back() == 499360);
  REQUIRE(p.levels.size() == 1);
  CHECK(p.held_runs == 2);  // the CPU merge keeps half the budget: two runs in the rest
  CHECK(p.held_run_bytes == (499370 + 499360) * 8);
  CHECK(p.window_memory == p.memory - p.held_run_bytes);
  CHECK(p.temp_bytes == p.input_bytes - p.held_run_bytes);
  CHECK(p.bytes_written == 2 * p.input_bytes);  // the stages' bytes: the merge still reads them
  CHECK(p.bytes_read == 2 * p.input_bytes);
  // The CPU merge's read buffers: the budget the held runs leave, shared by the other 19
  // inputs and the output buffer (one merge thread: 3 asked, the budget's minimum buffers).
  CHECK(p.merge_buffer_bytes == (p.memory - p.held_run_bytes) / (p.merge_threads * 20) / 8 * 8);
  // The early writeback counts only the runs that are written.
  one.sort.dirty_background_bytes = io::Output::kSyncedBacklog + (uint64_t(20) << 20);  // keeps 20 MiB dirty
  CHECK(make_plan(one).early_writeback_bytes == p.input_bytes - p.held_run_bytes - (uint64_t(20) << 20));
  one.sort.dirty_background_bytes = 0;
  // A benchmark's count: at most the slots, and an eighth of the budget left to the merge.
  for (size_t k : {0, 1, 2, 3, 5}) {
    one.held_runs = k;
    CHECK(make_plan(one).held_runs == std::min<size_t>(k, 3));
    CHECK(make_plan(one).window_memory == p.memory - make_plan(one).held_run_bytes);
  }
  PlanRequest big_runs = one;  // runs of a third of the budget (no sort scratch): two fit in 7/8
  big_runs.sort.sort_bytes_per_record = 8;
  big_runs.held_runs = 3;
  const Plan b = make_plan(big_runs);
  REQUIRE(b.levels.size() == 1);
  CHECK(b.held_runs == 2);
  CHECK(b.window_memory >= b.memory / 8);
  one.held_runs.reset();
  // A device merge keeps its windows, at most a quarter of the budget: every slot's run.
  one.window_records = 1 << 20;
  const Plan d = make_plan(one);
  CHECK(d.held_runs == 3);
  CHECK(d.held_run_bytes == (2 * 499370 + 499360) * 8);
  CHECK(d.window_memory == d.memory - d.held_run_bytes);
  CHECK(d.window_records == d.window_memory / (kWindowSlots * 8));
  one.window_records = 0;
  // Several merge levels: an intermediate merge would hold them through its level.
  one.sort.fan_in = 4;
  REQUIRE(make_plan(one).levels.size() > 1);
  CHECK(make_plan(one).held_runs == 0);
  CHECK(make_plan(one).window_memory == make_plan(one).memory);
}

TEST_CASE("job plan: a device merge's written runs each cut into files of their own (Plan::run_files)") {
  // As above, 16 times the records and the budget: 21 runs, one level; a device merge
  // on 16 threads keeps each part a read buffer of kMinMergeBuffer.
  PlanRequest one = job(CommandKind::sort, (uint64_t(160) << 20) + 16000, 256 << 20);
  one.sort.ooc = OocMethod::merge;
  one.hold_runs = true;
  one.threads = 16;
  one.fsync = true;
  CHECK(make_plan(one).run_files == 1);  // the CPU merges: its writes are not the bound
  one.window_records = 1 << 20;
  const Plan d = make_plan(one);
  REQUIRE(d.levels.size() == 1);
  REQUIRE(d.held_runs == 3);
  CHECK(d.run_files == 3);  // 4 asked (16 threads), (fan-in 64 - 3 held) / 18 written = 3
  // The merge's read buffers: one for each part (a held run needs none) and the output's.
  CHECK(d.merge_buffer_bytes == (d.memory - d.held_run_bytes) / (d.merge_threads * (18 * 3 + 1)) / 8 * 8);
  CHECK(d.merge_buffer_bytes >= kMinMergeBuffer);
  one.threads = 8;
  CHECK(make_plan(one).run_files == 2);  // a file for every 4 threads
  one.threads = 2;
  CHECK(make_plan(one).run_files == 1);
  one.threads = 16;
  one.sort.fan_in = 40;  // (40 - 3) / 18: 2 parts keep one merge level
  CHECK(make_plan(one).run_files == 2);
  CHECK(make_plan(one).levels.size() == 1);
  one.sort.fan_in = 0;
  // A test's count, on the CPU merge too; still within the fan-in and the buffers.
  one.window_records = 0;
  one.run_files = 3;
  CHECK(make_plan(one).run_files == 3);
  one.run_files = 100;
  const Plan many = make_plan(one);
  CHECK(many.run_files * (many.runs - many.held_runs) + many.held_runs <= many.fan_in);
  CHECK(many.merge_buffer_bytes >= kMinMergeBuffer);
  one.run_files = 3;
  // None with -u (a run may shrink below its parts), --no-fsync, several merge levels,
  // direct runs, or where the executor does not hold runs (the API's runs from memory).
  one.unique = true;
  CHECK(make_plan(one).run_files == 1);
  one.unique = false;
  one.fsync = false;  // --no-fsync: the flusher writes more of the runs back
  CHECK(make_plan(one).run_files == 1);
  one.fsync = true;
  one.sort.fan_in = 4;
  CHECK(make_plan(one).run_files == 1);
  one.sort.fan_in = 0;
  one.sort.direct_io = DirectIo::on;
  CHECK(make_plan(one).run_files == 1);
  one.sort.direct_io = DirectIo::automatic;
  one.hold_runs = false;
  CHECK(make_plan(one).run_files == 1);
  // Never more parts than the smallest written run has records: 20 records in runs of
  // at most 3 (7 runs, the last of 2), none held.
  PlanRequest tiny = job(CommandKind::sort, 20, 1 << 20);
  tiny.sort.ooc = OocMethod::merge;
  tiny.sort.max_chunk_records = 3;
  tiny.hold_runs = true;
  tiny.fsync = true;
  tiny.held_runs = 0;
  tiny.run_files = 1000;
  const Plan t = make_plan(tiny);
  REQUIRE(t.mode == PlanMode::external);
  REQUIRE(t.runs == 7);
  CHECK(t.run_sizes.back() == 2);
  CHECK(t.run_files == 2);
}

TEST_CASE("run parts: merge inputs of runs cut into files, and the held runs after them") {
  const RunParts one;  // one file a run, none held: input i is run i
  CHECK(one.first_input(7) == 7);
  CHECK(one.run_of_input(7) == 7);
  const RunParts p{3, 5};  // runs 0-4 in 3 files each, runs 5 on held
  CHECK(p.parts(4) == 3);
  CHECK(p.parts(5) == 1);
  CHECK(p.first_input(1) == 3);
  CHECK(p.first_input(5) == 15);
  CHECK(p.first_input(7) == 17);  // the inputs of 7 runs
  for (size_t x = 0; x < 17; ++x) {
    const size_t r = p.run_of_input(x);
    CHECK(p.first_input(r) <= x);
    CHECK(x < p.first_input(r) + p.parts(r));
  }
  // Parts of consecutive records, every record in one, none empty where records >= parts.
  for (uint64_t n : {1, 2, 3, 10, 499370}) {
    const size_t k = n < 3 ? size_t(n) : 3;
    CHECK(RunParts::part_begin(n, k, 0) == 0);
    CHECK(RunParts::part_begin(n, k, k) == n);
    for (size_t j = 0; j < k; ++j) CHECK(RunParts::part_begin(n, k, j) < RunParts::part_begin(n, k, j + 1));
  }
}

TEST_CASE("job plan: runs and merge") {
  PlanRequest r = job(CommandKind::runs, 1000000, 1 << 20);
  const Plan rp = make_plan(r);
  CHECK(rp.runs >= 2);
  CHECK(rp.chunks.slots == 3);
  uint64_t sum = 0;
  for (uint64_t s : rp.run_sizes) sum += s;
  CHECK(sum == 1000000);
  CHECK(uint64_t(rp.run_records) * 8 * 3 <= (1 << 20));
  PlanRequest m = job(CommandKind::merge, 3000, 1 << 20);
  m.input_records = {1000, 1000, 1000};
  m.sort.fan_in = 2;
  const Plan mp = make_plan(m);
  CHECK(mp.fan_in == 2);
  CHECK(mp.runs == 3);
  CHECK(mp.levels.size() == 2);
  CHECK(mp.window_memory == (1 << 20));
  CHECK(uint64_t(mp.merge_buffer_bytes) * mp.merge_threads * (mp.fan_in + 1) <= (1 << 20));
  CHECK(usage_message(job(CommandKind::merge, 100, 1000)).find("is below the minimum") != std::string::npos);
}

TEST_CASE("job plan: dedupe's strategy and streams; the stream and the bitmap need no sort plan") {
  PlanRequest big = job(CommandKind::dedupe, 100000000, 64 << 20, 4);
  Plan p = make_plan(big);
  CHECK(p.dedupe.strategy == DedupePath::bitmap);  // u32 keys that do not sort in memory
  check_stream(p.dedupe.bitmap, 64 << 20);
  CHECK(p.dedupe.bitmap_budget == (64 << 20) - p.dedupe.bitmap.chunk_bytes * 3);
  PlanRequest small = job(CommandKind::dedupe, 1000, 64 << 20);
  CHECK(make_plan(small).dedupe.strategy == DedupePath::sort);
  CHECK(make_plan(small).dedupe.keep_first);
  small.dedupe.count = true;
  small.format = Format::of_keys(16, {Format::single_field(KeyType::u64, 0)}, false);
  small.sort.record_size = 16;
  CHECK_FALSE(make_plan(small).dedupe.keep_first);
  check_stream(make_plan(small).dedupe.group, 64 << 20);
  // A budget below the sort's minimum: the stream still plans, the sort is refused.
  PlanRequest tiny = job(CommandKind::dedupe, 1000, 64 << 10);
  tiny.dedupe.assume_sorted = true;
  const Plan t = make_plan(tiny);
  CHECK(t.dedupe.strategy == DedupePath::stream);
  CHECK_FALSE(t.dedupe.sort_planned);
  tiny.dedupe.assume_sorted = false;
  tiny.dedupe.strategy = DedupeStrategy::sort;
  CHECK(usage_message(tiny).find("is below the minimum") != std::string::npos);
  // In memory on the CPU: the sort, unless the sampled keys span a narrow range; on a GPU
  // (a device budget), the bitmap above kGpuBitmapAutoMinKeys keys.
  PlanRequest pbbs = job(CommandKind::dedupe, 100000000, uint64_t(8) << 30, 4);
  REQUIRE(make_plan(pbbs).mode == PlanMode::in_memory);
  CHECK(make_plan(pbbs).dedupe.strategy == DedupePath::sort);
  pbbs.dedupe_key_span = 100000000;
  CHECK(make_plan(pbbs).dedupe.strategy == DedupePath::sort);
  pbbs.dedupe_key_span = 1 << 20;
  CHECK(make_plan(pbbs).dedupe.strategy == DedupePath::bitmap);
  CHECK(make_plan(pbbs).dedupe.key_span == (1 << 20));
  pbbs.dedupe_key_span = 0;
  pbbs.device_budget = uint64_t(1) << 30;
  CHECK(make_plan(pbbs).dedupe.strategy == DedupePath::bitmap);
  PlanRequest asked = job(CommandKind::dedupe, 10, 64 << 20, 4);
  asked.dedupe.strategy = DedupeStrategy::bitmap;
  CHECK(make_plan(asked).dedupe.bitmap_budget == UINT64_MAX);
}

TEST_CASE("job plan: graph build and bfs") {
  PlanRequest g = job(CommandKind::graph_build, 0, 1 << 30, 16);
  g.sort.input_bytes = 8000;
  g.edge_format = EdgeFormat::bin32;
  g.symmetrize = true;
  const Plan gp = make_plan(g);
  CHECK(gp.graph.max_edge_records == 2000);
  CHECK(gp.graph.offsets_budget == (1 << 30));
  CHECK(gp.graph.parse_block_bytes > 0);
  g.edge_format = EdgeFormat::snap;
  CHECK(make_plan(g).graph.max_edge_records == 0);  // text: counted as parsed

  PlanRequest b = job(CommandKind::bfs, 0, 1 << 30);
  CHECK_FALSE(make_plan(b).bfs.graph_known);
  CHECK(make_plan(b).bfs.load_budget == (1 << 30));
  b.graph_known = true;
  b.vertices = 1000;
  b.edges = 100000;
  CHECK_FALSE(make_plan(b).bfs.on_device);  // no device
  b.device_budget = uint64_t(1) << 30;
  b.max_device_vertices = UINT32_MAX;
  const Plan bp = make_plan(b);
  CHECK(bp.bfs.on_device);
  CHECK_FALSE(bp.bfs.device.streamed);
  CHECK(bp.bfs.device.need_bytes <= bp.bfs.device_budget);
  b.device_budget = bp.bfs.device.resident_bytes + (64 << 10);  // the neighbors streamed in partitions
  CHECK(make_plan(b).bfs.device.streamed);
  b.vertices = uint64_t(1) << 33;
  CHECK_FALSE(make_plan(b).bfs.on_device);  // auto: the CPU searches
  b.device = Device::cuda;
  CHECK(usage_message(b).find("--device cuda: graphs of 2^32") == 0);
}

TEST_CASE("job plan report: the command, its threads and its sort") {
  const PlanReport c = plan_report(make_plan(job(CommandKind::check, 1000, 64 << 20)));
  CHECK(c.command == CommandKind::check);
  CHECK(c.threads == 3);
  CHECK(c.chunks.slots > 0);
  PlanRequest m = job(CommandKind::merge, 2000, 1 << 20);
  m.input_records = {1000, 1000};
  const PlanReport mr = plan_report(make_plan(m));
  CHECK(mr.command == CommandKind::merge);
  CHECK(mr.sort.mode == PlanMode::external);
  CHECK(mr.sort.runs == 2);
  CHECK(mr.sort.levels.size() == 1);
}
