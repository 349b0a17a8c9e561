#include "engine/job.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <numeric>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/output.hpp"
#include "parallel/background_tasks.hpp"
#include "parallel/parallel_for.hpp"
#include "plan/plan.hpp"

namespace gxsort {
namespace {

// Everything that decides the bytes of the output and the shape of the pieces: another
// input, format, order, -u, output or plan never meets this job's pieces.
std::string digest_of(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt) {
  const Format& f = opt.format;
  std::vector<std::string> parts{"gxsort sort job 5"};
  for (const std::string& s : resume::input_parts(in)) parts.push_back(s);
  for (const std::string& s : {std::to_string(f.record_size), f.key_text(), std::string(f.reverse ? "r" : "-"),
                               std::string(opt.unique ? "u" : "-"), opt.npy_descr, io::output_key(output),
                               std::string(plan_mode_name(p.plan.mode)), std::to_string(p.plan.run_records),
                               std::to_string(p.plan.fan_in), std::to_string(p.plan.buckets),
                               std::to_string(p.plan.run_files)})  // (a run's parts: its pieces)
    parts.push_back(s);
  return resume::job_digest(parts);
}

// What defines the runs `gxsort runs` writes: the input, its format and order, -u, the
// directory, and the runs' size.
std::string runs_digest(const io::File& in, const std::string& out_dir, size_t run_records, const EngineOptions& opt) {
  const Format& f = opt.format;
  std::vector<std::string> parts{"gxsort runs job 2"};
  for (const std::string& s : resume::input_parts(in)) parts.push_back(s);
  for (const std::string& s : {std::to_string(f.record_size), f.key_text(), std::string(f.reverse ? "r" : "-"),
                               std::string(opt.unique ? "u" : "-"), opt.npy_descr, io::output_key(out_dir),
                               std::to_string(run_records)})
    parts.push_back(s);
  return resume::job_digest(parts);
}

// What defines a merge of more files than the fan-in: each input as a sort job's input
// is defined, the output, -u and the fan-in. "" when an input is a stream (spooled into
// a temp file: nothing to resume from) or the plan has one level (no pieces).
std::string merge_digest(const Prepared& p, const Plan& plan, const std::vector<const io::File*>& inputs,
                         const std::string& output, const EngineOptions& opt) {
  if (plan.levels.size() < 2) return "";
  std::vector<std::string> parts{"gxsort merge job 3", io::output_key(output), opt.unique ? "u" : "-", opt.npy_descr,
                                 std::to_string(plan.fan_in)};
  for (const io::File* f : inputs) {
    if (f->is_stream()) return "";
    parts.push_back(digest_of(p, *f, output, opt));
  }
  return resume::job_digest(parts);
}

// The pieces of `gxsort runs`: runs of `run_records`, never merged (every run is an
// input of a "last merge" that never comes).
Plan runs_plan(const Plan& given, size_t run_records) {
  Plan plan;
  plan.mode = PlanMode::external;
  plan.run_records = run_records;
  plan.records = given.records;
  plan.runs = size_t((given.records + run_records - 1) / run_records);
  plan.fan_in = plan.runs + 1;
  return plan;
}

// Whether a job of `input` into `output` can be resumed by running its command again:
// not when either is a temp file of this process (the sort inside dedupe or graph build
// of a stream: gone with the process), nor into a pipe or socket (its reader is gone;
// io::output_can_resume refuses --resume there). Such a job keeps no pieces: its runs
// are temp files, removed on any signal, SIGPIPE included.
bool can_resume(const std::string& input, const std::string& output, bool resume) {
  if (io::is_temp_file(input) || io::is_temp_file(output)) return false;
  return io::output_can_resume(output, resume);
}

std::string run_key(size_t i, size_t part = 0) { return "run " + std::to_string(i) + " " + std::to_string(part); }
// A run's line without a file: it was held in memory (SortJob::keep_held_run).
bool held_run(const resume::Piece& p) { return p.kind == "run" && p.bytes == 0; }
std::string level_key(size_t level, size_t group) { return "level " + std::to_string(level) + " " + std::to_string(group); }
std::string bucket_key(size_t b) { return "bucket " + std::to_string(b) + " 0"; }
std::string out_key(size_t b) { return "out " + std::to_string(b) + " 0"; }
std::string final_key(size_t k) { return "final " + std::to_string(k) + " 0"; }
std::string merging_key(size_t level, size_t group) { return "merging " + std::to_string(level) + " " + std::to_string(group); }
uint64_t sum_of(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t(0)); }

// A checkpoint's cuts of the inputs the final merge reads (inputs[live[j]] cut at
// cuts[j]), as cuts of all of them: a consumed input whole.
std::vector<uint64_t> cuts_of_all_inputs(const std::vector<TreeInput>& inputs, const std::vector<size_t>& live,
                                         const std::vector<uint64_t>& cuts) {
  std::vector<uint64_t> list(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) list[i] = inputs[i].records;  // consumed: whole
  for (size_t j = 0; j < live.size(); ++j) list[live[j]] = cuts[j];
  return list;
}

// The journal's line of the final merge's checkpoint k: the output's records [from,
// records), the inputs' cuts (`list`), and the checksum of that output segment: the hash
// of the block sums the merge took as it wrote them, or its blocks read back.
resume::Piece final_checkpoint_piece(size_t k, uint64_t from, uint64_t records, size_t rs,
                                     const MergeSetup::OutputSums& given, const std::vector<uint64_t>& list,
                                     const io::File& out, uint64_t out_offset, unsigned threads) {
  resume::Piece p;
  p.kind = "final";
  p.a = k;
  p.records = records;
  p.bytes = (records - from) * rs;
  p.block = given.block;  // 0: the default 4 MiB blocks, read back from the output
  p.checksum = given.block ? io::xxh3_64(given.sums.data(), given.sums.size() * sizeof(uint64_t))
                           : io::xxh3_blocks_of_file(out, p.bytes, out_offset + from * rs, threads);
  p.list = list;
  return p;
}

// Punches the final merge's inputs up to the whole blocks (block[i] bytes each; 0: never)
// before a checkpoint's cuts, never read again; punched[i]: how far input i is punched.
// Not once the merge is done (its inputs then go whole).
void punch_merged_blocks(const std::vector<RunRef>& refs, const std::vector<uint64_t>& block,
                         std::vector<uint64_t>& punched, const std::vector<uint64_t>& cuts, size_t rs,
                         const std::atomic<bool>& merged) {
  // All the inputs at once: a punch waits for the disk's discards of the blocks it
  // frees (ext4's discard mount option, merge.cpp's remove_inputs says more).
  parallel::parallel_for(refs.size(), unsigned(refs.size()), [&](size_t i) {
    const uint64_t to = block[i] ? cuts[i] * rs / block[i] * block[i] : 0;
    if (to > punched[i] && !merged) refs[i].file->discard(refs[i].offset + punched[i], to - punched[i]);
    punched[i] = std::max(punched[i], to);
  });
}

}  // namespace

