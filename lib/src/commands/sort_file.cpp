// sort and plan: the sort command executing its Plan, for files and for streams.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <future>
#include <optional>
#include <thread>

#include "gxsort/timeline.hpp"
#include "io/mapped_file.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "parallel/background_tasks.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "platform/sizes.hpp"
#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/job_progress.hpp"
#include "engine/merge.hpp"
#include "engine/partition_sort.hpp"
#include "engine/resident_output.hpp"
#include "engine/run_formation.hpp"
#include "commands/resume_plan.hpp"
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
  MergeJob job = merge_job_of(p, opt, plan.window_records, plan.merge_buffer_bytes);
  job.threads = plan.merge_threads;
  // Runs too large for the page cache: the levels go around it, and so does the
  // output when it is synced anyway (the whole output only: O_DIRECT needs aligned
  // offsets).
  job.direct_temp = plan.direct_io;
  job.direct_output = plan.direct_output && opt.fsync && out_offset == 0 && st;
  job.done_bytes = &done;
  job.total_bytes = plan.records * opt.format.record_size;
  MergeJob::StageSeconds stages;
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
    MergeJob job = merge_job_of(p, opt, plan.window_records, plan.memory_merge_buffer_bytes);
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
    src.job = job;
    rf = form_run_files(p, buffers, src, in, f, opt.progress);
    if (st) st->run_stages = run_stages(allocate_seconds, rf);
  }
  phase("sort runs", rf.seconds, bytes, bytes);
  return merge_run_files(p, plan, std::move(rf.runs), opt, out, out_offset, st, job);
}

// Unmaps a mapping on its own thread; the destructor waits for it.
class BackgroundUnmap {
 public:
  BackgroundUnmap() = default;
  BackgroundUnmap(const BackgroundUnmap&) = delete;
  BackgroundUnmap& operator=(const BackgroundUnmap&) = delete;
  ~BackgroundUnmap() {
    if (thread_.joinable()) thread_.join();
  }
  void start(io::MappedFile m) {
    thread_ = std::thread([m = std::move(m)]() mutable { m.unmap(); });
  }

 private:
  std::thread thread_;
};

// An in-memory sort on a device that holds all the records: slices stream file ->
// device through a few pinned slots, the scheduler overlapping the file reads with the
// copies in; out, every thread copies its own part of the output through its piece of
// the slots (engine/resident_output.hpp). The output is written through a mapping: one
// file's buffered writes are serialized by the kernel, and one thread filling the page
// cache took 1.1-2.1 s of 4 GiB on the H100 host; the mapping is sized and pre-faulted
// while the input is read. Returns the output bytes.
uint64_t sort_resident(Prepared& p, DeviceResidentSort& resident, const io::File& in, const EngineOptions& opt,
                       io::Output& out, RunStats& st) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = p.plan.input_bytes;
  auto t0 = Clock::now();
  std::optional<io::MappedRange> dst;
  parallel::BackgroundTasks mapper(1);
  std::future<void> mapped = mapper.submit([&] { dst.emplace(out.file(), 0, bytes, p.threads); });
  const size_t slice = p.plan.chunks.chunk_bytes;
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (unsigned s = 0; s < p.plan.chunks.slots; ++s) {
    buffers.push_back(p.backend->allocate_host(std::min<uint64_t>(slice, bytes)));
    slots.push_back(buffers.back().data());
  }
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = size_t(std::min<uint64_t>(slice, bytes));
  cfg.phase = "read";
  cfg.cancel = opt.cancel;
  pipeline::Stages in_st;
  in_st.read = [&](pipeline::Chunk& c) {
    in.prefetch(c.offset + c.bytes, 2 * slice);  // a cold file: the disk reads on while this slice copies
    in.read_at_parallel(c.data, c.bytes, c.offset, p.threads);
  };
  in_st.compute = [&](pipeline::Chunk& c) { resident.load(c.data, c.offset / rs, c.bytes / rs); };
  pipeline::run_chunks(cfg, slots, in_st, opt.progress);
  const double t_read = since(t0);
  auto t1 = Clock::now();
  throw_if_cancelled(opt.cancel);
  resident.sort();
  mapped.get();
  throw_if_cancelled(opt.cancel);
  const double t_sort = since(t1);
  auto t2 = Clock::now();
  uint64_t written = bytes;
  if (!opt.unique) {
    unload_in_parts(resident, rs, p.plan.records, *dst, slots, cfg.chunk_bytes, p.threads, opt.progress);
  } else {
    // -u: where a slice's records land depends on the duplicates of every slice before
    // it, so the slices go out in order.
    pipeline::Stages out_st;
    out_st.read = [&](pipeline::Chunk& c) { resident.unload(c.data, c.offset / rs, c.bytes / rs); };
    written = 0;
    std::vector<unsigned char> last;
    bool have_last = false;
    out_st.write = [&](pipeline::Chunk& c) {
      const size_t keep = unique_carry(f, c.data, c.bytes / rs, last, have_last) * rs;
      dst->put(c.data, written, keep);  // final: its writeback starts now
      written += keep;
    };
    cfg.phase = "write";
    pipeline::run_chunks(cfg, slots, out_st, opt.progress);
  }
  dst.reset();
  if (written < bytes) out.file().truncate(written);
  st.phases.push_back({"read and copy in", t_read, bytes, 0});
  st.phases.push_back({"sort on the device", t_sort, 0, bytes});
  st.phases.push_back({"copy out and write", since(t2), 0, bytes});
  return written;
}

