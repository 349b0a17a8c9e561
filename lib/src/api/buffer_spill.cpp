// A host buffer larger than the in-memory API's budget (buffer_spill.hpp): its runs
// and temp files.
#include "api/buffer_spill.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/memory_sort.hpp"
#include "engine/merge.hpp"
#include "io/file.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"

namespace gxsort::api {
namespace {

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

// The n sorted records of `sorted` read back in pieces of `piece` through `buffer` (on
// `threads` threads) and handed to `take` in order.
void take_in_pieces(const io::File& sorted, size_t n, size_t piece, unsigned char* buffer, unsigned threads,
                    const EngineOptions& opt, const TakeRecords& take) {
  const size_t rs = opt.format.record_size;
  for (size_t first = 0, count; first < n; first += count) {
    throw_if_cancelled(opt.cancel);
    count = std::min(piece, n - first);
    sorted.read_at_parallel(buffer, count * rs, uint64_t(first) * rs, threads);
    take(buffer, first, count);
  }
}

}  // namespace

size_t spill_piece_records(uint64_t memory, size_t record_size) {
  return size_t(std::max<uint64_t>(1, memory / 4 / record_size));
}

bool merges_runs(const Plan& plan) {
  return plan.mode == PlanMode::external && plan.run_records > 0;
}

bool merges_once(const Plan& plan) {
  return merges_runs(plan) && plan.levels.size() == 1;
}

void sort_through_runs(Prepared& p, const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt) {
  const std::vector<TreeInput> temp = runs_of_buffer(p, in, n, opt);
  std::vector<RunRef> runs;
  for (const TreeInput& t : temp) runs.push_back(t.ref());
  std::atomic<uint64_t> done{0};
  merge_runs_to_memory(runs_merge_setup(p, opt, 0, done), runs, out);
}

void sort_through_merged_file(Prepared& p, const unsigned char* in, unsigned char* out, size_t n,
                              const EngineOptions& opt) {
  const io::TempFile sorted = merge_into_temp(p, runs_of_buffer(p, in, n, opt), n, opt);
  sorted.file().read_at_parallel(out, uint64_t(n) * opt.format.record_size, 0, p.threads);
}

void sort_through_files(unsigned char* data, size_t n, const EngineOptions& opt, const std::string& dir) {
  const size_t bytes = n * opt.format.record_size;
  io::TempFile in = io::TempFile::create(opt.context, dir, "spill");
  in.file().write_at_parallel(data, bytes, 0, opt.threads);
  io::File sorted;
  const io::TempFile out = sort_spill(in, bytes, opt, dir, sorted);
  sorted.read_at_parallel(data, bytes, 0, opt.threads);
}

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
  take_in_pieces(sorted.file(), n, piece, buffer.get(), p.threads, opt, take);
}

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
  take_in_pieces(sorted, n, piece, buffer.get(), opt.threads, opt, take);
}

}  // namespace gxsort::api