// TestHooks::no_journal (GXSORT_BENCH_NO_JOURNAL=1) runs every job as one that cannot
// resume (no job directory, no journal, no checkpoints): tools/bench/resume_cost.sh
// measures what journalling costs against it, all else the same binary. Refused with --resume.
static bool journal_disabled(const Context& context, bool resume) {
  if (!context.test.no_journal) return false;
  if (resume) fail_usage(option_ref("resume") + ": GXSORT_BENCH_NO_JOURNAL is set (a benchmark switch): no job is journalled");
  return true;
}

std::unique_ptr<SortJob> SortJob::create(const Prepared& p, const Plan& plan, const std::string& digest,
                                         const std::string& output, const EngineOptions& opt) {
  const bool resume = opt.resume;
  if (journal_disabled(opt.context, resume) || !resume::dirs_can_keep_job(p.tmp_dirs, resume, opt.note)) return nullptr;
  std::unique_ptr<SortJob> job(new SortJob());
  job->note_ = opt.note;
  job->cancel_ = opt.cancel;
  job->dir_ = resume::JobDir::open(opt.context, p.tmp_dirs, digest, resume, io::output_key(output));
  job->dir_.keep_if_cancelled(opt.cancel);
  job->dir_.sync_entries(opt.fsync);
  job->digest_ = digest;
  job->buckets_ = plan.buckets;
  job->resuming_ = resume;
  job->runs_ = plan.runs;
  job->fan_in_ = plan.fan_in;
  job->run_records_ = plan.run_records;
  job->parts_ = RunParts::of(plan);
  job->threads_ = p.threads;
  job->record_size_ = opt.format.record_size;
  for (const MergeLevel& lv : plan.levels)
    if (!lv.final)
      for (size_t g : lv.groups) job->merges_ += g > 1;
  job->verify_pieces();
  return job;
}

std::unique_ptr<SortJob> SortJob::open(const Prepared& p, const io::File& in, const std::string& output,
                                       const EngineOptions& opt) {
  if (in.is_stream() || (p.plan.mode != PlanMode::external && p.plan.mode != PlanMode::partition)) {
    if (opt.resume && in.is_stream()) fail_usage(in.path() + ": " + option_ref("resume") + " needs a regular input file (a stream cannot be read again)");
    return nullptr;
  }
  if (!can_resume(in.path(), output, opt.resume)) return nullptr;
  return create(p, p.plan, digest_of(p, in, output, opt), output, opt);
}

