// sort of text lines: in memory when the inputs and their index fit the budget (regular
// files read whole, a stream into a buffer), else sorted runs in temp files merged.
// The runs of regular inputs are pieces of a resumable job (runs_job.hpp: --resume).
#include <algorithm>
#include <memory>
#include <utility>

#include "engine/engine.hpp"
#include "gxsort/timeline.hpp"
#include "engine/whole_progress.hpp"
#include "lines/chunks.hpp"
#include "lines/lines_job.hpp"
#include "lines/run_writer.hpp"
#include "lines/runs_job.hpp"
#include "lines/sort_block.hpp"
#include "lines/sort_in_memory.hpp"
#include "lines/write_lines.hpp"

namespace gxsort {
namespace lines {
namespace {

// Regular inputs whose text and index fit the budget, read whole and sorted into `out`.
// False (nothing written) when they do not fit.
bool sort_whole(LineSource& src, io::Output& out, const LinesJob& job, RunStats& st, const ProgressFn& progress) {
  const uint64_t text = src.regular_bytes();
  const size_t max_lines = whole_max_lines(text, job);
  if (max_lines == 0) return false;
  const auto t0 = Clock::now();
  const InputText all = read_inputs(src, job.threads);
  timeline(job.sort_options.context, "lines: read");
  LineRefs lines;
  const char* at = all.bytes.data();
  for (const size_t n : all.sizes) {
    if (n && index_lines(at, n, job.order.terminator, job.threads, lines, max_lines - std::min(max_lines, lines.size())) < n)
      return false;
    at += n;
  }
  throw_if_cancelled(job.sort_options.cancel);
  st.phases.push_back({"index", since(t0), text, 0});
  const auto t1 = Clock::now();
  const Written w = sort_block(lines, out.file(), job, progress);
  st.phases.push_back({"sort and write", since(t1), 0, w.bytes});
  st.mode = "in memory";
  st.records = lines.size();
  st.input_bytes = text;
  st.output_bytes = w.bytes;
  return true;
}

// Where run `i` (of `indexes.size()` indexed so far) keeps its sparse index: while the
// runs are at most the fan-in (one merge, split over the threads), else nowhere.
RunIndex* index_of(size_t i, std::vector<RunIndex>& indexes, const LinesJob& job) {
  if (i >= job.fan_in) {
    std::vector<RunIndex>().swap(indexes);  // merged in passes: not used
    return nullptr;
  }
  RunIndex* index = &indexes.emplace_back();
  index->budget = std::max<uint64_t>(job.memory / 32 / job.fan_in, 4096);  // all of them: 1/32 of the budget
  return index;
}

// The runs a killed run of the job left that go on from byte `at` of the text, in
// order, appended to `runs`; `at` moved to where they end. Whether there were any.
bool reuse_runs(RunsJob& rj, std::vector<io::TempFile>& runs, std::vector<RunIndex>& indexes, uint64_t& at,
                const LinesJob& job, RunStats& st) {
  const size_t before = runs.size();
  for (;;) {
    uint64_t end = 0, lines = 0;
    RunIndex scratch;
    RunIndex* index = runs.size() < job.fan_in ? &scratch : nullptr;
    if (index) index->budget = std::max<uint64_t>(job.memory / 32 / job.fan_in, 4096);
    io::TempFile run = rj.reuse(runs.size(), at, end, lines, index);
    if (run.path().empty()) break;
    if (RunIndex* kept = index_of(runs.size(), indexes, job)) *kept = std::move(scratch);
    runs.push_back(std::move(run));
    st.records += lines;
    at = end;
  }
  return runs.size() > before;
}

// The text's last chunk sorted and kept in memory instead of written as a run: the
// last merge takes it as its last run (no write of it, no read back, and that merge
// starts once the run before is written). Not a piece of a job: a resume forms it again.
struct KeptChunk {
  std::unique_ptr<LineChunks> chunks;  // its text
  LineRefs lines;
  BlockOrder order;
  SortedLines sorted() const { return {lines[0].data, &lines, &order.perm, &order.keep}; }
};

// Whether the last chunk (`lines` in `chunks`' buffer) may stay in memory after `runs`
// runs: they and it merge in one pass, and its text, lines and order fit the budget
// beside that merge's buffers (the runs' readers and the writer) and the runs' indexes.
bool keeps_last(const LineChunks& chunks, const LineRefs& lines, size_t runs, const LinesJob& job) {
  if (!job.keep_last || lines.empty() || runs + 1 > job.fan_in) return false;
  const uint64_t per_line = sizeof(LineRef) + sizeof(uint64_t) + (job.order.unique ? 1 : 0);
  const uint64_t chunk = chunks.buffer_bytes() + lines.size() * per_line;
  const uint64_t merge = uint64_t(job.merge_buffer) * (runs + 1) + job.memory / 32;
  return chunk + merge <= job.memory;
}

// The text in chunks: one chunk (all of it) sorted into `out`, else each into a run,
// written by `writer` while the next chunk is read and sorted; the last one kept in
// memory (`kept`) where keeps_last allows. The runs are returned.
// With a job (`rj`), the runs are its pieces, and those a killed run left are reused
// where they go on from the text formed so far.
std::vector<io::TempFile> form_runs(LineSource& src, io::Output& out, const LinesJob& job, const EngineOptions& opt,
                                    RunStats& st, const ProgressFn& progress, RunsJob* rj,
                                    std::vector<RunIndex>& indexes, KeptChunk& kept) {
  const auto t0 = Clock::now();
  const unsigned slots = sort_chunk_slots(src, job.memory, job.fan_in);
  auto chunks = std::make_unique<LineChunks>(src, job.order.terminator, job.memory, job.threads, 0, slots);
  std::vector<io::TempFile> runs;
  LineRefs lines[2];  // the chunk being sorted, and the one before (its run being written)
  unsigned slot = 0;
  const uint64_t total = src.all_regular() ? src.regular_bytes() : 0;
  uint64_t at = 0;  // where in the text the next run starts
  RunWriter writer(job, rj);
  chunks->on_long_line([&] { writer.wait(); });
  for (;; slot ^= 1) {
    if (rj && rj->resuming()) {
      writer.wait();  // the runs and their indexes as reuse_runs finds them
      if (reuse_runs(*rj, runs, indexes, at, job, st)) {
        if (!src.seek_text(at)) throw Error(ExitCode::io, src.label(0) + ": the job's runs do not end at a line's end (run it without " + option_ref("resume") + ")");
        chunks = std::make_unique<LineChunks>(src, job.order.terminator, job.memory, job.threads, at, slots);
        chunks->on_long_line([&] { writer.wait(); });
      }
    }
    if (slots == 1) writer.wait();  // one buffer: the run before is written from it
    if (!chunks->next(lines[slot])) break;
    timeline(opt.context, "lines: chunk read and indexed");
    throw_if_cancelled(opt.cancel);
    st.records += lines[slot].size();
    if (runs.empty() && chunks->at_end()) {  // all of it in one chunk
      st.output_bytes = sort_block(lines[slot], out.file(), job, progress).bytes;
      st.mode = "in memory";
      st.input_bytes = src.bytes_read();
      st.phases.push_back({"read, sort and write", since(t0), st.input_bytes, st.output_bytes});
      return {};
    }
    const uint64_t begin = std::exchange(at, chunks->position());
    BlockOrder order = order_block(lines[slot], job);
    if (chunks->at_end() && keeps_last(*chunks, lines[slot], runs.size(), job)) {
      chunks->give_up_spare();  // the run before written and journalled, its text freed
      chunks->on_long_line(nullptr);  // the writer goes with this call
      kept = {std::move(chunks), std::move(lines[slot]), std::move(order)};
      timeline(opt.context, "lines: last chunk kept in memory");
      if (progress) progress({"sort runs", src.bytes_read(), total, 0, 0});
      break;
    }
    writer.wait();  // the run before: written and journalled (runs and indexes grow next)
    runs.push_back(rj ? rj->create(runs.size())
                      : io::TempFile::create(opt.context, job.tmp_dirs[runs.size() % job.tmp_dirs.size()], "lines"));
    RunIndex* index = index_of(runs.size() - 1, indexes, job);
    writer.start({&runs.back(), runs.size() - 1, begin, at, lines[slot].size(), index}, lines[slot], std::move(order));
    if (progress) progress({"sort runs", src.bytes_read(), total, 0, 0});
  }
  writer.wait();
  st.mode = "runs";
  st.runs = runs.size() + (kept.chunks ? 1 : 0);
  st.input_bytes = src.bytes_read();
  st.phases.push_back({"sort runs", since(t0), st.input_bytes, 0});
  timeline(opt.context, "lines: runs formed");
  return runs;
}

// The text sorted through runs (or, when it is one chunk, in memory) into `out`.
void sort_chunks(LineSource& src, io::Output& out, const LinesJob& job, const EngineOptions& opt, RunStats& st,
                 const ProgressFn& progress, RunsJob* rj) {
  std::vector<RunIndex> indexes;  // while the runs are at most the fan-in: one merge, split over the threads
  KeptChunk kept;
  std::vector<io::TempFile> runs = form_runs(src, out, job, opt, st, progress, rj, indexes, kept);
  if (st.mode != "runs") return;
  const auto t1 = Clock::now();
  MergeSetup setup = merge_setup(job, opt, false);
  if (progress) setup.progress = [&](uint64_t read) { progress({"merge", read, st.input_bytes, 0, 0}); };
  const SortedLines last = kept.chunks ? kept.sorted() : SortedLines{};
  const MergeCounts n = merge_runs(std::move(runs), out.file(), job.fan_in, job.tmp_dirs, opt.context, setup,
                                   st.merge_levels, indexes, rj, kept.chunks ? &last : nullptr);
  if (rj && out.file().size() > n.bytes) out.file().truncate(n.bytes);  // a killed run's output, taken over, was longer
  st.output_bytes = n.bytes;
  st.phases.push_back({"merge", since(t1), 0, n.bytes});
  timeline(opt.context, "lines: runs merged");
}

// The job's stages for the whole progress: a sort and a write of the text, or runs
// written and merged (the passes of a merge of more runs than the fan-in not counted).
// `whole`: the sort of all of it in memory; else runs written and merged (a text within
// the budget whose lines' index is not takes that way too).
std::vector<ProgressStage> lines_stages(const LineSource& src, bool whole) {
  if (!src.all_regular()) return {};
  const uint64_t text = src.regular_bytes();
  if (whole) return {{"sort", 0, text}, {"write", 0, text}};
  return {{"sort runs", 0, text}, {"merge", 0, text}};
}

}  // namespace
}  // namespace lines

RunStats sort_lines(const std::vector<std::string>& inputs, const std::string& output, const LineOrder& order,
                    const EngineOptions& opt) {
  const auto t0 = Clock::now();
  const lines::LinesJob job = lines::lines_job(order, opt, output);
  lines::LineSource src(inputs, job.order.terminator);
  io::Output out = io::Output::open(opt.context, output, job.tmp_dirs[0], "out");
  out.start_write_behind(opt.fsync, opt.cancel);
  RunStats st;
  st.command = "sort";
  st.backend = lines::prefix_backend(opt);
  bool sorted = false;
  if (src.all_regular() && src.regular_bytes() <= job.memory) {
    WholeProgress whole(opt.progress, lines::lines_stages(src, true));
    sorted = lines::sort_whole(src, out, job, st, whole.fn());
  }
  std::unique_ptr<lines::RunsJob> runs_job;  // the runs' pieces, kept for --resume
  if (!sorted) {
    WholeProgress whole(opt.progress, lines::lines_stages(src, false));
    runs_job = lines::RunsJob::open(src, job, output, opt);
    if (runs_job) runs_job->adopt_output(out);  // its last merge's parts are kept in it
    lines::sort_chunks(src, out, job, opt, st, whole.fn(), runs_job.get());
  }
  src.check_unchanged();
  throw_if_cancelled(opt.cancel);  // the last boundary: nothing replaced yet
  if (runs_job) {
    st.resumed = runs_job->summary(st.runs);
    st.discarded = runs_job->discarded();
  }
  commit_outputs({&out}, st, t0, opt);
  if (runs_job) runs_job->finish();
  return st;
}

}  // namespace gxsort
