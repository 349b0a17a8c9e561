// gxsort dedupe: sorted, one record per distinct key (docs/dedupe.md). Three strategies:
//   sort    keep first, no counts: the sort engine with -u (runs shrink early, the final
//           merge drops the rest). --count or --keep last (records wider than their key):
//           a stable sort without dropping anything into a temp file, then the streamed
//           group pass (first or last record of each group, its size).
//   bitmap  flat 4-byte keys: one bit per possible key set while the chunks stream
//           through the scheduler, then the set bits written out in order.
//   stream  --assume-sorted: the group pass straight over the input, verifying the order.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "io/debris.hpp"
#include "resume/staged_job.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "commands/resume_plan.hpp"
#include "engine/job.hpp"
#include "platform/sizes.hpp"
#include "engine/group_pass.hpp"
#include "engine/partition_sort.hpp"
#include "engine/sort.hpp"
#include "kernels/key_bitmap.hpp"
#include "engine/engine.hpp"

namespace gxsort {
namespace {

GroupPass make_group_pass(const EngineOptions& opt, const std::string& name, const Plan& plan, bool verify) {
  GroupPass g;
  g.format = &opt.format;
  g.count = opt.dedupe.count;
  g.keep_last = opt.dedupe.keep_last;
  g.verify = verify;
  g.name = name;
  g.threads = plan.threads;
  g.chunk_bytes = plan.dedupe.group.chunk_bytes;  // three slots of input and output buffers within --memory
  g.progress = opt.progress;
  return g;
}

// Keep first (for flat keys the record is the key: keep last is the same bytes): the
// sort engine with -u.
RunStats dedupe_by_sort_unique(io::File& in, const std::string& output, const EngineOptions& opt, Prepared& p,
                               Clock::time_point t_start) {
  EngineOptions o = opt;
  o.unique = true;
  auto as_dedupe = [t_start](RunStats s) {
    s.command = "dedupe";
    s.mode = "sort -u (" + s.mode + ")";
    s.seconds = since(t_start);
    return s;
  };
  if (opt.before_commit) o.before_commit = [&](const RunStats& s) { opt.before_commit(as_dedupe(s)); };
  return as_dedupe(sort_input(in, output, o, p));
}

// The bitmap strategy: every key's bit set while the chunks stream through the
// scheduler, then the set bits written out in order.
void dedupe_by_bitmap(Prepared& p, io::File& in, KeyBitmap& bitmap, const std::string& output,
                      const EngineOptions& opt, RunStats& st, Clock::time_point t_start) {
  io::Output out = io::Output::open(p.context, output, p.tmp_dirs[0], "out", output_header(opt, 4));
  io::check_space(p.context, {{out.space_dir(), in.is_stream() ? 0 : in.size(), "the output"}});
  // The keys are written in one burst at the end (up to 16 GiB): start their writeback
  // as they go so that the final fsync is not a second pass at disk speed.
  out.start_write_behind(opt.fsync, opt.cancel);
  auto t0 = Clock::now();
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (unsigned s = 0; s < p.plan.dedupe.bitmap.slots; ++s) {
    buffers.push_back(p.backend->allocate_host(p.plan.dedupe.bitmap.chunk_bytes));
    slots.push_back(buffers.back().data());
  }
  pipeline::Stages stages;
  stages.read = [&](pipeline::Chunk& c) {
    c.bytes = in.read_chunk(c.data, c.bytes, c.offset, p.threads);
    if (c.bytes % 4) checked_record_count(in.path(), c.offset + c.bytes, opt.format);  // a stream's partial record
  };
  stages.compute = [&](pipeline::Chunk& c) { bitmap.add(c.data, c.bytes / 4); };
  pipeline::Config cfg;
  cfg.total_bytes = in.is_stream() ? pipeline::kUntilEnd : in.size();
  cfg.chunk_bytes = p.plan.dedupe.bitmap.chunk_bytes;
  cfg.phase = "bitmap";
  if (cfg.total_bytes) pipeline::run_chunks(cfg, slots, stages, opt.progress);
  const uint64_t bytes = in.is_stream() ? in.stream_bytes() : in.size();
  st.records = bytes / 4;
  st.input_bytes = bytes;
  st.phases.push_back({"set bits", since(t0), bytes, 0});
  auto t1 = Clock::now();
  uint64_t off = 0;
  const uint64_t kept = bitmap.extract([&](const unsigned char* data, size_t n) {
    out.file().write_at_parallel(data, n, off, p.threads);  // the pieces are large: page-cache copies on all cores
    off += n;
  });
  st.output_bytes = kept * 4;
  st.phases.push_back({"write keys", since(t1), 0, st.output_bytes});
  in.check_unchanged();
  commit_outputs({&out}, st, t_start, opt);
}


// The group pass straight over a sorted input (--assume-sorted), verifying its order.
void dedupe_by_stream(Prepared& p, io::File& in, const std::string& output, const EngineOptions& opt, RunStats& st,
                      Clock::time_point t_start) {
  const size_t rs = opt.format.record_size, out_rs = rs + (opt.dedupe.count ? 8 : 0);
  const uint64_t records = st.records;
  io::Output out = io::Output::open(p.context, output, p.tmp_dirs[0], "out", output_header(opt, out_rs));
  io::check_space(p.context, {{out.space_dir(), records * out_rs, "the output"}});
  out.start_write_behind(opt.fsync, opt.cancel);
  auto t0 = Clock::now();
  GroupPass g = make_group_pass(opt, in.path(), p.plan, true);
  const uint64_t kept = group_pass(g, *p.backend, in, records, out.file());
  const uint64_t read = in.is_stream() ? in.stream_bytes() : st.input_bytes;
  st.records = read / rs;
  st.input_bytes = read;
  st.output_bytes = kept * out_rs;
  st.phases.push_back({"dedupe", since(t0), read, st.output_bytes});
  in.check_unchanged();
  commit_outputs({&out}, st, t_start, opt);
}

// What defines the result of a dedupe that sorts and groups (its job's digest).
std::string group_digest(const io::File& in, const std::string& output, const EngineOptions& opt) {
  const Format& f = opt.format;
  std::vector<std::string> parts{"gxsort dedupe job 1"};
  for (const std::string& s : resume::input_parts(in)) parts.push_back(s);
  for (const std::string& s : {std::to_string(f.record_size), f.key_text(), std::string(f.reverse ? "r" : "-"),
                               std::string(opt.dedupe.count ? "count" : "-"), std::string(opt.dedupe.keep_last ? "last" : "first"),
                               opt.npy_descr, io::output_key(output)})
    parts.push_back(s);
  return resume::job_digest(parts);
}

// The stable sort of a dedupe that groups, into `path` (nothing dropped: the later
// records of a group survive every run and merge). Its temp directories are the job's.
EngineOptions group_sort_options(const EngineOptions& opt, const std::vector<std::string>& tmp_dirs) {
  EngineOptions o = opt;
  o.unique = false;
  o.fsync = false;
  o.npy_descr.clear();  // a file of bare records, read back by the group pass
  o.before_commit = nullptr;  // the sort into a stage file: its stats are not the command's
  o.tmp_dirs = tmp_dirs;
  return o;
}

RunStats sort_for_group(io::File& in, const std::string& path, const std::vector<std::string>& tmp_dirs,
                        const EngineOptions& opt) {
  return sort_input(in, path, group_sort_options(opt, tmp_dirs));
}

// The sorted records: the stage a killed run of this job kept (verified), or sorted now
// (a resumable sort of its own, inside the job) and journalled.
RunStats sorted_stage(io::File& in, resume::StagedJob& job, const EngineOptions& opt) {
  RunStats s;
  if (const resume::Piece* kept = job.kept("sorted", "the sorted records")) {
    s.records = kept->records;
    s.input_bytes = kept->records * opt.format.record_size;
    s.mode = "kept from a killed run";
    return s;
  }
  s = sort_for_group(in, job.path("sorted"), job.dirs(), opt);
  job.record("sorted", s.records, {});
  return s;
}

// --count or --keep last of records wider than their key: a stable sort that drops
// nothing into a file, then the group pass keeps the first or last of each group and
// counts it. A regular input makes it a resumable job (resume/staged_job.hpp): the
// sorted file is its stage, the sort's runs its sort's pieces; a stream sorts into a
// temp file (it cannot be read again).
void dedupe_by_sort_and_group(Prepared& p, io::File& in, const std::string& output, const EngineOptions& opt,
                              RunStats& st, Clock::time_point t_start) {
  const size_t out_rs = opt.format.record_size + (opt.dedupe.count ? 8 : 0);
  const std::string sort_dir = p.tmp_dirs[0];
  io::require_writable_dir(sort_dir, "temporary");
  const unsigned threads = p.threads;
  p.backend.reset();  // the sort reserves the device again
  io::Output out = io::Output::open(p.context, output, sort_dir, "out", output_header(opt, out_rs));  // checked before the sort
  std::unique_ptr<resume::StagedJob> job;
  std::optional<io::TempFile> temp;
  RunStats s;
  if (in.is_stream() || !io::output_can_resume(output, opt.resume) ||
      !resume::dirs_can_keep_job(p.tmp_dirs, opt.resume, opt.note)) {  // (into a pipe: engine/job.cpp's can_resume)
    temp.emplace(io::TempFile::create(p.context, sort_dir, "dedupe"));
    s = sort_for_group(in, temp->path(), p.tmp_dirs, opt);
  } else {
    job = std::make_unique<resume::StagedJob>(p.context, p.tmp_dirs, group_digest(in, output, opt), opt.resume, io::output_key(output),
                                              threads, opt.note);
    job->keep_if_cancelled(opt.cancel);
    if (!out.streamed()) out.keep_for_job(io::kJobPrefix + job->digest() + ".out", false, opt.cancel);  // a stable name: no debris
    s = sorted_stage(in, *job, opt);
  }
  st.backend = s.backend.empty() ? st.backend : s.backend;
  st.records = s.records;
  st.input_bytes = s.input_bytes;
  st.runs = s.runs;
  st.merge_levels = s.merge_levels;
  st.buckets = s.buckets;
  for (auto& ph : s.phases) st.phases.push_back(ph);
  st.mode = "sort + group (" + s.mode + ")";
  if (job) {
    st.resumed = job->summary(s.resumed);
    st.discarded = job->discarded() + s.discarded;
  }
  const std::string sorted = job ? job->path("sorted") : temp->path();
  io::File sorted_in = io::File::open_read(sorted);
  io::check_space(p.context, {{out.space_dir(), s.records * out_rs, "the output"}});
  out.start_write_behind(opt.fsync, opt.cancel);
  auto t0 = Clock::now();
  auto host = make_cpu_backend(threads);
  GroupPass g = make_group_pass(opt, sorted, p.plan, false);
  const uint64_t kept = group_pass(g, *host, sorted_in, s.records, out.file());
  st.output_bytes = kept * out_rs;
  st.phases.push_back({"group", since(t0), s.input_bytes, st.output_bytes});
  if (temp) temp->remove();
  commit_outputs({&out}, st, t_start, opt);
  if (job) job->finish();  // after the commit: killed in between, a resume groups again
}

// The bitmap the plan sizes, or null where the backend cannot make it within the plan's
// budget (auto then sorts).
std::unique_ptr<KeyBitmap> make_bitmap(Prepared& p, const EngineOptions& opt) {
  const DedupePlan& d = p.plan.dedupe;
  std::unique_ptr<KeyBitmap> bitmap = p.backend->make_key_bitmap(opt.format, d.bitmap.chunk_records, d.bitmap_budget);
  if (!bitmap && opt.dedupe.strategy == DedupeStrategy::bitmap)
    throw Error(ExitCode::io, option_ref("strategy", "bitmap") + ": the " + format_bytes(kBitmapBytes) + " key bitmap does not fit in " +
                                  p.backend->name() + "'s memory budget (raise " + option_ref("device-memory") + ", or use " + option_ref("device", "cpu") + " or " + option_ref("strategy", "sort") + ")");
  return bitmap;
}

}  // namespace

// The span of a sample of the keys that --strategy auto weighs on the CPU
// (plan/dedupe_strategy.hpp): kKeySpanSamples keys read at even strides, only where the
// bitmap could pay (auto, flat 4-byte keys, no --count, a regular input of at least
// kCpuBitmapMinKeys keys); 0 elsewhere.
uint64_t sampled_key_span(const io::File& in, const EngineOptions& opt) {
  const DedupeOptions& o = opt.dedupe;
  const Format& f = opt.format;
  if (in.is_stream() || o.strategy != DedupeStrategy::automatic || o.count || o.assume_sorted || !bitmap_format_ok(f))
    return 0;
  const uint64_t records = in.size() / f.record_size;
  if (records < kCpuBitmapMinKeys) return 0;
  const std::vector<uint64_t> s = sample_prefixes(in, f, records, kKeySpanSamples);  // sorted order32 keys
  return s.back() - s.front() + 1;
}

Prepared prepare_dedupe(const io::File& in, const std::string& output, const EngineOptions& opt) {
  const bool stream = in.is_stream();
  PlanRequest job = plan_request(CommandKind::dedupe, opt, stream ? 0 : in.size(), stream);
  job.dedupe_key_span = sampled_key_span(in, opt);
  job.hold_runs = true;  // its sort is sort_input's: the plan's last runs held (a stream's never are)
  return prepare(opt, std::move(job), default_temp_dir(output));
}

ResumeReport dedupe_resume(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt) {
  const DedupePlan& d = p.plan.dedupe;
  if (d.strategy != DedupePath::sort || in.is_stream()) return {};
  if (d.keep_first) {  // the sort's own job (dedupe_by_sort_unique)
    EngineOptions o = opt;
    o.unique = true;
    const ResumeState r = SortJob::inspect(p, in, output, o);
    return resume_report(r);
  }
  // Sort, then group: a staged job whose sort is a job inside it (dedupe_by_sort_and_group).
  const resume::StagesFound found(p.tmp_dirs, group_digest(in, output, opt));
  StagedResume r = staged_resume(found, {"the group pass"});
  if (found.found()) {
    if (found.kept("sorted")) {
      r.kept = {"the sorted records"};
    } else {
      r.sort_of = "the records";
      const std::string sorted = found.path("sorted");
      const EngineOptions o = group_sort_options(opt, found.dirs());
      r.sort = SortJob::inspect(prepare(o, in.size(), default_temp_dir(sorted), in.path()), in, sorted, o);
    }
  }
  return resume_report(r);
}

// A dedupe's plan's parts: what plan() opened and prepared, for run() to use as they are.
template <>
struct CommandPlan<DedupeRequest>::State : PlanStateBase<DedupeRequest> {
  io::File in;
  std::string planned_output;        // the output planned for (without one: the input, or "-")
};

PlanReport report_of(const CommandPlan<DedupeRequest>::State& s) {
  const EngineOptions& opt = s.request.options;
  PlanReport r = command_report(s.prepared, s.request.input, opt);
  if (opt.resume) r.resume = dedupe_resume(s.prepared, s.in, s.planned_output, opt);
  return r;
}

template class CommandPlan<DedupeRequest>;

CommandPlan<DedupeRequest> plan(DedupeRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<DedupeRequest>::State>();
  s->request = std::move(request);
  const EngineOptions& opt = s->request.options;
  s->in = open_input(s->request.input, opt.format, opt.npy_streams);
  const std::string& output = s->request.output;
  s->planned_output = !output.empty() ? output : s->in.is_stream() ? "-" : s->request.input;
  s->prepared = prepare_dedupe(s->in, s->planned_output, opt);
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<DedupeRequest>(std::move(s));
}

RunStats run(CommandPlan<DedupeRequest> plan) {
  CommandPlan<DedupeRequest>::State& s = PlanAccess::state(plan);
  const auto t_start = Clock::now() - s.planning;
  const EngineOptions& opt = s.request.options;
  const std::string& output = s.request.output;
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  io::File& in = s.in;
  Prepared& p = s.prepared;
  const DedupePlan& d = p.plan.dedupe;
  RunStats st;
  st.command = "dedupe";
  st.backend = p.backend->name();
  st.records = p.plan.records;
  st.input_bytes = p.plan.input_bytes;
  std::unique_ptr<KeyBitmap> bitmap;
  DedupePath strategy = d.strategy;
  if (strategy == DedupePath::bitmap) {
    bitmap = make_bitmap(p, opt);
    if (!bitmap) strategy = DedupePath::sort;  // the backend could not make it: the sort, as planned
  }
  st.mode = dedupe_path_name(strategy);
  if (strategy == DedupePath::bitmap) {
    dedupe_by_bitmap(p, in, *bitmap, output, opt, st, t_start);
  } else if (strategy == DedupePath::stream) {
    dedupe_by_stream(p, in, output, opt, st, t_start);
  } else if (d.keep_first) {
    if (!d.sort_planned) fail_usage(d.sort_refused);  // the bitmap fell back to a sort the budget cannot plan
    return dedupe_by_sort_unique(in, output, opt, p, t_start);
  } else {
    dedupe_by_sort_and_group(p, in, output, opt, st, t_start);
  }
  return st;
}

RunStats dedupe_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  return run(plan(DedupeRequest{input, output, opt}));
}

}  // namespace gxsort