std::unique_ptr<SortJob> SortJob::open_merge(const Prepared& p, const Plan& plan, const std::vector<const io::File*>& inputs,
                                             const std::string& output, const EngineOptions& opt) {
  const std::string digest = merge_digest(p, plan, inputs, output, opt);
  if (digest.empty() || !io::output_can_resume(output, opt.resume)) return nullptr;
  std::unique_ptr<SortJob> job = create(p, plan, digest, output, opt);
  if (job) job->merge_only_ = true;
  return job;
}

std::unique_ptr<SortJob> SortJob::open_runs(const Prepared& p, const io::File& in, const std::string& out_dir,
                                            size_t run_records, const EngineOptions& opt) {
  if (in.is_stream()) {
    if (opt.resume) fail_usage(in.path() + ": " + option_ref("resume") + " needs a regular input file (a stream cannot be read again)");
    return nullptr;
  }
  // The runs are the command's output: their job directory is in the output directory,
  // a link away from their names there (form_runs).
  Prepared q;
  q.tmp_dirs = {out_dir};
  q.threads = p.threads;
  std::unique_ptr<SortJob> job = create(q, runs_plan(p.plan, run_records), runs_digest(in, out_dir, run_records, opt), out_dir, opt);
  if (job) job->runs_only_ = true;
  return job;
}

uint64_t SortJob::run_checksum(size_t i) const {
  const resume::Piece* p = dir_.find(run_key(i));
  return p ? p->checksum : 0;
}

SortJob::~SortJob() { dir_.remove(); }  // kept while a cancelled call unwinds (JobDir::remove)

ResumeState SortJob::inspect(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt) {
  const bool pieces = !in.is_stream() && (p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition);
  return peek(p.tmp_dirs, p.plan, pieces ? digest_of(p, in, output, opt) : "", ResumeState::Of::sort);
}

ResumeState SortJob::inspect_runs(const Prepared& p, const io::File& in, const std::string& out_dir, const EngineOptions& opt) {
  const Plan plan = runs_plan(p.plan, p.plan.run_records);
  return peek({out_dir}, plan, in.is_stream() ? "" : runs_digest(in, out_dir, plan.run_records, opt), ResumeState::Of::runs);
}

ResumeState SortJob::inspect_merge(const Prepared& p, const std::vector<const io::File*>& inputs, const std::string& output,
                                   const EngineOptions& opt) {
  return peek(p.tmp_dirs, p.plan, merge_digest(p, p.plan, inputs, output, opt), ResumeState::Of::merge);
}

ResumeState SortJob::peek(const std::vector<std::string>& dirs, const Plan& plan, const std::string& digest, ResumeState::Of of) {
  ResumeState r;
  r.of = of;
  r.runs = plan.mode == PlanMode::external ? plan.runs : 0;
  r.buckets = plan.mode == PlanMode::partition ? plan.buckets : 0;
  for (const MergeLevel& lv : plan.levels)
    if (!lv.final && r.runs)
      for (size_t g : lv.groups) r.merges += g > 1;
  r.runs_to_form = of == ResumeState::Of::merge ? 0 : r.runs;  // a merge's inputs are the user's files
  r.resumable = !digest.empty();
  if (!r.resumable) return r;
  SortJob job;  // a peek: holds no lock, removes nothing
  job.dir_ = resume::JobDir::peek(dirs, digest);
  if (!job.dir_.active()) return r;
  job.runs_ = plan.runs;
  job.fan_in_ = plan.fan_in;
  job.parts_ = RunParts::of(plan);
  r.job_dir = job.dir_.path();
  r.running = job.dir_.running();
  const std::set<std::string> consumed = job.inputs_of_started_merges();
  for (const auto& [key, piece] : job.dir_.pieces()) {
    struct stat st;
    const bool kept = job.dir_.piece_stat(piece, st) && uint64_t(st.st_size) == piece.bytes && !consumed.count(key);
    if (!kept || (piece.kind != "run" && piece.kind != "level" && piece.kind != "bucket")) continue;
    job.verified_.insert(key);
    if (piece.kind == "level") ++r.merges_kept;
  }
  for (size_t i = 0; i < job.runs_; ++i) r.runs_kept += job.run_kept(i);
  if (r.runs && of != ResumeState::Of::merge) {
    const std::vector<bool> form = job.runs_to_form();
    r.runs_to_form = size_t(std::count(form.begin(), form.end(), true));
  }
  for (uint64_t at = 0; r.buckets_written < r.buckets; ++r.buckets_written) {  // the segments in order
    const resume::Piece* s = job.dir_.find(out_key(r.buckets_written));
    if (!s || s->records != at) break;
    at += s->bytes;
  }
  for (size_t b = r.buckets_written; b < r.buckets; ++b) r.buckets_kept += job.verified_.count(bucket_key(b));
  // The last merge: its last checkpoint against the records of its inputs (a run not
  // journalled, such as a merge's input file, by the plan's size).
  uint64_t inputs = 0, done = 0;
  for (const std::string& key : job.final_input_keys()) {
    const resume::Piece* piece = job.dir_.find(key);
    if (piece) inputs += piece->records;
    else if (key.rfind("run ", 0) == 0 && plan.run_sizes.size() == plan.runs) inputs += job.part_records(plan, key);
  }
  for (size_t k = 0; const resume::Piece* c = job.dir_.find(final_key(k)); ++k) done = sum_of(c->list);
  if (inputs) r.last_merge_from = std::min(1.0, double(done) / double(inputs));
  return r;
}

