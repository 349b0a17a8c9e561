// The sort of an open input as its Plan says (sort_input, engine/sort.hpp): a regular
// file through the plan's mode, a stream through runs; the in-memory modes are in
// engine/sort_in_memory.cpp.
#include "engine/sort.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>

#include "gxsort/timeline.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "parallel/background_tasks.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "platform/sizes.hpp"
#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/whole_progress.hpp"
#include "engine/merge.hpp"
#include "engine/partition_sort.hpp"
#include "engine/run_formation.hpp"
#include "engine/sort_in_memory.hpp"
#include "kernels/unique.hpp"

namespace gxsort {
namespace {

void check_tmp_dirs(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) io::require_writable_dir(d, "temporary");
}

// Space preflight: the output (a full copy beside the target until the rename) and
// the temp runs, spread evenly over the temp directories.
void preflight(const Prepared& p, const std::string& out_dir, uint64_t output_bytes) {
  std::vector<io::SpaceNeed> needs{{out_dir, output_bytes, "the output"}};
  if (p.plan.mode == PlanMode::external)
    for (const auto& d : p.tmp_dirs)
      needs.push_back({d, (p.plan.temp_bytes + p.tmp_dirs.size() - 1) / p.tmp_dirs.size(), "temporary runs"});
  if (p.plan.mode == PlanMode::partition)  // bucket b goes to directory b % dirs
    for (size_t i = 0; i < p.tmp_dirs.size(); ++i) {
      const uint64_t share = (p.plan.buckets - i + p.tmp_dirs.size() - 1) / p.tmp_dirs.size();
      needs.push_back({p.tmp_dirs[i], p.plan.temp_bytes / p.plan.buckets * share, "temporary buckets"});
    }
  io::check_space(p.context, needs);
}

// Merges run files by the merge levels of `plan` into `out` from byte out_offset;
// returns the records written. With `st`, the merge levels are recorded there (and
// out_offset is 0: the whole output).
uint64_t merge_run_files(Prepared& p, const Plan& plan, std::vector<TreeInput> runs, const EngineOptions& opt,
                         const io::File& out, uint64_t out_offset, RunStats* st, SortJob* sort_job = nullptr) {
  std::atomic<uint64_t> done{0};
  MergeSetup job = merge_setup_of(p, opt, plan.window_records, plan.merge_buffer_bytes);
  job.threads = plan.merge_threads;
  // Runs too large for the page cache: the levels go around it, and so does the
  // output when it is synced anyway (the whole output only: O_DIRECT needs aligned
  // offsets).
  job.direct_temp = plan.direct_io;
  job.direct_output = plan.direct_output && opt.fsync && out_offset == 0 && st;
  job.done_bytes = &done;
  job.total_bytes = plan.records * opt.format.record_size;
  MergeSetup::StageSeconds stages;
  job.stage_seconds = &stages;
  uint64_t kept = 0;
  const size_t levels = merge_tree_to(job, std::move(runs), plan.fan_in, p.tmp_dirs, out, out_offset,
                                      [&](size_t level, double secs, uint64_t b) {
                                        if (st) st->phases.push_back({"merge level " + std::to_string(level), secs, b, b});
                                        done = 0;
                                      }, &kept, sort_job);
  if (st) st->merge_levels = levels;
  if (st) st->merge_stages = window_stages(stages);
  // Where the last merge's time goes besides the merge itself: a journalled one's
  // checkpoints, and the removal of its inputs (what is left of them in the page cache).
  if (st && sort_job) {
    st->merge_stages.push_back({"checkpoints (journal, punching; own thread)", stages.checkpoints, 0, 0});
    st->merge_stages.push_back({"wait for the checkpoints", stages.checkpoint_wait, 0, 0});
  }
  if (st) st->merge_stages.push_back({"remove the last merge's inputs", stages.release, 0, 0});
  return kept;
}

// Sorts all of `in` through sorted runs, as `plan` (runs-in-memory or external) says,
// into `out` from byte out_offset; returns the records written. With `st`, the phases
// and merge levels are recorded there (out_offset is then 0: the whole output).
uint64_t sort_through_runs(Prepared& p, const Plan& plan, const io::File& in, const EngineOptions& opt,
                           const io::File& out, uint64_t out_offset, RunStats* st, SortJob* job = nullptr) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = plan.input_bytes;
  auto phase = [&](const std::string& name, double secs, uint64_t r, uint64_t w) {
    if (st) st->phases.push_back({name, secs, r, w});
  };
  if (plan.mode == PlanMode::runs_in_memory) {
    // Chunks sorted in place inside one buffer; the next chunk is read while one sorts.
    auto t0 = Clock::now();
    HostBuffer data = p.backend->allocate_host(size_t(bytes));
    HostBuffer scratch = p.backend->allocate_host(p.backend->sort_scratch_bytes(f, plan.run_records));
    std::vector<RunRef> runs;
    uint64_t first = 0;
    for (uint64_t cnt : plan.run_sizes) {
      RunRef r;
      r.mem = data.data() + first * rs;
      r.records = cnt;
      r.name = in.path();
      runs.push_back(r);
      first += cnt;
    }
    auto read_run = [&](size_t i) {
      in.read_at_parallel(const_cast<unsigned char*>(runs[i].mem), runs[i].records * rs, uint64_t(runs[i].mem - data.data()), p.threads);
    };
    read_run(0);
    parallel::BackgroundTasks read_ahead(1);  // after the buffers: its read ends before they go
    for (size_t i = 0; i < runs.size(); ++i) {
      std::future<void> next;
      if (i + 1 < runs.size()) next = read_ahead.submit([&, i] { read_run(i + 1); });
      auto* run = const_cast<unsigned char*>(runs[i].mem);
      throw_if_cancelled(opt.cancel);
      p.backend->sort_chunk(f, run, runs[i].records, scratch.data());
      const uint64_t end = uint64_t(run - data.data()) + runs[i].records * rs;
      if (opt.unique) runs[i].records = unique_in_place(f, run, runs[i].records);
      if (next.valid()) next.get();
      if (opt.progress) opt.progress({"sort runs", end, bytes});
    }
    phase("sort runs", since(t0), bytes, 0);
    auto t1 = Clock::now();
    std::atomic<uint64_t> done{0};
    MergeSetup job = merge_setup_of(p, opt, plan.window_records, plan.memory_merge_buffer_bytes);
    job.done_bytes = &done;
    job.total_bytes = bytes;
    const uint64_t kept = merge_runs(job, runs, out, out_offset);
    if (st) st->merge_levels = 1;
    phase("merge", since(t1), 0, bytes);
    return kept;
  }
  RunFormation rf;
  {
    const auto t_alloc = Clock::now();
    RunBuffers buffers(*p.backend, f, plan.run_records, plan.chunks.slots);
    const double allocate_seconds = since(t_alloc);
    RunSource src;
    src.total_bytes = bytes;
    src.run_records = plan.run_records;
    src.direct_io = plan.direct_io;
    src.unique = opt.unique;
    if (opt.fsync) src.early_writeback = opt.context.tuning.runs_early_writeback.value_or(plan.early_writeback_bytes);
    src.job = job;
    src.parts = RunParts::of(plan);
    rf = form_run_files(p, buffers, src, in, f, opt.progress);
    if (st) st->run_stages = run_stages(allocate_seconds, rf);
  }
  phase("sort runs", rf.seconds, bytes, bytes);
  return merge_run_files(p, plan, std::move(rf.runs), opt, out, out_offset, st, job);
}

