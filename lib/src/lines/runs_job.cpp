#include "lines/runs_job.hpp"

#include <sys/stat.h>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/file.hpp"
#include "io/output.hpp"
#include "lines/line_reader.hpp"

namespace gxsort::lines {
namespace {

resume::Piece run_piece(size_t i) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  return p;
}

// Everything of the order that decides a run's bytes, as text.
std::string order_text(const LineOrder& o) {
  std::string s = std::to_string(o.separator) + " " + std::to_string(int(o.terminator)) + " " +
                  (o.reverse ? "r" : "-") + (o.stable ? "s" : "-") + (o.unique ? "u" : "-");
  for (const LineKey& k : o.keys)
    s += " " + std::to_string(k.start_field) + "." + std::to_string(k.start_char) + "," + std::to_string(k.end_field) +
         "." + std::to_string(k.end_char) + (k.skip_start_blanks ? "b" : "-") + (k.skip_end_blanks ? "b" : "-") +
         (k.fold ? "f" : "-") + (k.dictionary ? "d" : "-") + (k.printable ? "i" : "-") +
         std::to_string(int(k.kind)) + (k.reverse ? "r" : "-");
  return s;
}

}  // namespace

std::string runs_job_digest(const LineSource& src, const LinesJob& job, const std::string& output) {
  std::vector<std::string> parts{"gxsort lines sort job 1"};
  for (size_t k = 0; k < src.inputs(); ++k)
    for (const std::string& s : resume::input_parts(src.file(k))) parts.push_back(s);
  // The budget decides the chunks (the runs' bounds), the output which job this is.
  for (const std::string& s : {order_text(job.order), std::to_string(job.memory), io::output_key(output)})
    parts.push_back(s);
  return resume::job_digest(parts);
}

bool keeps_runs(const LineSource& src, const LinesJob& job, const std::string& output, const EngineOptions& opt) {
  return src.all_regular() && !io::output_is_pipe(output) && !opt.context.test.no_journal &&
         resume::dirs_can_keep_job(job.tmp_dirs, false, nullptr);
}

std::unique_ptr<RunsJob> RunsJob::open(const LineSource& src, const LinesJob& job, const std::string& output,
                                       const EngineOptions& opt) {
  if (!src.all_regular()) {
    for (size_t k = 0; opt.resume && k < src.inputs(); ++k)
      if (src.file(k).is_stream())
        fail_usage(src.label(k) + ": " + option_ref("resume") + " needs regular input files (a stream cannot be read again)");
    return nullptr;
  }
  if (opt.context.test.no_journal) {  // a benchmark switch (engine/job.cpp: journal_disabled)
    if (opt.resume) fail_usage(option_ref("resume") + ": GXSORT_BENCH_NO_JOURNAL is set (a benchmark switch): no job is journalled");
    return nullptr;
  }
  if (!io::output_can_resume(output, opt.resume) || !resume::dirs_can_keep_job(job.tmp_dirs, opt.resume, opt.note))
    return nullptr;
  std::unique_ptr<RunsJob> j(new RunsJob());
  j->digest_ = runs_job_digest(src, job, output);
  j->dir_ = resume::JobDir::open(opt.context, job.tmp_dirs, j->digest_, opt.resume, io::output_key(output));
  j->dir_.keep_if_cancelled(opt.cancel);
  j->dir_.sync_entries(opt.fsync);
  j->job_ = &job;
  j->resuming_ = opt.resume;
  j->note_ = opt.note;
  j->cancel_ = opt.cancel;
  return j;
}

io::TempFile RunsJob::reuse(size_t i, uint64_t begin, uint64_t& end, uint64_t& lines, RunIndex* index) {
  const resume::Piece* p = dir_.find(run_piece(i).key());
  if (!p || p->list.size() != 2 || p->list[0] != begin) return {};  // none, or not where the text goes on
  struct stat st;
  std::string why;
  if (!dir_.piece_stat(*p, st)) why = "its file is missing";
  else if (uint64_t(st.st_size) != p->bytes)
    why = "its file holds " + std::to_string(st.st_size) + " bytes, the journal says " + std::to_string(p->bytes);
  else if (io::xxh3_blocks_of_file(dir_.open_piece(*p), p->bytes, 0, job_->threads) != p->checksum)
    why = "its XXH3 is not the journal's";
  if (!why.empty()) {
    // Formed again from the text (a disk that lost data, a file someone changed, a run
    // the last merge had consumed): the user is told which and why.
    if (note_) note_("resume: run " + std::to_string(i) + " (" + dir_.piece_path(*p) + ") discarded: " + why + "; formed again");
    dir_.remove_piece(*p);
    dir_.forget(p->key());
    ++discarded_;
    return {};
  }
  io::TempFile run = dir_.adopt_piece(*p);
  end = p->list[1];
  lines = p->records;
  if (index) *index = index_of_run(run.file(), lines, index->budget, *job_);
  ++reused_;
  return run;
}