std::string SortJob::check(const resume::Piece& p, uint64_t from_byte) const {
  struct stat st;
  if (!dir_.piece_stat(p, st)) return "its file is missing";
  if (uint64_t(st.st_size) != p.bytes)
    return "its file holds " + std::to_string(st.st_size) + " bytes, the journal says " + std::to_string(p.bytes);
  const io::File f = dir_.open_piece(p);
  if (p.kind == "bucket") return io::xxh3_of_file(f, p.bytes) == p.checksum ? "" : "its XXH3 is not the journal's";
  if (p.block == 0 || p.list.size() != (p.bytes + p.block - 1) / p.block) return "its journal entry is malformed";
  const size_t first = size_t(std::min<uint64_t>(from_byte / p.block, p.list.size()));
  const std::vector<uint64_t> sums = io::block_sums_of_file(f, p.bytes, p.block, first, threads_);
  for (size_t i = first; i < sums.size(); ++i)
    if (sums[i] != p.list[i])
      return "the XXH3 of its bytes " + std::to_string(i * p.block) + ".." +
             std::to_string(std::min(p.bytes, (i + 1) * p.block)) + " is not the journal's";
  return "";
}

namespace {

// A journalled piece in words, for the notes.
std::string piece_name(const resume::Piece& p) {
  const std::string a = std::to_string(p.a);
  if (p.kind == "run") return "run " + a + (p.b ? ", part " + std::to_string(p.b) : "");  // Plan::run_files
  if (p.kind == "level") return "merge output " + std::to_string(p.b) + " of level " + a;
  if (p.kind == "bucket") return "bucket " + a;
  if (p.kind == "out") return "the output segment of bucket " + a;
  if (p.kind == "final") return "checkpoint " + a + " of the last merge";
  return p.key();
}

}  // namespace

void SortJob::discard(const resume::Piece& p, const std::string& where, const std::string& why, const std::string& then) {
  // A piece that does not check out is done again: its file goes now, and the user is
  // told which and why (a disk that lost data, or a file someone changed).
  if (p.kind != "out" && p.kind != "final") dir_.remove_piece(p);
  ++discarded_;
  if (note_) note_("resume: " + piece_name(p) + " (" + where + ") discarded: " + why + "; " + then);
  dir_.forget(p.key());
}

void SortJob::verify_pieces() {
  // The inputs of a last merge that left checkpoints are partly consumed (punched):
  // adopt_output verifies them from where its verified checkpoint cut them.
  const bool checkpoints = dir_.find("final 0 0") != nullptr;
  if (checkpoints)
    for (const std::string& key : final_input_keys())
      if (dir_.find(key)) deferred_.insert(key);
  // An intermediate merge punches its inputs as it reads them: those of a merge that
  // started were consumed, not damaged (its output, when journalled, holds them).
  const std::set<std::string> consumed = inputs_of_started_merges();
  std::vector<std::pair<std::string, std::string>> bad;  // key, why
  for (const auto& [key, piece] : dir_.pieces()) {
    if (piece.kind == "out" || piece.kind == "final" || piece.kind == "merging" || deferred_.count(key)) continue;
    // A piece's file goes once what it was merged into (or, for a bucket, the output)
    // holds its data: a missing file was consumed, not damaged.
    struct stat st;
    if (consumed.count(key) || !dir_.piece_stat(piece, st)) {
      bad.push_back({key, ""});
      continue;
    }
    const bool ours = piece.kind != "run" || (piece.a < runs_ && piece.b < parts_.parts(size_t(piece.a)));
    const std::string why = ours ? check(piece, 0) : "not a run of this plan";
    if (why.empty()) verified_.insert(key);
    else bad.push_back({key, why});
  }
  for (const auto& [key, why] : bad) {
    const resume::Piece p = *dir_.find(key);
    if (why.empty()) dir_.remove_piece(p), dir_.forget(key);  // consumed: formed again, no note
    else discard(p, dir_.piece_path(p), why, "formed again");
  }
  // A merge whose output is not kept runs again: its mark is made void, so that the
  // inputs formed again for it are not taken for consumed after another kill.
  const std::map<std::string, resume::Piece> pieces = dir_.pieces();  // record() adds to them
  for (const auto& [key, piece] : pieces)
    if (piece.kind == "merging" && piece.bytes == 0 && !verified_.count(level_key(piece.a, piece.b))) {
      resume::Piece done = piece;
      done.bytes = 1;
      dir_.record(done, true);
    }
}