// A stream (a pipe, FIFO, device or standard input) has no size until it ends. Its
// first run-sized chunk is read whole: if the stream ends inside it, that chunk is
// sorted in memory and written out. Otherwise every chunk becomes a run in a temp file
// (read, sort and write overlapped) and the runs are merged, as the external plan
// merges runs of the same size.
RunStats sort_stream(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p,
                     Clock::time_point t_start) {
  if (opt.resume) fail_usage(in.path() + ": " + option_ref("resume") + " needs a regular input file (a stream cannot be read again)");
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const size_t run_records = p.plan.run_records;
  io::Output out = io::Output::open(opt.context, output, p.tmp_dirs[0], "out", output_header(opt, opt.format.record_size));
  out.start_write_behind(opt.fsync, opt.cancel);
  check_tmp_dirs(p.tmp_dirs);
  RunStats st;
  st.command = "sort";
  st.backend = p.backend->name();
  st.phases.push_back({"open and start the device", since(t_start), 0, 0});

  std::optional<RunBuffers> buffers;
  const auto t_alloc = Clock::now();
  buffers.emplace(*p.backend, f, run_records, p.plan.chunks.slots);
  const double allocate_seconds = since(t_alloc);
  auto t0 = Clock::now();
  const size_t first = in.read_stream(buffers->slots[0].data(), buffers->run_bytes);
  throw_if_cancelled(opt.cancel);
  if (first < buffers->run_bytes) {
    const size_t n = size_t(checked_record_count(in.path(), first, f));
    unsigned char* data = buffers->slots[0].data();
    p.backend->sort_chunk(f, data, n, buffers->scratch.data());
    const size_t kept = opt.unique ? unique_in_place(f, data, n) : n;
    io::check_space(opt.context, {{out.space_dir(), kept * rs, "the output"}});
    out.file().write_at(data, kept * rs, 0);
    st.mode = "in-memory (stream)";
    st.records = n;
    st.input_bytes = first;
    st.output_bytes = kept * rs;
    st.runs = n ? 1 : 0;
    st.phases.push_back({"read and sort", since(t0), first, kept * rs});
  } else {
    RunSource src;
    src.total_bytes = pipeline::kUntilEnd;
    src.run_records = run_records;
    src.direct_io = p.plan.direct_io;
    src.preloaded_bytes = first;
    src.unique = opt.unique;
    RunFormation rf = form_run_files(p, *buffers, src, in, f, opt.progress);
    buffers.reset();  // the merge takes the budget
    st.run_stages = run_stages(allocate_seconds, rf);
    st.phases.push_back({"sort runs", rf.seconds, rf.input_bytes, rf.input_bytes});
    // The merge is planned when the stream has ended: a merge of the runs it gave.
    PlanRequest merge = p.job;
    merge.command = CommandKind::merge;
    merge.stream = true;  // a stream's runs: planned as the external sort's merge
    merge.sort.input_bytes = rf.input_bytes;
    merge.sort.ooc = OocMethod::merge;
    for (const TreeInput& r : rf.runs) merge.input_records.push_back(r.records);
    const Plan plan = make_plan(merge);
    // The runs are on the disk already: what the merge levels add beyond them.
    const uint64_t more = plan.temp_bytes - std::min(plan.temp_bytes, rf.input_bytes);
    std::vector<io::SpaceNeed> needs{{out.space_dir(), rf.input_bytes, "the output"}};
    for (const auto& d : p.tmp_dirs) needs.push_back({d, more / p.tmp_dirs.size(), "temporary runs"});
    io::check_space(opt.context, needs);
    st.mode = "external (stream)";
    st.records = plan.records;
    st.input_bytes = rf.input_bytes;
    st.runs = rf.runs.size();
    // The merge levels report to the job's progress: its runs are formed already.
    WholeProgress job_progress(opt.progress, merge_stages(plan), 2 * rf.input_bytes);
    EngineOptions merge_opt = opt;
    merge_opt.progress = job_progress.fn();
    st.output_bytes = merge_run_files(p, plan, std::move(rf.runs), merge_opt, out.file(), 0, &st) * rs;
  }
  commit_outputs({&out}, st, t_start, opt);
  return st;
}

