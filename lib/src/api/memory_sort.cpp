#include "api/memory_sort.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <vector>

#include "device/backend_select.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "io/file.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"

namespace gxsort::api {
namespace {

// The default temp directory of a buffer's spill when neither tmp_dirs nor
// Context::temp_dir names one (a file sort takes its output's; a buffer has none).
constexpr const char* kDefaultSpillDir = "/tmp";

// In memory, as `gxsort sort` sorts a file its plan holds in memory: one sort on the
// backend, in place (the CPU sorts into its scratch and copies back; a GPU copies in
// and out of its memory).
void sort_in_memory(Backend& backend, unsigned char* data, size_t n, const EngineOptions& opt) {
  const uint64_t bytes = uint64_t(n) * opt.format.record_size;
  fit_device_to_sorts(backend, opt.format, n);  // a GPU's arena: this sort's, as sort_file fits it
  HostBuffer scratch = backend.allocate_host(backend.sort_scratch_bytes(opt.format, n));
  throw_if_cancelled(opt.cancel);
  backend.sort_chunk(opt.format, data, n, scratch.data());
  if (opt.progress) opt.progress({"sort", bytes, bytes});
}

// Out of core: the records are in the private temp file `in` (`bytes` of them);
// sort_file sorts it into a second one in `dir` with the budget (its runs in the same
// directories), `in` is removed, and the second is returned, its records opened for
// reading in `sorted`. Both files are this process's temp files: removed on every path,
// signals included, and never a resumable job (engine/job.cpp).
io::TempFile sort_spill(io::TempFile& in, uint64_t bytes, const EngineOptions& opt, const std::string& dir,
                        io::File& sorted) {
  io::TempFile out = io::TempFile::create(opt.context, dir, "spill");  // the sorted output is renamed over it
  EngineOptions file_opt = opt;
  file_opt.fsync = false;  // read back at once, then removed
  sort_file(in.path(), out.path(), file_opt);
  in.remove();
  sorted = io::File::open_read(out.path());
  if (sorted.size() != bytes) fail_io(out.path() + ": the sorted spill file has the wrong size");
  return out;
}

// A buffer out of core: written to a temp file, sorted there, read back. `data` is
// written only by the read-back, after the sort succeeded: a cancelled or failed sort
// leaves it untouched.
void sort_through_files(unsigned char* data, size_t n, const EngineOptions& opt, const std::string& dir) {
  const size_t bytes = n * opt.format.record_size;
  io::TempFile in = io::TempFile::create(opt.context, dir, "spill");
  in.file().write_at_parallel(data, bytes, 0, opt.threads);
  io::File sorted;
  const io::TempFile out = sort_spill(in, bytes, opt, dir, sorted);
  sorted.read_at_parallel(data, bytes, 0, opt.threads);
}

// The runs' space, spread over the temp directories, checked before any is written (as
// sort_file's preflight): a full disk is one line up front, not a failed write mid-merge.
void check_runs_space(const Prepared& p) {
  std::vector<io::SpaceNeed> needs;
  for (const std::string& d : p.tmp_dirs)
    needs.push_back({d, (p.plan.temp_bytes + p.tmp_dirs.size() - 1) / p.tmp_dirs.size(), "temporary runs"});
  io::check_space(p.context, needs);
}

// Puts records [first, first + count) of the input, sorted, in `run` (room for a run).
using SortRun = std::function<void(size_t first, size_t count, unsigned char* run)>;

// Run formation from memory: each run of the plan's size sorted by sort_run into a host
// buffer (pinned on a GPU backend) and written to a private temp file of its own, which
// the merge drops as it reads it.
std::vector<TreeInput> write_sorted_runs(Prepared& p, size_t n, const EngineOptions& opt, const SortRun& sort_run) {
  check_runs_space(p);
  const size_t rs = opt.format.record_size, per_run = p.plan.run_records;
  HostBuffer sorted = p.backend->allocate_host(per_run * rs);
  std::vector<TreeInput> runs;
  for (size_t first = 0; first < n; first += per_run) {
    throw_if_cancelled(opt.cancel);
    const size_t count = std::min(per_run, n - first);
    sort_run(first, count, sorted.data());
    const std::string& dir = p.tmp_dirs[runs.size() % p.tmp_dirs.size()];
    TreeInput run;
    run.temp = std::make_shared<io::TempFile>(io::TempFile::create(opt.context, dir, "run"));
    run.temp->file().write_at_parallel(sorted.data(), count * rs, 0, p.threads);
    run.records = count;
    runs.push_back(std::move(run));
    if (opt.progress) opt.progress({"runs", (first + count) * rs, uint64_t(n) * rs});
  }
  return runs;
}

// The runs of a caller's buffer `in`: each sorted from there into the run buffer. (The
// device's arena stays as the plan found it: its merge windows are sized to it.)
std::vector<TreeInput> runs_of_buffer(Prepared& p, const unsigned char* in, size_t n, const EngineOptions& opt) {
  return write_sorted_runs(p, n, opt, [&](size_t first, size_t count, unsigned char* run) {
    p.backend->sort_into(opt.format, in + first * opt.format.record_size, run, count);
  });
}

// The merge of the runs of p.plan (--ooc merge), on the device in windows of
// `window_records` (0: on the CPU).
MergeSetup runs_merge_setup(const Prepared& p, const EngineOptions& opt, uint64_t window_records,
                            std::atomic<uint64_t>& done) {
  MergeSetup job = merge_setup_of(p, opt, window_records, std::max<size_t>(p.plan.merge_buffer_bytes, kMinMergeBuffer));
  job.threads = std::max(1u, p.plan.merge_threads);
  job.done_bytes = &done;
  job.total_bytes = p.plan.records * opt.format.record_size;
  return job;
}

// Whether a plan (--ooc merge) merges its runs in one level: sort_through_runs' case.
bool merges_once(const Plan& plan) {
  return plan.mode == PlanMode::external && plan.levels.size() == 1 && plan.run_records > 0;
}

// A sorted copy larger than the budget, in one merge (merges_once(p.plan)): runs formed
// from `in`, then merged from their files into `out`. The disk holds one copy of the
// records, written and read once.
void sort_through_runs(Prepared& p, const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt) {
  const std::vector<TreeInput> temp = runs_of_buffer(p, in, n, opt);
  std::vector<RunRef> runs;
  for (const TreeInput& t : temp) runs.push_back(t.ref());
  std::atomic<uint64_t> done{0};
  merge_runs_to_memory(runs_merge_setup(p, opt, 0, done), runs, out);
}

// The runs merged level by level into a private temp file, returned once the merge
// succeeded. The merges drop what they have read: the disk holds about one copy of the
// records at a time.
io::TempFile merge_into_temp(const Prepared& p, std::vector<TreeInput> runs, size_t n, const EngineOptions& opt) {
  io::TempFile sorted = io::TempFile::create(opt.context, p.tmp_dirs[0], "spill");
  std::atomic<uint64_t> done{0};
  const MergeSetup job = runs_merge_setup(p, opt, p.plan.window_records, done);
  uint64_t records = 0;
  merge_tree_to(job, std::move(runs), p.plan.fan_in, p.tmp_dirs, sorted.file(), 0,
                [&](size_t, double, uint64_t) { done = 0; }, &records);
  if (records != n) fail_io(sorted.path() + ": the merged spill file has " + std::to_string(records) + " records, not " +
                            std::to_string(n));
  throw_if_cancelled(opt.cancel);
  return sorted;
}

// Larger than the budget, in place or in more than one merge level (an external plan):
// runs formed from `in`, merged into a temp file, which is read into `out`: `out` is
// written only after the merge succeeded (a cancelled or failed sort leaves an array
// sorted in place untouched).
void sort_through_merged_file(Prepared& p, const unsigned char* in, unsigned char* out, size_t n,
                              const EngineOptions& opt) {
  const io::TempFile sorted = merge_into_temp(p, runs_of_buffer(p, in, n, opt), n, opt);
  sorted.file().read_at_parallel(out, uint64_t(n) * opt.format.record_size, 0, p.threads);
}

// opt.device for a host buffer of `bytes` (host_buffer_device); the caller's current
// CUDA device, kept where the sort may use a GPU.
std::shared_ptr<void> choose_host_device(EngineOptions& opt, uint64_t bytes) {
  opt.device = host_buffer_device(opt.device, bytes, opt.threads);
  return opt.device == Device::cpu ? nullptr : keep_current_device();
}

// Whether a host sort of n records is in memory under any budget, so that it can skip
// prepare()'s probe of the machine (its cgroup and /proc files: tens of microseconds, more
// than a sort of a thousand records): no memory= given, the CPU's, and its need within
// kMinMemory, the least budget a plan takes (a default budget is half the memory limit of
// a running process: more than that).
bool held_under_any_budget(const EngineOptions& opt, size_t n) {
  return !opt.memory.given && opt.device == Device::cpu &&
         uint64_t(n) * cpu_sort_bytes_per_record(opt.format) <= kMinMemory;
}

// The CPU backend of a held_under_any_budget sort.
std::unique_ptr<Backend> small_sort_backend(const EngineOptions& opt) {
  std::unique_ptr<Backend> cpu = make_backend(Device::cpu, resolve_threads(opt.threads), opt.device_memory);
  cpu->set_context(opt.context);
  return cpu;
}

// An in-memory sort from `in` into `out` (the same buffer: in place) on `backend`.
void sort_held(Backend& backend, const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt) {
  if (out == in) return sort_in_memory(backend, out, n, opt);
  const uint64_t bytes = uint64_t(n) * opt.format.record_size;
  fit_device_to_sorts(backend, opt.format, n);
  throw_if_cancelled(opt.cancel);
  backend.sort_into(opt.format, in, out, n);
  if (opt.progress) opt.progress({"sort", bytes, bytes});
}

// The records of a spilled sort_made_records go in and come out in pieces of this many:
// a quarter of the budget, at least one record.
size_t spill_piece_records(uint64_t memory, size_t record_size) {
  return size_t(std::max<uint64_t>(1, memory / 4 / record_size));
}

// sort_made_records out of core: the records made piece by piece into a temp file,
// sorted there, and read back piece by piece; never all in memory.
void made_records_through_files(size_t n, const EngineOptions& opt, const std::string& dir, size_t piece,
                                const FillRecords& fill, const TakeRecords& take) {
  const size_t rs = opt.format.record_size;
  const std::unique_ptr<unsigned char[]> buffer = host_bytes(std::min(n, piece) * rs);
  io::TempFile in = io::TempFile::create(opt.context, dir, "spill");
  for (size_t first = 0, count; first < n; first += count) {
    throw_if_cancelled(opt.cancel);
    count = std::min(piece, n - first);
    fill(buffer.get(), first, count);
    in.file().write_at_parallel(buffer.get(), count * rs, uint64_t(first) * rs, opt.threads);
  }
  io::File sorted;
  const io::TempFile out = sort_spill(in, uint64_t(n) * rs, opt, dir, sorted);
  for (size_t first = 0, count; first < n; first += count) {
    throw_if_cancelled(opt.cancel);
    count = std::min(piece, n - first);
    sorted.read_at_parallel(buffer.get(), count * rs, uint64_t(first) * rs, opt.threads);
    take(buffer.get(), first, count);
  }
}

// sort_made_records past the budget (an external plan): each run made by `fill` in the run
// buffer and sorted there, the runs merged into a temp file (merge_into_temp), read back
// piece by piece into `take`. The records are never all in memory.
void made_records_through_runs(Prepared& p, size_t n, const EngineOptions& opt, const FillRecords& fill,
                               const TakeRecords& take) {
  const Format& f = opt.format;
  HostBuffer scratch = p.backend->allocate_host(p.backend->sort_scratch_bytes(f, p.plan.run_records));
  std::vector<TreeInput> runs = write_sorted_runs(p, n, opt, [&](size_t first, size_t count, unsigned char* run) {
    fill(run, first, count);
    p.backend->sort_chunk(f, run, count, scratch.data());
  });
  scratch = HostBuffer();
  const io::TempFile sorted = merge_into_temp(p, std::move(runs), n, opt);
  const size_t piece = spill_piece_records(p.memory, f.record_size);
  const std::unique_ptr<unsigned char[]> buffer = host_bytes(std::min(n, piece) * f.record_size);
  for (size_t first = 0, count; first < n; first += count) {
    throw_if_cancelled(opt.cancel);
    count = std::min(piece, n - first);
    sorted.file().read_at_parallel(buffer.get(), count * f.record_size, uint64_t(first) * f.record_size, p.threads);
    take(buffer.get(), first, count);
  }
}

}  // namespace

EngineOptions engine_options(const Format& f, const MemoryOptions& o) {
  EngineOptions opt;
  opt.format = f;
  opt.memory = o.memory;
  opt.threads = o.threads;
  opt.device = o.device;
  opt.device_index = o.device_index;
  opt.device_memory = o.device_memory;
  opt.tmp_dirs = o.tmp_dirs;
  opt.cancel = o.cancel;
  opt.progress = o.progress;
  opt.context = o.context;
  return opt;
}

Device host_buffer_device(Device asked, uint64_t bytes, unsigned threads) {
  if (asked != Device::automatic || bytes > kCpuBytesPerThread * std::max(1u, threads)) return asked;
  return Device::cpu;
}

void sort_host(unsigned char* data, size_t n, const EngineOptions& given) {
  sort_host_copy(data, data, n, given);
}

void sort_host_copy(const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& given) {
  throw_if_cancelled(given.cancel);
  given.format.validate();
  const uint64_t bytes = uint64_t(n) * given.format.record_size;
  if (n < 2) {
    if (out != in) std::memcpy(out, in, bytes);
    return;
  }
  EngineOptions opt = given;
  const std::shared_ptr<void> caller_device = choose_host_device(opt, bytes);
  if (held_under_any_budget(opt, n)) return sort_held(*small_sort_backend(opt), in, out, n, opt);
  opt.ooc = OocMethod::merge;  // past the budget: runs from the buffer, merged
  Prepared p = prepare(opt, bytes, kDefaultSpillDir);
  if (p.plan.mode == PlanMode::in_memory) return sort_held(*p.backend, in, out, n, opt);
  if (out != in && merges_once(p.plan)) return sort_through_runs(p, in, out, n, opt);
  if (p.plan.mode == PlanMode::external && p.plan.run_records > 0) return sort_through_merged_file(p, in, out, n, opt);
  // Runs kept in memory (the records fit the budget, their sort's scratch does not):
  // sort_file's own way, on a spill file.
  const std::string dir = p.tmp_dirs[0];
  opt.tmp_dirs = p.tmp_dirs;
  opt.ooc = given.ooc;
  p = Prepared();  // its backend (a GPU's arena) goes before the file sort makes its own
  if (out != in) io::parallel_copy(out, in, bytes, opt.threads);
  sort_through_files(out, n, opt, dir);
}

void sort_made_records(size_t n, const EngineOptions& given, const FillRecords& fill, const TakeRecords& take) {
  throw_if_cancelled(given.cancel);
  given.format.validate();
  const size_t bytes = records_bytes(n, given.format);
  EngineOptions opt = given;
  const std::shared_ptr<void> caller_device = choose_host_device(opt, bytes);
  Prepared p;
  const bool held = n < 2 || held_under_any_budget(opt, n);
  if (held && n >= 2) p.backend = small_sort_backend(opt);
  opt.ooc = OocMethod::merge;  // past the budget: runs made in memory, merged
  if (!held) p = prepare(opt, bytes, kDefaultSpillDir);
  if (held || p.plan.mode == PlanMode::in_memory) {
    const std::unique_ptr<unsigned char[]> records = host_bytes(bytes);
    fill(records.get(), 0, n);
    if (n >= 2) sort_in_memory(*p.backend, records.get(), n, opt);
    return take(records.get(), 0, n);
  }
  if (p.plan.mode == PlanMode::external && p.plan.run_records > 0)
    return made_records_through_runs(p, n, opt, fill, take);
  const std::string dir = p.tmp_dirs[0];
  opt.tmp_dirs = p.tmp_dirs;
  opt.ooc = given.ooc;
  const size_t piece = spill_piece_records(p.memory, given.format.record_size);
  p = Prepared();  // as sort_host's
  made_records_through_files(n, opt, dir, piece, fill, take);
}

std::unique_ptr<unsigned char[]> host_bytes(size_t bytes) {
  try {
    return std::unique_ptr<unsigned char[]>(new unsigned char[bytes ? bytes : 1]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(bytes);
  }
}

size_t records_bytes(size_t n, const Format& f) {
  if (f.record_size && n > SIZE_MAX / f.record_size)
    fail_usage(std::to_string(n) + " records of " + std::to_string(f.record_size) + " bytes do not fit in memory");
  return n * f.record_size;
}

}  // namespace gxsort::api