std::vector<std::string> SortJob::merged_level(const std::vector<std::string>& items, size_t level) const {
  // The merge tree groups consecutive inputs fan_in at a time (engine/merge.cpp); a
  // group of one is carried over as it is. Replayed here on journal keys.
  std::vector<std::string> next;
  for (size_t b = 0, g = 0; b < items.size(); b += fan_in_, ++g)
    next.push_back(std::min(items.size(), b + fan_in_) - b == 1 ? items[b] : level_key(level, g));
  return next;
}

std::vector<std::string> SortJob::run_input_keys() const {
  std::vector<std::string> items;
  for (size_t i = 0; i < runs_; ++i)
    for (size_t j = 0; j < parts_.parts(i); ++j) items.push_back(run_key(i, j));
  return items;
}

std::vector<std::string> SortJob::final_input_keys() const {
  std::vector<std::string> items = run_input_keys();
  for (size_t l = 1; items.size() > fan_in_; ++l) items = merged_level(items, l);
  return items;
}

std::set<std::string> SortJob::inputs_of_started_merges() const {
  std::set<std::string> consumed;
  std::vector<std::string> items = run_input_keys();  // the inputs of level l
  for (size_t l = 1; items.size() > fan_in_; ++l) {
    for (size_t b = 0, g = 0; b < items.size(); b += fan_in_, ++g)
      if (const resume::Piece* m = dir_.find(merging_key(l, g)); m && m->bytes == 0)
        for (size_t i = b; i < std::min(items.size(), b + fan_in_); ++i) consumed.insert(items[i]);
    items = merged_level(items, l);
  }
  return consumed;
}

std::pair<size_t, size_t> SortJob::span(size_t level, size_t group) const {
  // The merge tree groups consecutive inputs fan_in at a time (engine/merge.cpp); a
  // group of one is carried over. Replayed here on the ranges of the runs' inputs.
  std::vector<std::pair<size_t, size_t>> items;
  for (size_t i = 0; i < parts_.first_input(runs_); ++i) items.push_back({i, i + 1});
  for (size_t l = 1; items.size() > fan_in_; ++l) {
    std::vector<std::pair<size_t, size_t>> next;
    for (size_t b = 0, g = 0; b < items.size(); b += fan_in_, ++g) {
      const size_t e = std::min(items.size(), b + fan_in_);
      const std::pair<size_t, size_t> s{items[b].first, items[e - 1].second};
      if (l == level && g == group) return s;
      next.push_back(s);
    }
    items.swap(next);
  }
  return {0, 0};
}

bool SortJob::run_kept(size_t i) const {
  for (size_t j = 0; j < parts_.parts(i); ++j)
    if (!verified_.count(run_key(i, j))) return false;
  return true;
}

uint64_t SortJob::part_records(const Plan& plan, const std::string& key) const {
  size_t i = 0, j = 0;
  if (std::sscanf(key.c_str(), "run %zu %zu", &i, &j) != 2 || i >= plan.run_sizes.size()) return 0;
  const size_t k = parts_.parts(i);
  return RunParts::part_begin(plan.run_sizes[i], k, j + 1) - RunParts::part_begin(plan.run_sizes[i], k, j);
}

std::vector<bool> SortJob::runs_to_form() const {
  std::vector<bool> form(runs_, true);
  for (size_t i = 0; i < runs_; ++i) form[i] = !run_kept(i);
  for (const std::string& key : verified_) {
    const resume::Piece& p = *dir_.find(key);
    if (p.kind != "level") continue;
    // (A merge tree has more than one level only with one file a run: a level covers whole runs.)
    const auto [first, end] = span(p.a, p.b);
    for (size_t x = first; x < end && x < parts_.first_input(runs_); ++x) form[parts_.run_of_input(x)] = false;
  }
  return form;
}

TreeInput SortJob::piece_input(const resume::Piece& p, bool direct) const {
  TreeInput t;
  t.records = p.records;
  t.piece = p.key();
  if (consumed_.count(t.piece)) return t;  // no file: final_merge leaves it out
  // The last owner deletes the piece: its data lives on in what it was merged into.
  // Open for writing: punching what the merge has read needs it.
  t.file = dir_.shared_piece(p);
  t.direct = direct;
  t.discardable = true;  // punched as it is read, like any temp run (merge.hpp says why)
  return t;
}

