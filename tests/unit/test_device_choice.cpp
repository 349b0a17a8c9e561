// choose_backend: the one device choice of every command (plan/device_choice.hpp), each
// rule; and the sizes the plan holds for the merges' device windows and a distributed
// rank's merges, read by the executors (merge_setup_of, plan_rank_merge, resolve_memory).
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "backend/backend.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "gxsort/error.hpp"
#include "plan/device_choice.hpp"
#include "plan/plan_request.hpp"

using namespace gxsort;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

// Records of `record_size` bytes with a u64 key at their start.
Format records_of(size_t record_size) {
  return Format::of_keys(record_size, {Format::single_field(KeyType::u64, 0)}, false);
}

// A sort of `records` records of `record_size` bytes (u64 keys at the front) under --device
// `device`, in a budget of `memory` bytes.
PlanRequest sort_job(size_t record_size, uint64_t records, uint64_t memory, Device device = Device::automatic,
             CommandKind kind = CommandKind::sort) {
  PlanRequest j;
  j.command = kind;
  j.device = device;
  j.format = records_of(record_size);
  j.sort.record_size = record_size;
  j.sort.input_bytes = records * record_size;
  j.sort.memory = memory;
  j.sort.page_cache_bytes = uint64_t(8) << 30;
  j.threads = 16;
  return j;
}

// A machine with a GPU backend built in and `threads` threads.
MachineFacts machine(unsigned threads = 16, const Format& f = records_of(100)) {
  MachineFacts m;
  m.gpu = true;
  m.threads = threads;
  m.cpu_sort_bytes_per_record = cpu_sort_bytes_per_record(f);
  return m;
}

}  // namespace

TEST_CASE("device choice: --device cpu and cuda are kept, whatever the job") {
  for (Device d : {Device::cpu, Device::cuda}) {
    const DeviceChoice c = choose_backend(sort_job(100, 1000, 64 * MiB, d), machine());
    CHECK(c.device == d);
    CHECK(c.reason == DeviceReason::asked);
  }
  MachineFacts none = machine();
  none.gpu = false;  // asked for, --device cuda fails as its backend starts (make_backend)
  CHECK(choose_backend(sort_job(100, 1000, 64 * MiB, Device::cuda), none).device == Device::cuda);
}

TEST_CASE("device choice: --device auto without a GPU backend is the CPU") {
  MachineFacts none = machine();
  none.gpu = false;
  const DeviceChoice c = choose_backend(sort_job(8, 1000, 64 * MiB), none);
  CHECK(c.device == Device::cpu);
  CHECK(c.reason == DeviceReason::no_gpu);
  // The wide-record rule still says why (plan's text), GPU or not.
  const DeviceChoice wide = choose_backend(sort_job(100, 1000, 64 * MiB), none);
  CHECK(wide.device == Device::cpu);
  CHECK(wide.reason == DeviceReason::wide_records);
}

TEST_CASE("device choice: an in-memory sort of records wider than 64 bytes on 16 threads goes to the CPU") {
  const MachineFacts m = machine(16);
  const DeviceChoice wide = choose_backend(sort_job(100, 1000, 64 * MiB), m);
  CHECK(wide.device == Device::cpu);
  CHECK(wide.reason == DeviceReason::wide_records);
  // 64 bytes is not wider than 64: the GPU (where one is usable).
  const DeviceChoice at64 = choose_backend(sort_job(64, 1000, 64 * MiB), machine(16, records_of(64)));
  CHECK(at64.device == Device::automatic);
  CHECK(at64.reason == DeviceReason::asked);
  // Fewer than 16 threads: the GPU.
  CHECK(choose_backend(sort_job(100, 1000, 64 * MiB), machine(15)).device == Device::automatic);
  CHECK(choose_backend(sort_job(100, 1000, 64 * MiB), machine(64)).device == Device::cpu);
}

TEST_CASE("device choice: the wide-record rule only for a sort the CPU holds in memory") {
  const MachineFacts m = machine(16);
  // 100 MB of 100-byte records in 64 MiB: out of core on the CPU, the GPU's way.
  CHECK(choose_backend(sort_job(100, 1000000, 64 * MiB), m).device == Device::automatic);
  // A stream's size is unknown: no rule.
  PlanRequest stream = sort_job(100, 0, 64 * MiB);
  stream.stream = true;
  CHECK(choose_backend(stream, m).device == Device::automatic);
  // A rank of --distributed keeps --device auto (its exchange may go through the GPU).
  PlanRequest rank = sort_job(100, 1000, 64 * MiB);
  rank.distributed = true;
  const DeviceChoice r = choose_backend(rank, m);
  CHECK(r.device == Device::automatic);
  CHECK(r.reason == DeviceReason::rank_of_distributed);
  // The other commands sort nothing in memory this way.
  for (CommandKind k : {CommandKind::runs, CommandKind::merge, CommandKind::check, CommandKind::reduce, CommandKind::graph_build})
    CHECK(choose_backend(sort_job(100, 1000, 64 * MiB, Device::automatic, k), m).device == Device::automatic);
  // A budget below the CPU sort's minimum: the sort's own error, as its plan would give.
  CHECK_THROWS_AS(choose_backend(sort_job(100, 10, 4096), m), Error);
}