io::TempFile RunsJob::create(size_t i) const {
  return io::TempFile::create(dir_.context(), dir_.piece_dir(run_piece(i)), "run");
}

void RunsJob::keep(size_t i, io::TempFile& run, uint64_t begin, uint64_t end, uint64_t lines) {
  resume::Piece p = run_piece(i);
  p.records = lines;
  p.bytes = run.file().size();
  // Read back on every thread: the run was just written, its pages are in the cache.
  p.checksum = io::xxh3_blocks_of_file(run.file(), p.bytes, 0, job_->threads);
  p.list = {begin, end};
  run.move_to(dir_.piece_path(p));
  run.keep_on_signals(cancel_);  // from here the journal's: a signal leaves it for --resume
  dir_.record(p, true);          // the runs' writer goes on; nothing waits for this entry
}

std::string RunsJob::summary(size_t runs) const {
  if (!resuming_) return "";
  const std::string s = "resumed: " + std::to_string(reused_) + " of " + std::to_string(runs) + " runs";
  if (!parts_) return s + " (the last merge starts over)";
  return s + ", " + std::to_string(parts_reused_) + " of " + std::to_string(parts_) + " parts of the last merge";
}

}  // namespace gxsort::lines

namespace gxsort {

LinesResume inspect_sort_lines(const std::vector<std::string>& inputs, const std::string& output,
                               const LineOrder& order, const EngineOptions& opt) {
  LinesResume r;
  const lines::LineSource src(inputs, order.terminator);
  const lines::LinesJob job = lines::lines_job(order, opt, output);
  if (!lines::keeps_runs(src, job, output, opt)) return r;
  const resume::JobDir dir = resume::JobDir::peek(job.tmp_dirs, lines::runs_job_digest(src, job, output));
  // Text within the budget goes through runs too when its lines' index does not fit: a
  // job left there is one.
  r.resumable = lines::whole_max_lines(src.regular_bytes(), job) == 0 || dir.active();
  if (!dir.active()) return r;
  r.job_dir = dir.path();
  r.running = dir.running();
  uint64_t at = 0;  // the runs in order, each from where the one before ended, as a resume takes them
  for (size_t i = 0;; ++i) {
    const resume::Piece* p = dir.find(lines::run_piece(i).key());
    struct stat st;
    if (!p || p->list.size() != 2 || p->list[0] != at || !dir.piece_stat(*p, st) || uint64_t(st.st_size) != p->bytes)
      break;
    at = p->list[1];
    ++r.runs_kept;
  }
  const lines::KeptMerge merge = lines::kept_merge(dir);
  r.merge_parts = merge.parts;
  r.parts_kept = merge.kept;
  r.last_merge_from = merge.done;
  return r;
}

}  // namespace gxsort

namespace gxsort::lines {

RunIndex index_of_run(const io::File& run, uint64_t lines, uint64_t budget, const LinesJob& job) {
  RunIndex index;
  index.budget = budget;
  index.bytes = run.size();
  const uint64_t every = sample_interval(index.bytes, lines, budget);
  LineReader reader(run, run.path(), job.order.terminator, job.merge_buffer, job.memory);
  uint64_t at = 0, next = 0, taken = 0;  // at: where the line starts; next: where a line is sampled from
  while (reader.next()) {
    const std::string_view line = reader.line();
    if (at >= next && line.size() <= kMaxSampleLine && taken < budget) {
      index.add(at, line);
      taken += sample_bytes(line.size());
      next = at + every;
    }
    at += line.size() + 1;
  }
  return index;
}

}  // namespace gxsort::lines