TreeInput SortJob::reuse_run(size_t i, size_t part) {
  if (!verified_.count(run_key(i, part))) return {};
  runs_reused_ += part == 0;
  return piece_input(*dir_.find(run_key(i, part)), false);
}

// (A part kept by a killed run, of a run formed again for a part that was not: the new
// piece replaces it, the same bytes.)
io::TempFile SortJob::create_run(size_t i, size_t part) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  p.b = part;
  return io::TempFile::create(dir_.context(), dir_.piece_dir(p), "run");
}

TreeInput SortJob::keep_run(size_t i, size_t part, io::TempFile run, uint64_t records, std::vector<uint64_t> sums,
                            bool direct, uint64_t checksum) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  p.b = part;
  p.records = records;
  p.checksum = checksum;
  p.bytes = run.file().size();
  p.block = resume::piece_block_bytes(p.bytes);
  p.list = std::move(sums);
  run.move_to(dir_.piece_path(p));
  run.release();  // from here the journal's: a signal leaves it for --resume
  dir_.record(p, true);  // the writer of the runs goes on; nothing waits for this entry
  return piece_input(p, direct);
}

void SortJob::keep_held_run(size_t i, uint64_t records) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  p.records = records;  // bytes 0: no file (held_run)
  dir_.record(p, true);  // nothing waits for it, as for a written run
}

TreeInput SortJob::reuse(size_t level, size_t group) {
  if (!verified_.count(level_key(level, group))) return {};
  ++merges_reused_;
  return piece_input(*dir_.find(level_key(level, group)), false);
}

io::TempFile SortJob::create(size_t level, size_t group) {
  // The merge punches its inputs as it reads them: journalled, a resume after a kill
  // forms them again without taking them for damaged ones (verify_pieces).
  resume::Piece m;
  m.kind = "merging";
  m.a = level;
  m.b = group;
  dir_.record(m, true);
  resume::Piece p;
  p.kind = "level";
  p.a = level;
  p.b = group;
  return io::TempFile::create(dir_.context(), dir_.piece_dir(p), "merge");
}

TreeInput SortJob::keep(size_t level, size_t group, io::TempFile merged, uint64_t records, bool direct) {
  resume::Piece p;
  p.kind = "level";
  p.a = level;
  p.b = group;
  p.records = records;
  p.bytes = merged.file().size();
  // Merge threads write the piece in parallel ranges: its checksums are read back (from
  // the page cache, unless it went around it).
  p.block = resume::piece_block_bytes(p.bytes);
  p.list = io::block_sums_of_file(merged.file(), p.bytes, p.block, 0, threads_);
  merged.move_to(dir_.piece_path(p));
  merged.release();
  dir_.record(p);
  return piece_input(p, direct);
}

void SortJob::adopt_output(io::Output& out) {
  const bool taken_over = out.keep_for_job(io::kJobPrefix + digest_ + ".out", resuming_, cancel_);
  output_ = &out.file();
  if (buckets_) {
    if (taken_over) adopt_segments(out.file());
  } else {
    const io::File none;
    adopt_checkpoints(taken_over ? out.file() : none, record_size_);
  }
}

void SortJob::adopt_segments(const io::File& f) {
  // The buckets written before the kill: each journalled segment, in order, that checks out.
  for (; first_unwritten_ < buckets_; ++first_unwritten_) {
    const resume::Piece* s = dir_.find(out_key(first_unwritten_));
    if (!s || s->records != written_) break;  // records: the offset
    std::string why;
    if (f.size() < s->records + s->bytes) why = "the job's output ends before it";
    else if (io::xxh3_blocks_of_file(f, s->bytes, s->records, threads_) != s->checksum) why = "its XXH3 is not the journal's";
    if (!why.empty()) {
      discard(*s, segment_text(s->records, s->bytes), why, "the buckets from " + std::to_string(first_unwritten_) + " on are sorted again");
      break;
    }
    written_ += s->bytes;
  }
}

std::string SortJob::segment_text(uint64_t offset, uint64_t bytes) const {
  return "bytes " + std::to_string(offset) + ".." + std::to_string(offset + bytes) + " of " + output_->path();
}

// Why checkpoint `c` of the last merge cannot be trusted ("" when it checks out).
std::string SortJob::check_checkpoint(const io::File& f, const resume::Piece& c, size_t inputs, size_t rs) const {
  if (c.records < final_records_ || c.bytes != (c.records - final_records_) * rs || c.list.size() != inputs)
    return "its journal entry does not follow the one before";
  if (f.size() < c.records * rs) return "the job's output ends before it";
  if (io::xxh3_blocks_of_file(f, c.bytes, final_records_ * rs, threads_, c.block) != c.checksum) return "its XXH3 is not the journal's";
  return "";
}

