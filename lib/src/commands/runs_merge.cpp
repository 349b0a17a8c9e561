// runs and merge: sorted runs written to a directory with a manifest, and the merge of
// sorted files (a runs directory standing for its runs, checked against its manifest).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>

#include "io/checksum.hpp"
#include "io/safe_dir.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "commands/runs_dir.hpp"
#include "commands/stream_inputs.hpp"
#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/whole_progress.hpp"
#include "engine/merge.hpp"
#include "engine/run_formation.hpp"
#include "engine/runs_manifest.hpp"

namespace gxsort {
namespace {

const io::File& run_file(const TreeInput& t) { return t.temp ? t.temp->file() : *t.file; }

// The names a job's runs were linked to (name_run): unlinked on an error before the
// manifest is in place, as temp runs are (a signal leaves them: unlink_job_links).
struct LinkedRuns {
  std::vector<std::string> names;
  bool kept = false;
  ~LinkedRuns() {
    if (!kept)
      for (const std::string& n : names) ::unlink(n.c_str());
  }
};

// Run i gets its name: a job's piece is linked there (it stays the job's until the
// manifest is in place), a temp run renamed (still removed on errors until released).
void name_run(TreeInput& run, size_t i, const std::string& out_dir, LinkedRuns& linked) {
  const std::string name = out_dir + "/" + run_file_name(i);
  if (run.temp) return run.temp->move_to(name);
  ::unlink(name.c_str());  // a link of this job's left by a kill is replaced
  if (::link(run.file->path().c_str(), name.c_str()) != 0) fail_errno(name, "cannot name the run", errno);
  linked.names.push_back(name);
}

}  // namespace

Prepared prepare_runs(const io::File& in, const std::string& out_dir, const EngineOptions& opt) {
  return prepare(opt, plan_request(CommandKind::runs, opt, in.is_stream() ? 0 : in.size(), in.is_stream(), in.path()),
                 io::directory_of(out_dir));
}

Prepared prepare_merge(const std::vector<uint64_t>& input_records, const std::string& output, const EngineOptions& opt) {
  uint64_t records = 0;
  for (uint64_t r : input_records) records += r;
  PlanRequest job = plan_request(CommandKind::merge, opt, records * opt.format.record_size, false);
  job.input_records = input_records;
  return prepare(opt, std::move(job), default_temp_dir(output));
}

// A runs' plan's parts: what plan() opened and prepared, for run() to use as they are.
template <>
struct CommandPlan<RunsRequest>::State : PlanStateBase<RunsRequest> {
  io::File in;
  std::string planned_dir;           // the directory planned for (without one: INPUT's runs/)
};

PlanReport report_of(const CommandPlan<RunsRequest>::State& s) {
  const EngineOptions& opt = s.request.options;
  PlanReport r = command_report(s.prepared, s.request.input, opt);
  if (opt.resume) r.resume = resume_report(SortJob::inspect_runs(s.prepared, s.in, s.planned_dir, opt));
  return r;
}

template class CommandPlan<RunsRequest>;

CommandPlan<RunsRequest> plan(RunsRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<RunsRequest>::State>();
  s->request = std::move(request);
  const RunsRequest& r = s->request;
  s->in = open_input(r.input, r.options.format, r.options.npy_streams);
  s->planned_dir = !r.out_dir.empty() ? r.out_dir : io::directory_of(r.input) + "/runs";
  s->prepared = prepare_runs(s->in, s->planned_dir, r.options);
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<RunsRequest>(std::move(s));
}

RunStats run(CommandPlan<RunsRequest> plan) {
  CommandPlan<RunsRequest>::State& s = PlanAccess::state(plan);
  const auto t_start = Clock::now() - s.planning;
  const std::string& out_dir = s.request.out_dir;
  const EngineOptions& opt = s.request.options;
  const Format& f = opt.format;
  io::File& in = s.in;
  if (out_dir.empty()) fail_usage("an output directory is required (-o DIR)");
  const uint64_t bytes = in.is_stream() ? 0 : in.size();
  // Every option was checked by the plan, before the directory is made: a refused run leaves nothing.
  Prepared& p = s.prepared;
  CreatedDir dir(out_dir);
  check_runs_dir_empty(out_dir);
  // Runs of the external plan's largest size (`runs` does not even them out, as the
  // sort does): read, sort and write of three chunks fit in --memory.
  RunSource src;
  src.total_bytes = in.is_stream() ? pipeline::kUntilEnd : bytes;
  src.run_records = p.plan.run_records;
  src.direct_io = p.plan.direct_io;
  src.keep_dir = out_dir;
  src.unique = opt.unique;
  if (!in.is_stream()) io::check_space(opt.context, {{out_dir, bytes, "the runs"}});
  // A regular input makes it a resumable job: its runs are pieces (engine/job.hpp).
  std::unique_ptr<SortJob> job = SortJob::open_runs(p, in, out_dir, src.run_records, opt);
  src.job = job.get();
  RunStats st;
  st.command = "runs";
  st.backend = p.backend->name();
  st.mode = "runs";
  RunFormation rf;
  if (in.is_stream() || p.plan.records > 0) {
    RunBuffers buffers(*p.backend, f, src.run_records, p.plan.chunks.slots);
    rf = form_run_files(p, buffers, src, in, f, opt.progress);
  }
  in.check_unchanged();
  // Name the runs by their order, then write the manifest last (atomically): a
  // directory with a manifest holds complete runs.
  std::vector<ManifestRun> listed;
  for (size_t i = 0; i < rf.runs.size(); ++i)
    listed.push_back({"", rf.runs[i].records, rf.runs[i].records * f.record_size, rf.checksums[i]});
  const std::string text = runs_manifest_text(f, listed);
  // Written in the job's directory (inside out_dir), where a kill -9 leaves it for the
  // resume, which removes the directory whole; renamed into out_dir when it commits.
  io::TempFile mf = io::TempFile::create(opt.context, job ? job->dir() : out_dir, "manifest");
  mf.file().write_at(text.data(), text.size(), 0);
  // Each run gets its name, still removed on an error or a signal until the manifest is
  // in place: a killed `runs` leaves no run files without a manifest (except kill -9,
  // whose links to a job's pieces the next run removes: unlink_job_links).
  // They were written 0600 (io/temp_files.hpp): as outputs they get a new file's mode.
  const mode_t mode = io::new_file_mode();
  LinkedRuns linked;
  for (size_t i = 0; i < rf.runs.size(); ++i) {
    if (::fchmod(run_file(rf.runs[i]).fd(), mode) != 0) fail_errno(out_dir + "/" + run_file_name(i), "cannot set the mode", errno);
    if (opt.fsync) run_file(rf.runs[i]).sync();
    name_run(rf.runs[i], i, out_dir, linked);
  }
  if (::fchmod(mf.file().fd(), mode) != 0) fail_errno(out_dir + "/manifest.txt", "cannot set the mode", errno);
  st.records = rf.input_bytes / f.record_size;
  st.input_bytes = st.output_bytes = rf.input_bytes;
  st.runs = rf.runs.size();
  st.phases.push_back({"sort runs", rf.seconds, rf.input_bytes, rf.input_bytes});
  if (job) {
    st.resumed = job->summary();
    st.discarded = job->discarded();
  }
  st.seconds = since(t_start);
  if (opt.fsync) mf.file().sync();
  if (opt.before_commit) opt.before_commit(st);  // --stats-json: before the manifest makes the runs real
  mf.commit_rename(out_dir + "/manifest.txt", false, opt.context);
  // The manifest is in place: the runs are the user's, kept whatever happens next (a
  // failed sync of the directory is an error, the directory still whole).
  linked.kept = true;
  for (auto& r : rf.runs)
    if (r.temp) r.temp->release();
  dir.keep();
  if (opt.fsync) sync_runs_dir(out_dir, opt.context);
  if (job) job->finish();  // the runs live on under their names
  return st;
}

RunStats form_runs(const std::string& input, const std::string& out_dir, const EngineOptions& opt) {
  return run(plan(RunsRequest{input, out_dir, opt}));
}

// A stream can be read once: standard input named twice, in any spelling ("-",
// /dev/stdin, /dev/fd/0, /proc/self/fd/0), or one FIFO twice, is refused before anything
// is read.
void refuse_stream_named_twice(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string key = args[i] == "-" ? "fd:0" : io::output_key(args[i]);
    struct stat st;
    const bool stream = key.rfind("fd:", 0) == 0 ||
                        (::stat(args[i].c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
    for (size_t j = 0; stream && j < i; ++j)
      if (io::same_target(args[i], true, args[j], true))
        fail_usage("merge: " + args[j] + " and " + args[i] + " name the same stream (" +
                   (key == "fd:0" ? "standard input" : "a pipe or FIFO") + "), which can be read once");
  }
}

namespace {

// One argument of `merge`, opened: a user's sorted file, a run of a runs directory
// (with the size and checksum its manifest gives), or a stream, spooled to a temp file
// by the run.
struct MergeInput {
  std::shared_ptr<io::File> file;  // null once a stream is spooled
  std::shared_ptr<io::TempFile> spool;
  bool from_manifest = false;
  uint64_t checksum = 0;
};

// Copies a stream into a temp file (the merge reads its inputs at many offsets).
std::shared_ptr<io::TempFile> spool_stream(const Context& context, io::File& in, const Format& f, const std::string& dir) {
  auto t = std::make_shared<io::TempFile>(io::TempFile::create(context, dir, "spool"));
  std::vector<unsigned char> buf(size_t(8) << 20);
  uint64_t off = 0;
  for (size_t n; (n = in.read_stream(buf.data(), buf.size())) > 0; off += n) t->file().write_at(buf.data(), n, off);
  checked_record_count(in.path(), off, f);
  t->file().set_label(in.path());
  return t;
}

// Whether plan() opens argument `a`: a runs directory or a regular file, whose open
// never waits. The rest ("-", a FIFO, what is missing) the run opens, after the output
// is checked and in order: a FIFO's writer may feed them one after another.
bool opens_in_plan(const std::string& a) {
  struct stat st;
  return a != "-" && ::stat(a.c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
}

// Opens argument `a` of a merge into `out` (a runs directory: the runs its manifest lists).
void open_merge_input(const std::string& a, const Format& f, const NpyStreams& npy_streams, std::vector<MergeInput>& out,
                      std::vector<std::string>& runs_dirs) {
  struct stat st;
  if (a != "-" && ::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    runs_dirs.push_back(a);
    for (ListedRun& r : open_listed_runs(a, runs_format(f))) {
      MergeInput m;
      m.file = std::move(r.file);
      m.from_manifest = true;
      m.checksum = r.checksum;
      out.push_back(std::move(m));
    }
    return;
  }
  MergeInput m;
  m.file = std::make_shared<io::File>(open_input(a, f, npy_streams));
  out.push_back(std::move(m));
}

// The merge tree's inputs: each opened input (a spooled stream: its temp file) with its
// record count.
std::vector<TreeInput> merge_tree_inputs(const std::vector<MergeInput>& inputs, const Format& f) {
  std::vector<TreeInput> tree;
  for (const auto& m : inputs) {
    TreeInput t;
    t.file = m.spool ? std::shared_ptr<io::File>(m.spool, &m.spool->file()) : m.file;
    t.records = checked_record_count(t.file->path(), t.file->size(), f);
    tree.push_back(std::move(t));
  }
  return tree;
}

}  // namespace

// A merge's plan's parts: the arguments plan() opened and, where none is a stream, the
// merge planned over them; run() opens the rest and plans then.
template <>
struct CommandPlan<MergeRequest>::State : PlanStateBase<MergeRequest> {
  std::vector<MergeInput> inputs;    // of request.inputs[0, opened): plan() stops at the first it leaves
  size_t opened = 0;
  std::vector<std::string> runs_dirs;
  std::string planned_output;        // the output planned for (without one: the first input)
  bool planned = false;              // prepared: no stream among the inputs
};

PlanReport report_of(const CommandPlan<MergeRequest>::State& s) {
  const EngineOptions& opt = s.request.options;
  if (!s.planned) {  // a stream among them: a pseudo file plan() opened, or the first argument it left
    std::string name;
    for (const MergeInput& m : s.inputs)
      if (name.empty() && m.file->is_stream()) name = m.file->path();
    if (name.empty()) name = open_input(s.request.inputs[s.opened], opt.format, opt.npy_streams).path();
    fail_usage("plan merge: " + name + " is a stream: its size is known only once it is read (merge copies it first)");
  }
  PlanReport r = command_report(s.prepared, s.request.inputs[0], opt);
  std::vector<const io::File*> files;
  for (const MergeInput& m : s.inputs) files.push_back(m.file.get());
  if (opt.resume) r.resume = resume_report(SortJob::inspect_merge(s.prepared, files, s.planned_output, opt));
  return r;
}

template class CommandPlan<MergeRequest>;

CommandPlan<MergeRequest> plan(MergeRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<MergeRequest>::State>();
  s->request = std::move(request);
  const std::vector<std::string>& args = s->request.inputs;
  const EngineOptions& opt = s->request.options;
  opt.format.validate();
  if (args.empty()) fail_usage("merge needs at least one input file");
  refuse_stream_named_twice(args);
  for (; s->opened < args.size() && opens_in_plan(args[s->opened]); ++s->opened)
    open_merge_input(args[s->opened], opt.format, opt.npy_streams, s->inputs, s->runs_dirs);
  s->planned_output = s->request.output.empty() ? args[0] : s->request.output;
  s->planned = s->opened == args.size() &&
               std::none_of(s->inputs.begin(), s->inputs.end(), [](const MergeInput& m) { return m.file->is_stream(); });
  if (s->planned) {  // merging needs no run formation: the tree is planned for the files as given
    std::vector<uint64_t> records;
    for (const TreeInput& t : merge_tree_inputs(s->inputs, opt.format)) records.push_back(t.records);
    s->prepared = prepare_merge(records, s->planned_output, opt);
  }
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<MergeRequest>(std::move(s));
}

namespace {

// The arguments plan() left opened, in order, and every stream copied to a temp file in
// `tmp_dir` (after the output is checked: a stream is read whole first).
void open_and_spool(CommandPlan<MergeRequest>::State& s, const std::string& tmp_dir) {
  const EngineOptions& opt = s.request.options;
  const auto spool = [&](MergeInput& m) {
    if (!m.file || !m.file->is_stream()) return;
    io::require_writable_dir(tmp_dir, "temporary");
    m.spool = spool_stream(opt.context, *m.file, opt.format, tmp_dir);
    m.file.reset();
  };
  for (MergeInput& m : s.inputs) spool(m);
  for (; s.opened < s.request.inputs.size(); ++s.opened) {
    const size_t first = s.inputs.size();
    open_merge_input(s.request.inputs[s.opened], opt.format, opt.npy_streams, s.inputs, s.runs_dirs);
    for (size_t i = first; i < s.inputs.size(); ++i) spool(s.inputs[i]);
  }
}

// The merge of the plan's opened inputs (`tree`) into `out`.
RunStats merge_into(CommandPlan<MergeRequest>::State& s, io::Output& out, std::vector<TreeInput> tree, Clock::time_point t_start) {
  const EngineOptions& opt = s.request.options;
  const Format& f = opt.format;
  const std::string& output = s.request.output;
  const std::vector<MergeInput>& inputs = s.inputs;
  Prepared& p = s.prepared;
  uint64_t bytes = 0;
  for (const auto& t : tree) bytes += t.records * f.record_size;
  const Plan& plan = p.plan;
  std::vector<io::SpaceNeed> needs{{out.space_dir(), bytes, "the output"}};
  if (plan.levels.size() > 1) {
    for (const auto& d : p.tmp_dirs) io::require_writable_dir(d, "temporary");
    for (const auto& d : p.tmp_dirs) needs.push_back({d, plan.temp_bytes / p.tmp_dirs.size() + 1, "temporary runs"});
  }
  io::check_space(opt.context, needs);

  RunStats st;
  st.command = "merge";
  st.backend = p.backend->name();
  st.mode = "merge";
  st.records = plan.records;
  st.input_bytes = st.output_bytes = bytes;
  st.runs = tree.size();
  out.start_write_behind(opt.fsync, opt.cancel);
  std::vector<ListedRun> listed;
  for (const auto& m : inputs)
    if (m.from_manifest) listed.push_back({m.file, m.checksum});
  RunVerifier verifier(std::move(listed));
  std::atomic<uint64_t> done{0};
  MergeSetup job = merge_setup_of(p, opt, plan.window_records, plan.merge_buffer_bytes);
  WholeProgress job_progress(opt.progress, merge_stages(plan));  // all levels: one job
  job.progress = job_progress.fn();
  job.threads = plan.merge_threads;
  job.verify_sorted = true;
  job.direct_temp = plan.direct_io;
  job.direct_output = plan.direct_output && opt.fsync && !out.streamed();
  job.done_bytes = &done;
  job.total_bytes = bytes;
  uint64_t kept = 0;
  // More inputs than the fan-in: the intermediate merges are pieces a killed run may
  // resume from (--resume). Not with a stream among the inputs (its copy is temporary).
  std::vector<const io::File*> files;
  bool spooled = false;
  for (const auto& m : inputs) {
    spooled = spooled || m.spool;
    files.push_back(m.file.get());
  }
  std::unique_ptr<SortJob> sort_job = spooled ? nullptr : SortJob::open_merge(p, plan, files, output, opt);
  if (sort_job) sort_job->adopt_output(out);
  st.merge_levels = merge_tree_to(job, std::move(tree), plan.fan_in, p.tmp_dirs, out.file(), 0,
                                  [&](size_t level, double secs, uint64_t b) {
                                    st.phases.push_back({"merge level " + std::to_string(level), secs, b, b});
                                    done = 0;
                                  }, &kept, sort_job.get());
  st.output_bytes = kept * f.record_size;
  verifier.finish();
  for (const auto& m : inputs)
    if (m.file) m.file->check_unchanged();
  if (sort_job) {
    st.resumed = sort_job->summary();
    st.discarded = sort_job->discarded();
  }
  commit_outputs({&out}, st, t_start, opt);
  if (sort_job) sort_job->finish();
  return st;
}

}  // namespace

RunStats run(CommandPlan<MergeRequest> plan) {
  CommandPlan<MergeRequest>::State& s = PlanAccess::state(plan);
  const auto t_start = Clock::now() - s.planning;
  const EngineOptions& opt = s.request.options;
  const std::string& output = s.request.output;
  const std::vector<std::string> tmp_dirs = temp_dirs(opt, default_temp_dir(output));
  // The output is checked (a directory, not writable) before any stream is read: a
  // stream input is copied whole first.
  io::Output out = io::Output::open(opt.context, output, tmp_dirs[0], "out", output_header(opt, opt.format.record_size));
  open_and_spool(s, tmp_dirs[0]);
  refuse_output_in_runs_dir(output, s.runs_dirs);
  std::vector<TreeInput> tree = merge_tree_inputs(s.inputs, opt.format);
  if (!s.planned) {  // a stream was among them: the tree is planned now, for the copies
    std::vector<uint64_t> records;
    for (const TreeInput& t : tree) records.push_back(t.records);
    s.prepared = prepare_merge(records, output, opt);
  }
  return merge_into(s, out, std::move(tree), t_start);
}

RunStats merge_files(const std::vector<std::string>& args, const std::string& output, const EngineOptions& opt) {
  return run(plan(MergeRequest{args, output, opt}));
}

}  // namespace gxsort
