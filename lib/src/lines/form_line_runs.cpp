// runs of text lines: the text cut into chunks of half the budget (LineChunks with one
// slot: no run is written beside the next chunk here, so each takes the whole budget),
// each chunk sorted (-u: deduplicated within itself) into a run file of DIR, and
// DIR/manifest.txt (the lines' terminator and order, each run's lines, bytes and
// checksum) written last: a directory with a manifest holds complete runs. DIR is made
// and checked as the runs of records make it (commands/runs_dir.hpp).
#include <sys/stat.h>

#include <cerrno>

#include "commands/runs_dir.hpp"
#include "engine/engine.hpp"
#include "engine/whole_progress.hpp"
#include "io/checksum.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "lines/chunks.hpp"
#include "lines/line_runs_dir.hpp"
#include "lines/lines_job.hpp"
#include "lines/sort_block.hpp"

namespace gxsort {
namespace lines {
namespace {

// The runs formed so far: temp files in DIR (removed on errors and signals until the
// manifest commits them) and what the manifest says of each.
struct FormedRuns {
  std::vector<io::TempFile> files;
  std::vector<ManifestRun> listed;
};

// Each chunk of the text sorted into a run file in `out_dir`.
void form_runs_of(LineSource& src, const std::string& out_dir, const LinesJob& job, const EngineOptions& opt,
                  const ProgressFn& progress, FormedRuns& runs, RunStats& st) {
  LineChunks chunks(src, job.order.terminator, job.memory, job.threads);
  const uint64_t total = src.all_regular() ? src.regular_bytes() : 0;
  LineRefs lines;
  while (chunks.next(lines)) {
    throw_if_cancelled(opt.cancel);
    runs.files.push_back(io::TempFile::create(opt.context, out_dir, "lines"));
    const io::File& file = runs.files.back().file();
    const Written w = sort_block(lines, file, job);
    runs.listed.push_back({"", w.lines, w.bytes, io::xxh3_of_file(file, w.bytes)});
    st.records += w.lines;
    st.output_bytes += w.bytes;
    if (progress) progress({"sort runs", src.bytes_read(), total, 0, 0});
  }
}

// The runs get their names and their outputs' mode, then the manifest makes them real.
void commit_runs(FormedRuns& runs, const std::string& out_dir, const LinesJob& job, const EngineOptions& opt,
                 RunStats& st) {
  const std::string text = runs_manifest_text(runs_format_of(job.order), runs.listed);
  io::TempFile mf = io::TempFile::create(opt.context, out_dir, "manifest");
  mf.file().write_at(text.data(), text.size(), 0);
  // Written 0600 (io/temp_files.hpp): as outputs they get a new file's mode.
  const mode_t mode = io::new_file_mode();
  for (size_t i = 0; i < runs.files.size(); ++i) {
    const std::string name = out_dir + "/" + run_file_name(i);
    if (::fchmod(runs.files[i].file().fd(), mode) != 0) fail_errno(name, "cannot set the mode", errno);
    if (opt.fsync) runs.files[i].file().sync();
    runs.files[i].move_to(name);  // still removed on an error or a signal until the manifest is in place
  }
  if (::fchmod(mf.file().fd(), mode) != 0) fail_errno(out_dir + "/manifest.txt", "cannot set the mode", errno);
  if (opt.fsync) mf.file().sync();
  if (opt.before_commit) opt.before_commit(st);  // --stats-json: before the manifest makes the runs real
  mf.commit_rename(out_dir + "/manifest.txt", false, opt.context);
  // The manifest is in place: the runs are the user's, kept whatever happens next (a
  // failed sync of the directory is an error, the directory still whole).
  for (io::TempFile& run : runs.files) run.release();
  if (opt.fsync) sync_runs_dir(out_dir, opt.context);
}

}  // namespace
}  // namespace lines

RunStats form_line_runs(const std::vector<std::string>& inputs, const std::string& out_dir, const LineOrder& order,
                        const EngineOptions& opt) {
  const auto t0 = Clock::now();
  if (out_dir.empty()) fail_usage("an output directory is required (-o DIR)");
  const lines::LinesJob job = lines::lines_job(order, opt, out_dir);
  // The inputs are opened (a missing one refused) before the directory is made: a refused
  // run leaves nothing.
  lines::LineSource src(inputs, job.order.terminator);
  CreatedDir dir(out_dir);
  check_runs_dir_empty(out_dir);
  if (src.all_regular()) io::check_space(opt.context, {{out_dir, src.regular_bytes(), "the runs"}});
  RunStats st;
  st.command = "runs";
  st.backend = lines::prefix_backend(opt);
  st.mode = "runs";
  lines::FormedRuns runs;
  {
    WholeProgress whole(opt.progress, src.all_regular() ? std::vector<ProgressStage>{{"sort runs", 0, src.regular_bytes()}}
                                                         : std::vector<ProgressStage>{});
    lines::form_runs_of(src, out_dir, job, opt, whole.fn(), runs, st);
  }
  src.check_unchanged();
  throw_if_cancelled(opt.cancel);  // the last boundary: nothing named yet
  st.input_bytes = src.bytes_read();
  st.runs = runs.files.size();
  st.phases.push_back({"sort runs", since(t0), st.input_bytes, st.output_bytes});
  st.seconds = since(t0);
  lines::commit_runs(runs, out_dir, job, opt, st);
  dir.keep();
  return st;
}

}  // namespace gxsort
