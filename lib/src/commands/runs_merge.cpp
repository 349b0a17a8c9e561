// runs and merge: sorted runs written to a directory with a manifest, and the merge of
// sorted files (a runs directory standing for its runs, checked against its manifest).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "io/checksum.hpp"
#include "io/safe_dir.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "pipeline/chunk_scheduler.hpp"
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

RunStats form_runs(const std::string& input, const std::string& out_dir, const EngineOptions& opt) {
  auto t_start = Clock::now();
  const Format& f = opt.format;
  io::File in = open_input(input, f, opt.npy_streams);
  if (out_dir.empty()) fail_usage("an output directory is required (-o DIR)");
  const uint64_t bytes = in.is_stream() ? 0 : in.size();
  // Every option is checked before the directory is made: a refused run leaves nothing.
  Prepared p = prepare_runs(in, out_dir, opt);
  CreatedDir dir(out_dir);
  check_runs_dir_empty(out_dir);
  // Runs sized as the external plan sizes them: read, sort and write of three chunks
  // fit in --memory.
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
// (with the size and checksum its manifest gives), or a stream spooled to a temp file.
struct MergeInput {
  std::shared_ptr<io::File> file;
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

std::vector<MergeInput> open_merge_inputs(const Context& context, const std::vector<std::string>& args,
                                          const Format& f, const NpyStreams& npy_streams, const std::string& tmp_dir,
                                          std::vector<std::string>& runs_dirs) {
  refuse_stream_named_twice(args);
  std::vector<MergeInput> out;
  for (const auto& a : args) {
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
      continue;
    }
    io::File in = open_input(a, f, npy_streams);
    MergeInput m;
    if (in.is_stream()) {
      io::require_writable_dir(tmp_dir, "temporary");
      m.spool = spool_stream(context, in, f, tmp_dir);
    } else {
      m.file = std::make_shared<io::File>(std::move(in));
    }
    out.push_back(std::move(m));
  }
  return out;
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

RunStats merge_files(const std::vector<std::string>& args, const std::string& output, const EngineOptions& opt) {
  auto t_start = Clock::now();
  const Format& f = opt.format;
  f.validate();
  if (args.empty()) fail_usage("merge needs at least one input file");
  const std::vector<std::string> tmp_dirs = temp_dirs(opt, default_temp_dir(output));
  // The output is checked (a directory, not writable) before any input is read: a
  // stream input is copied whole first.
  io::Output out = io::Output::open(opt.context, output, tmp_dirs[0], "out", output_header(opt, f.record_size));
  std::vector<std::string> runs_dirs;
  std::vector<MergeInput> inputs = open_merge_inputs(opt.context, args, f, opt.npy_streams, tmp_dirs[0], runs_dirs);
  refuse_output_in_runs_dir(output, runs_dirs);
  std::vector<TreeInput> tree = merge_tree_inputs(inputs, f);
  uint64_t bytes = 0;
  for (const auto& t : tree) bytes += t.records * f.record_size;
  std::vector<uint64_t> records;
  for (const auto& t : tree) records.push_back(t.records);
  // Merging needs no run formation: the tree is planned for the files as given.
  Prepared p = prepare_merge(records, output, opt);
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
  if (!out.streamed()) out.file().start_write_behind();
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

}  // namespace gxsort