void SortJob::adopt_checkpoints(const io::File& f, size_t rs) {
  // The last merge's checkpoints a killed run kept: in order, each whose new output
  // checks out (`f` is closed when no output was taken over: none does).
  const std::vector<std::string> inputs = final_input_keys();
  size_t k = 0;
  for (; dir_.find(final_key(k)); ++k) {
    const resume::Piece c = *dir_.find(final_key(k));
    const std::string why = f.is_open() ? check_checkpoint(f, c, inputs.size(), rs) : "the job's output beside the target is gone";
    if (!why.empty()) {
      const std::string from = k ? "goes on from checkpoint " + std::to_string(k - 1) : "starts from the beginning";
      discard(c, f.is_open() ? segment_text(final_records_ * rs, c.bytes) : "the job's output", why, "the last merge " + from);
      break;
    }
    final_cuts_ = c.list;
    final_records_ = c.records;
  }
  final_checkpoints_ = k;
  for (size_t j = k; dir_.find(final_key(j)); ++j) dir_.forget(final_key(j));  // rewritten from k on
  // Its input pieces, from the block each is consumed to (the merge punched only
  // behind its last checkpoint); one that fails is formed again, the same bytes.
  // One the checkpoint covers whole is in the output already: when the finished merge
  // had removed its file (a kill before the commit), it is neither read nor formed.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!deferred_.count(inputs[i])) continue;
    const resume::Piece p = *dir_.find(inputs[i]);
    const bool whole = final_cuts_.size() == inputs.size() && final_cuts_[i] == p.records;
    struct stat st;
    if (whole && !dir_.piece_stat(p, st)) {
      consumed_.insert(inputs[i]);
      verified_.insert(inputs[i]);
      continue;
    }
    if (held_run(p)) {  // not all in the output: formed again (nothing was lost, no note)
      dir_.forget(inputs[i]);
      continue;
    }
    const std::string why = check(p, final_cuts_.empty() ? 0 : final_cuts_[i] * rs);
    if (why.empty()) verified_.insert(inputs[i]);
    else discard(p, dir_.piece_path(p), why, "formed again");
  }
  deferred_.clear();
}

uint64_t SortJob::final_merge(const MergeSetup& job, const std::vector<TreeInput>& inputs, const io::File& out,
                              uint64_t out_offset) {
  // The merge reads the inputs that are not consumed (their order kept, so ties still go
  // to the earlier input); its checkpoints list every input's cut, as a resume reads them.
  std::vector<RunRef> refs;
  std::vector<size_t> live;  // refs[j] is inputs[live[j]]
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!consumed_.count(inputs[i].piece)) refs.push_back(inputs[i].ref()), live.push_back(i);
  if (&out != output_) return merge_runs(job, refs, out, out_offset);  // not the job's output: nothing to resume
  const size_t rs = job.format->record_size;
  const bool from_checkpoint = final_cuts_.size() == inputs.size();
  uint64_t total = 0, all = 0, done_before = 0;
  std::vector<uint64_t> start(refs.size(), 0), block(refs.size(), 0), punched(refs.size(), 0);  // block 0: never punched
  for (size_t i = 0; i < inputs.size(); ++i) {
    all += inputs[i].records;
    done_before += from_checkpoint ? final_cuts_[i] : 0;
  }
  for (size_t j = 0; j < refs.size(); ++j) {
    total += refs[j].records;
    if (from_checkpoint) start[j] = final_cuts_[live[j]];
    const std::string& key = inputs[live[j]].piece;
    if (const resume::Piece* p = key.empty() ? nullptr : dir_.find(key)) block[j] = p->block;
  }
  final_resumed_at_ = all ? double(done_before) / double(all) : 0;
  MergeSetup resumed = job;
  resumed.start = &start;
  // About 64 checkpoints a merge, of 16 MiB of input at least: a kill loses little, and
  // each costs a journal line (merges hash their output as they write it,
  // MergeSetup::output_sums; a device merge with -u leaves it to be read back).
  resumed.checkpoint_bytes = std::max<uint64_t>(uint64_t(16) << 20, total * rs / 64);
  MergeSetup::OutputSums sums;
  resumed.output_sums = &sums;
  std::vector<unsigned char> last(rs);
  if (job.unique && final_records_) {
    out.read_at(last.data(), rs, out_offset + (final_records_ - 1) * rs);
    resumed.unique_after = last.data();
  }
  if (job.done_bytes) *job.done_bytes += done_before * rs;
  uint64_t kept_rank = sum_of(start), kept_records = final_records_;
  std::vector<std::future<void>> pending;
  double keeper_busy = 0;  // written by the keeper's tasks, read once they are done
  // Once the merge is done its inputs go whole (their files are removed, the pages
  // dropped unwritten): the checkpoints still queued only journal their lines.
  std::atomic<bool> merged{false};
  parallel::BackgroundTasks keeper(1);  // last: its tasks end before what they use goes
  // A checkpoint: its new output's checksum and its journal line on the keeper thread,
  // then the inputs' whole blocks behind it, never read again, punched.
  resumed.checkpoint = [&](const std::vector<uint64_t>& cuts, uint64_t out_records) {
    const uint64_t rank = sum_of(cuts), records = final_records_ + out_records;
    // A CPU merge's sums cover the output since its last call: each call is kept.
    if (!sums.block && (rank - kept_rank) * rs < resumed.checkpoint_bytes && rank < total) return;
    const uint64_t from = kept_records;
    const size_t k = final_checkpoints_++;
    kept_rank = rank;
    kept_records = records;
    MergeSetup::OutputSums given;
    given.block = sums.block;
    given.sums.swap(sums.sums);
    pending.push_back(keeper.submit([this, &refs, &block, &punched, &out, &keeper_busy, &merged, out_offset, rs, cuts, from,
                                     records, k, given, list = cuts_of_all_inputs(inputs, live, cuts)] {
      const auto t0 = std::chrono::steady_clock::now();
      // Fsync'd behind: a journal fsync commits the file system (waiting for the output's
      // writeback), and unpunched runs were written back meanwhile for nothing. A reboot
      // that loses the line leaves runs punched past the checkpoint it kept: they fail
      // verification and are formed again, as any piece a reboot cut short.
      dir_.record(final_checkpoint_piece(k, from, records, rs, given, list, out, out_offset, threads_), true);
      punch_merged_blocks(refs, block, punched, cuts, rs, merged);
      keeper_busy += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }));
  };
  const uint64_t written = merge_runs(resumed, refs, out, out_offset + final_records_ * rs);
  merged = true;
  const auto t_wait = std::chrono::steady_clock::now();
  for (auto& f : pending) f.get();
  if (job.stage_seconds) {
    job.stage_seconds->checkpoints += keeper_busy;
    job.stage_seconds->checkpoint_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_wait).count();
  }
  return final_records_ + written;
}