TEST_CASE("device choice: dedupe's sort follows the wide-record rule (keep first included)") {
  const MachineFacts m = machine(16);
  PlanRequest keep_first = sort_job(100, 1000, 64 * MiB, Device::automatic, CommandKind::dedupe);
  const DeviceChoice c = choose_backend(keep_first, m);
  CHECK(c.device == Device::cpu);
  CHECK(c.reason == DeviceReason::wide_records);
  PlanRequest counted = keep_first;
  counted.dedupe.count = true;  // sort, then the group pass: the same sort
  CHECK(choose_backend(counted, m).device == Device::cpu);
  PlanRequest sorted = keep_first;
  sorted.dedupe.assume_sorted = true;  // the group pass alone: nothing sorted
  CHECK(choose_backend(sorted, m).device == Device::automatic);
  CHECK(choose_backend(sort_job(100, 1000, 64 * MiB, Device::automatic, CommandKind::dedupe), machine(8)).device ==
        Device::automatic);
  // A budget too small for any sort: dedupe's own plan says so, not the choice.
  CHECK(choose_backend(sort_job(100, 10, 4096, Device::automatic, CommandKind::dedupe), m).device == Device::automatic);
}

TEST_CASE("device choice: dedupe with the wide-record rule plans on the CPU backend") {
  // The whole flow below the choice: prepare() makes the chosen backend and plans with it.
  EngineOptions opt;
  opt.format = records_of(100);
  opt.memory = parse_size_option("64M", "--memory");
  opt.threads = 16;
  PlanRequest j = plan_request(CommandKind::dedupe, opt, 1000 * 100, false);
  const Prepared p = prepare(opt, j, "/tmp");
  CHECK(p.device.device == Device::cpu);
  CHECK(p.device.reason == DeviceReason::wide_records);
  CHECK(p.backend->name().rfind("cpu", 0) == 0);
  CHECK(p.plan.mode == PlanMode::in_memory);
}

TEST_CASE("device choice: bfs of a graph larger than the GPU searches goes to the CPU") {
  MachineFacts m = machine();
  m.max_device_vertices = 1000;
  PlanRequest bfs;
  bfs.command = CommandKind::bfs;
  bfs.graph_known = true;
  bfs.vertices = 1000;
  CHECK(choose_backend(bfs, m).device == Device::automatic);
  bfs.vertices = 1001;
  const DeviceChoice c = choose_backend(bfs, m);
  CHECK(c.device == Device::cpu);
  CHECK(c.reason == DeviceReason::graph_too_large);
  bfs.graph_known = false;  // before the graph is read: the GPU may search it
  CHECK(choose_backend(bfs, m).device == Device::automatic);
  bfs.graph_known = true;
  bfs.device = Device::cuda;  // asked for: the plan refuses it (plan_bfs)
  CHECK(choose_backend(bfs, m).device == Device::cuda);
}

TEST_CASE("plan: a device merge's windows, from the backend's largest and the window memory") {
  CHECK(device_window_records(0, 64 * MiB, 8) == 0);                // no device merge: the CPU merges
  CHECK(device_window_records(1000, 0, 8) == 1000);                 // no limit: the backend's
  CHECK(device_window_records(1 << 30, 24 * MiB, 8) == MiB);        // 3 windows of 8 MiB
  CHECK(device_window_records(1 << 30, 10, 8) == 1);                // at least one record
  PlanRequest j = sort_job(8, 5 * MiB, 64 * MiB);                           // 40 MiB in 64: runs in memory
  j.sort.sort_bytes_per_record = 16;
  j.window_records = 1 << 30;
  const Plan p = make_plan(j);
  REQUIRE(p.mode == PlanMode::runs_in_memory);
  CHECK(p.window_records == device_window_records(j.window_records, p.window_memory, 8));
  CHECK(p.window_records == (24 * MiB) / (kWindowSlots * 8));
  PlanRequest cpu = j;
  cpu.window_records = 0;
  CHECK(make_plan(cpu).window_records == 0);
  PlanRequest m = sort_job(8, 3000, MiB, Device::automatic, CommandKind::merge);
  m.sort.sort_bytes_per_record = 16;
  m.input_records = {1000, 1000, 1000};
  m.window_records = 1 << 30;
  CHECK(make_plan(m).window_records == MiB / (kWindowSlots * 8));
}