// The input's cached pages are mapped and sorted straight into the mapped output: no
// buffer holds a copy of the data, so the sort touches little fresh memory
// (io/mapped_file.hpp says why that matters). Returns the output bytes.
uint64_t sort_mapped(Prepared& p, const io::File& in, const EngineOptions& opt, io::Output& out,
                     BackgroundUnmap& input_unmap, RunStats& st) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = p.plan.input_bytes;
  auto t0 = Clock::now();
  const size_t n = size_t(p.plan.records);
  io::MappedFile src = io::MappedFile::map_read(in, n * rs, 0, false);
  io::MappedFile dst = io::MappedFile::map_write(out.file(), n * rs, p.threads);
  if (opt.progress) opt.progress({"read", bytes, bytes});
  const double t_map = since(t0);
  auto t1 = Clock::now();
  // Finished ranges start their writeback while the rest sorts, unmapped first (no
  // shootdowns as it cleans them; measured 3-4% off the sort). Not with -u: the
  // unique pass below still moves records.
  Backend::SortedRecords written;
  if (!opt.unique)
    written = [&](size_t first, size_t count) {
      dst.release(first * rs, count * rs);
      out.file().written_elsewhere(first * rs, count * rs);
    };
  throw_if_cancelled(opt.cancel);
  sort_mapped_input(*p.backend, f, in, src.data(), dst.data(), n, written);
  throw_if_cancelled(opt.cancel);
  const size_t kept = opt.unique ? unique_in_place(f, dst.data(), n) : n;
  input_unmap.start(std::move(src));
  dst.unmap();
  if (kept < n) out.file().truncate(kept * rs);
  if (opt.progress) opt.progress({"write", bytes, bytes});
  st.phases.push_back({"map input and output", t_map, bytes, 0});
  st.phases.push_back({"sort into the output", since(t1), 0, bytes});
  return kept * rs;
}

// A stream (a pipe, FIFO, device or standard input) has no size until it ends. Its
// first run-sized chunk is read whole: if the stream ends inside it, that chunk is
// sorted in memory and written out. Otherwise every chunk becomes a run in a temp file
// (read, sort and write overlapped) and the runs are merged, as the external plan
// merges runs of the same size.
RunStats sort_stream(io::File& in, const std::string& output, const EngineOptions& opt, Prepared* prepared) {
  if (opt.resume) fail_usage(in.path() + ": --resume needs a regular input file (a stream cannot be read again)");
  auto t_start = Clock::now();
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  Prepared own;
  if (!prepared) own = prepare(opt, job_of(JobKind::sort, opt, 0, true), default_temp_dir(output));
  Prepared& p = prepared ? *prepared : own;
  const size_t run_records = p.plan.run_records;
  io::Output out = io::Output::open(opt.context, output, p.tmp_dirs[0], "out", output_header(opt, opt.format.record_size));
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
    Job merge = p.job;
    merge.command = JobKind::merge;
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
    JobProgress job_progress(opt.progress, merge_stages(plan), 2 * rf.input_bytes);
    EngineOptions merge_opt = opt;
    merge_opt.progress = job_progress.fn();
    st.output_bytes = merge_run_files(p, plan, std::move(rf.runs), merge_opt, out.file(), 0, &st) * rs;
  }
  commit_outputs({&out}, st, t_start, opt);
  return st;
}