bool SortJob::kept_buckets(size_t from, size_t buckets) const {
  for (size_t b = from; b < buckets; ++b)
    if (!verified_.count(bucket_key(b))) return false;
  return true;
}

io::TempFile SortJob::adopt_bucket(size_t b) {
  ++buckets_reused_;
  return dir_.adopt_piece(*dir_.find(bucket_key(b)));
}

io::TempFile SortJob::create_bucket(size_t b) {
  resume::Piece p;
  p.kind = "bucket";
  p.a = b;
  return io::TempFile::create(dir_.context(), dir_.piece_dir(p), "bucket");
}

void SortJob::keep_bucket(size_t b, io::TempFile& file, uint64_t checksum) {
  resume::Piece p;
  p.kind = "bucket";
  p.a = b;
  p.bytes = file.file().size();
  p.checksum = checksum;
  file.move_to(dir_.piece_path(p));
  file.keep_on_signals(cancel_);  // still removed when its bucket is done
  dir_.record(p);
}

void SortJob::keep_segment(size_t b, uint64_t offset, uint64_t bytes, uint64_t checksum) {
  resume::Piece p;
  p.kind = "out";
  p.a = b;
  p.records = offset;  // an output segment's place (its key is its bucket alone)
  p.bytes = bytes;
  p.checksum = checksum;
  dir_.record(p);
}

void SortJob::finish() { dir_.remove(); }

std::string SortJob::summary() const {
  if (!resuming_) return "";
  const std::string bad = discarded_ ? ", " + std::to_string(discarded_) + " discarded (failed verification)" : "";
  if (buckets_)
    return "resumed: " + std::to_string(buckets_reused_ + first_unwritten_) + " of " + std::to_string(buckets_) +
           " buckets, " + std::to_string(first_unwritten_) + " of them already in the output" + bad;
  std::vector<std::string> parts;
  if (!merge_only_) parts.push_back(std::to_string(runs_reused_) + " of " + std::to_string(runs_) + " runs");
  if (!runs_only_) parts.push_back(std::to_string(merges_reused_) + " of " + std::to_string(merges_) + " merge outputs");
  std::string s = "resumed: " + parts[0] + (parts.size() > 1 ? ", " + parts[1] : "");
  if (final_resumed_at_ > 0) s += ", the last merge from " + std::to_string(int(final_resumed_at_ * 100)) + "%";
  return s + bad;
}

}  // namespace gxsort