TEST_CASE("plan: a distributed rank's merges hold their windows and buffers") {
  PlanRequest rank = sort_job(8, 0, 64 * MiB);
  rank.sort.sort_bytes_per_record = 16;
  rank.distributed = true;
  rank.window_records = 1 << 30;
  const std::vector<uint64_t> pieces{MiB, 2 * MiB, MiB};  // 32 MiB of u64
  // Held in memory: the windows get what the data leaves; a 4 MiB output buffer.
  const Plan held = plan_rank_merge(rank, pieces, RankMerge::held_in_memory);
  CHECK(held.window_memory == 32 * MiB);
  CHECK(held.window_records == 32 * MiB / (kWindowSlots * 8));
  CHECK(held.memory_merge_buffer_bytes == 4 * MiB);
  CHECK(held.records == 4 * MiB);
  // More than the budget held: the least window memory, 16 MiB.
  PlanRequest small = rank;
  small.sort.memory = 24 * MiB;
  CHECK(plan_rank_merge(small, pieces, RankMerge::held_in_memory).window_memory == 16 * MiB);
  // Read in place (merge --distributed): the budget is the windows'.
  const Plan in_place = plan_rank_merge(rank, pieces, RankMerge::in_place);
  CHECK(in_place.window_memory == 64 * MiB);
  CHECK(in_place.memory_merge_buffer_bytes == 4 * MiB);
  // In files: the merge tree of `merge`, the same as the merge of files of these sizes.
  const Plan files = plan_rank_merge(rank, pieces, RankMerge::files);
  PlanRequest merge = rank;
  merge.command = CommandKind::merge;
  merge.input_records = pieces;
  merge.sort.input_bytes = 32 * MiB;
  const Plan want = make_plan(merge);
  CHECK(files.fan_in == want.fan_in);
  CHECK(files.levels.size() == want.levels.size());
  CHECK(files.merge_buffer_bytes == want.merge_buffer_bytes);
  CHECK(files.merge_threads == want.merge_threads);
  CHECK(files.window_records == want.window_records);
  CHECK(files.window_memory == 64 * MiB);
}

TEST_CASE("plan: a device's resident sort slices, one size for a sort and a distributed rank's device pass") {
  PlanRequest j = sort_job(100, 1000, 64 * MiB);
  j.sort.sort_bytes_per_record = 200;
  const Plan p = make_plan(j);
  REQUIRE(p.mode == PlanMode::in_memory);
  CHECK(p.resident_slice_bytes == (64 * MiB) / 100 * 100);  // whole records, about 64 MiB
  CHECK(p.chunks.chunk_bytes == p.resident_slice_bytes);     // the sort's slices in and out
  // A record wider than a slice: a slice holds one (every command's plan has the size).
  const PlanRequest huge = sort_job(100 << 20, 1, 512 * MiB, Device::automatic, CommandKind::check);
  CHECK(make_plan(huge).resident_slice_bytes == size_t(100) << 20);
}

TEST_CASE("plan: the executors' merge job takes the plan's windows and buffers") {
  EngineOptions opt;
  opt.format = Format::typed(KeyType::u64);
  opt.memory = parse_size_option("64M", "--memory");
  opt.device = Device::cpu;  // runs in memory, merged from buffers (a GPU would hold the input)
  Prepared p = prepare(opt, plan_request(CommandKind::sort, opt, 40 * MiB, false), "/tmp");
  REQUIRE(p.plan.memory_merge_buffer_bytes > opt.format.record_size);
  const MergeSetup job = merge_setup_of(p, opt, p.plan.window_records, p.plan.memory_merge_buffer_bytes);
  CHECK(job.window_records == p.plan.window_records);
  CHECK(job.buffer_bytes == p.plan.memory_merge_buffer_bytes);
  CHECK(job.threads == p.plan.threads);
}

TEST_CASE("memory: --memory resolved one way for every command and a distributed rank") {
  SizeOption none;
  CHECK(resolve_memory(none, 64 * MiB) == 32 * MiB);      // half of the limit
  CHECK(resolve_memory(none, 64 * MiB, 4) == 8 * MiB);    // shared by 4 ranks of one host
  const SizeOption bytes = parse_size_option("10M", "--memory");
  CHECK(resolve_memory(bytes, 64 * MiB, 4) == 10 * MiB);  // as given: not shared
  const SizeOption percent = parse_size_option("25%", "--memory");
  CHECK(resolve_memory(percent, 64 * MiB, 4) == 16 * MiB);
}