RunStats sort_prepared(io::File& in, const std::string& output, const EngineOptions& given, Prepared& p,
                       Clock::time_point t_start);

}  // namespace

bool may_use_gpu(const std::string& command, const std::string& input, const EngineOptions& opt) {
  const JobKind kind = command == "sort" ? JobKind::sort : JobKind::dedupe;
  struct stat st;
  // Only a regular file: a FIFO opened here and closed again could lose what its writer sent.
  if (opt.device != Device::automatic || (command != "sort" && command != "dedupe") || input == "-" ||
      ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return opt.device != Device::cpu;
  try {
    const Job job = job_of(kind, opt, open_input(input, opt.format).size(), false);
    return choose_backend(job, machine_facts(job)).device != Device::cpu;
  } catch (const Error&) {
    return true;  // the command itself says what is wrong with the input
  }
}

RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  io::File in = open_input(input, opt.format);
  return sort_input(in, output, opt);
}

RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt) {
  if (in.is_stream()) return sort_stream(in, output, opt, nullptr);
  // Every plan reads the input from its start: a cold disk starts on it while the
  // device starts and the plan is made (0.3-0.4 s on the H100 host).
  in.prefetch(0, uint64_t(256) << 20);
  auto t_start = Clock::now();
  RunStats st;
  {
    Prepared p = prepare(opt, in.size(), default_temp_dir(output), in.path());
    st = sort_prepared(in, output, opt, p, t_start);
    timeline(opt.context, "sort ended (its output closed)");
  }
  timeline(opt.context, "its backend freed");
  return st;
}

RunStats sort_input(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p) {
  if (in.is_stream()) return sort_stream(in, output, opt, &p);
  in.prefetch(0, uint64_t(256) << 20);
  return sort_prepared(in, output, opt, p, Clock::now());
}

namespace {

// The sort of a regular file as p.plan says; t_start: when its preparation began.
RunStats sort_prepared(io::File& in, const std::string& output, const EngineOptions& given, Prepared& p,
                       Clock::time_point t_start) {
  const uint64_t bytes = in.size();
  const double t_prepare = since(t_start);
  // Every phase reports to the whole job's progress, weighed by the plan.
  JobProgress job_progress(given.progress, sort_stages(p.plan));
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
  // The output streams to the disk while it is written, not all at the end: a synced
  // output's fsync then has little left, and an unsynced one never hits the kernel's
  // dirty-page throttle (measured slower than the synced default without this). Not a
  // spooled one: it is read back soon.
  if (!out.streamed()) out.file().start_write_behind();

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
      Job bucket_job = p.job;  // (dedupe's too: its sort is the sort of this job)
      bucket_job.command = JobKind::sort;
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

PlanReport plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt) {
  io::File in = open_input(input, opt.format);
  const std::string tmp = default_temp_dir(!output.empty() ? output : in.is_stream() ? "-" : input);
  PlanReport r;
  if (in.is_stream()) {  // the runs' size: the rest is known when the stream ends
    Prepared p = prepare(opt, job_of(JobKind::sort, opt, 0, true), tmp);
    r = plan_report(p.plan);
    r.memory = p.memory;
    r.sort.fan_in = p.plan_input.fan_in ? p.plan_input.fan_in : kDefaultFanIn;
    r.backend = p.backend->name();
  } else {
    Prepared p = prepare(opt, in.size(), tmp, in.path());
    if (opt.resume && output.empty()) fail_usage("plan --resume: name the job's output (-o FILE): a job is its input, options and output");
    const bool resumable = p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition;
    r = plan_report(p.plan);
    if (opt.resume) r.resume = resume_report(SortJob::inspect(p, in, output, opt));
    r.backend = p.backend->name();
    r.device_auto_cpu = p.device.reason == DeviceReason::wide_records;
    if (resumable) r.temp_dirs = p.tmp_dirs;
  }
  r.command = "sort";
  r.input = in.path();
  r.stream = in.is_stream();
  r.format = opt.format.describe();
  return r;
}

}  // namespace gxsort