RunStats sort_file_prepared(io::File& in, const std::string& output, const EngineOptions& given, Prepared& p,
                            Clock::time_point t_start);

}  // namespace

Prepared prepare_sort(io::File& in, const EngineOptions& opt, const std::string& default_tmp_dir) {
  if (in.is_stream()) return prepare(opt, plan_request(CommandKind::sort, opt, 0, true), default_tmp_dir);
  // Every plan reads the input from its start: a cold disk starts on it while the
  // device starts and the plan is made (0.3-0.4 s on the H100 host).
  in.prefetch(0, uint64_t(256) << 20);
  PlanRequest job = plan_request(CommandKind::sort, opt, in.size(), false, in.path());
  job.hold_runs = true;  // sort_through_runs holds the plan's last runs
  return prepare(opt, std::move(job), default_tmp_dir);
}

RunStats sort_prepared(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p,
                       Clock::time_point t_start) {
  if (in.is_stream()) return sort_stream(in, output, opt, p, t_start);
  RunStats st = sort_file_prepared(in, output, opt, p, t_start);
  timeline(opt.context, "sort ended (its output closed)");
  return st;
}

RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt) {
  const auto t_start = Clock::now();
  RunStats st;
  {
    Prepared p = prepare_sort(in, opt, default_temp_dir(output));
    st = sort_prepared(in, output, opt, p, t_start);
  }
  timeline(opt.context, "its backend freed");
  return st;
}

RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p) {
  if (in.is_stream()) return sort_stream(in, output, opt, p, Clock::now());
  in.prefetch(0, uint64_t(256) << 20);
  return sort_file_prepared(in, output, opt, p, Clock::now());
}

namespace {

// The sort of a regular file as p.plan says; t_start: when its preparation began.
RunStats sort_file_prepared(io::File& in, const std::string& output, const EngineOptions& given, Prepared& p,
                            Clock::time_point t_start) {
  const uint64_t bytes = in.size();
  const double t_prepare = since(t_start);
  // Every phase reports to the whole job's progress, weighed by the plan.
  WholeProgress job_progress(given.progress, sort_stages(p.plan));
  EngineOptions opt = given;
  opt.progress = job_progress.fn();
  const Format& f = opt.format;
  if (p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition) check_tmp_dirs(p.tmp_dirs);
  // Unmaps the in-memory sort's input while the output's fsync waits for the disk (the
  // 2 GiB mapping took 50 ms to unmap on the 2-core VM, time in which the CPUs are idle
  // otherwise). Declared before `out`: joined after its commit, or on any error.
  BackgroundUnmap input_unmap;
  io::Output out = io::Output::open(p.context, output, p.tmp_dirs[0], "out", output_header(opt, opt.format.record_size));
  preflight(p, out.space_dir(), bytes);

  RunStats st;
  st.command = "sort";
  st.backend = p.backend->name();
  st.mode = plan_mode_name(p.plan.mode);
  st.records = p.plan.records;
  st.input_bytes = st.output_bytes = bytes;
  st.runs = p.plan.runs;
  st.phases.push_back({"open and start the device", t_prepare, 0, 0});
  out.start_write_behind(opt.fsync, opt.cancel);  // (measured slower without it, even unsynced)

  std::unique_ptr<SortJob> job;
  std::unique_ptr<DeviceResidentSort> resident;
  if (p.plan.mode == PlanMode::in_memory) {
    // The device holds nothing but this sort: its arena is fitted to it before anything
    // is reserved (the default budget, 80% of an H200, took 0.19 s to reserve and 0.08 s
    // to free; 16 GiB 0.003 and 0.013 s).
    fit_device_to_sorts(*p.backend, f, p.plan.records);
    resident = p.backend->begin_resident_sort(f, size_t(p.plan.records));
  }
  if (resident) {
    st.output_bytes = sort_resident(p, *resident, in, opt, out, st);
    resident.reset();
    timeline(opt.context, "device sort freed");
  } else if (p.plan.mode == PlanMode::in_memory) {
    st.output_bytes = sort_mapped(p, in, opt, out, input_unmap, st);
  } else if (p.plan.mode == PlanMode::partition) {
    // A bucket the sample misjudged past the in-memory sort goes through runs: its own
    // plan, as if it were the input.
    auto sort_large = [&](const io::File& bucket, uint64_t records, uint64_t out_offset) {
      PlanRequest bucket_job = p.job;  // (dedupe's too: its sort is the sort of this job)
      bucket_job.command = CommandKind::sort;
      bucket_job.sort.input_bytes = records * f.record_size;
      bucket_job.sort.ooc = OocMethod::merge;
      return sort_through_runs(p, make_plan(bucket_job), bucket, opt, out.file(), out_offset, nullptr);
    };
    st.buckets = p.plan.buckets;
    job = SortJob::open(p, in, output, opt);  // resumable (engine/job.hpp)
    if (job) job->adopt_output(out);
    st.output_bytes = partition_sort(p, in, f, opt.unique, opt.progress, out.file(), sort_large, st.phases, job.get()) *
                      f.record_size;
  } else {
    // An out-of-core sort is a job a killed run may resume (--resume): its runs and
    // merge outputs are journalled pieces (engine/job.hpp).
    job = SortJob::open(p, in, output, opt);
    if (job) job->adopt_output(out);
    st.output_bytes = sort_through_runs(p, p.plan, in, opt, out.file(), 0, &st, job.get()) * f.record_size;
  }
  in.check_unchanged();  // a file that changed under the sort: fail before the commit
  if (job) {
    st.resumed = job->summary();
    st.discarded = job->discarded();
  }
  commit_outputs({&out}, st, t_start, opt);
  if (job) job->finish();  // after the commit: killed in between, a resume merges into the output again
  return st;
}

}  // namespace

}  // namespace gxsort
