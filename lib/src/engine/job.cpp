#include "engine/job.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/output.hpp"
#include "plan/plan.hpp"

namespace gxsort {
namespace {

// Everything that decides the bytes of the output and the shape of the pieces: another
// input, format, order, -u, output or plan never meets this job's pieces.
std::string digest_of(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt) {
  const Format& f = opt.format;
  char* real = ::realpath(in.path().c_str(), nullptr);
  const std::string input = real ? real : in.path();
  std::free(real);
  return resume::job_digest({"gxsort sort job 1", input, std::to_string(in.open_size()), std::to_string(in.open_mtime_ns()),
                             std::to_string(f.record_size), std::to_string(f.key_offset), key_type_name(f.key_type),
                             std::to_string(f.key_bytes), f.reverse ? "r" : "-", opt.unique ? "u" : "-", opt.npy_descr,
                             io::output_key(output), plan_mode_name(p.plan.mode), std::to_string(p.plan.run_records),
                             std::to_string(p.plan.fan_in), std::to_string(p.plan.buckets)});
}

uint64_t hash_file(const std::string& path, uint64_t bytes) {
  return io::xxh3_of_file(io::File::open_read(path), bytes);
}

std::string run_key(size_t i) { return "run " + std::to_string(i) + " 0"; }
std::string level_key(size_t level, size_t group) { return "level " + std::to_string(level) + " " + std::to_string(group); }

}  // namespace

std::unique_ptr<SortJob> SortJob::create(const std::vector<std::string>& dirs, const std::string& digest, const Plan& plan,
                                         bool resume, const std::string& output) {
  std::unique_ptr<SortJob> job(new SortJob());
  job->dir_ = resume::JobDir::open(dirs, digest, resume, io::output_key(output));
  job->digest_ = digest;
  job->buckets_ = plan.buckets;
  job->resuming_ = resume;
  job->runs_ = plan.runs;
  job->fan_in_ = plan.fan_in;
  job->run_records_ = plan.run_records;
  for (const MergeLevel& lv : plan.levels)
    if (!lv.final)
      for (size_t g : lv.groups) job->merges_ += g > 1;
  job->verify_pieces();
  return job;
}

std::unique_ptr<SortJob> SortJob::open(const Prepared& p, const io::File& in, const std::string& output,
                                       const EngineOptions& opt) {
  if (in.is_stream() || (p.plan.mode != PlanMode::external && p.plan.mode != PlanMode::partition)) {
    if (opt.resume && in.is_stream()) fail_usage(in.path() + ": --resume needs a regular input file (a stream cannot be read again)");
    return nullptr;
  }
  return create(p.tmp_dirs, digest_of(p, in, output, opt), p.plan, opt.resume, output);
}

std::unique_ptr<SortJob> SortJob::open_merge(const Prepared& p, const Plan& plan, const std::vector<const io::File*>& inputs,
                                             const std::string& output, const EngineOptions& opt) {
  if (plan.levels.size() < 2) return nullptr;
  std::vector<std::string> parts{"gxsort merge job 1", io::output_key(output), opt.unique ? "u" : "-", opt.npy_descr,
                                 std::to_string(plan.fan_in)};
  for (const io::File* f : inputs) {
    if (f->is_stream()) return nullptr;  // spooled into a temp file: nothing to resume from
    parts.push_back(digest_of(p, *f, output, opt));
  }
  return create(p.tmp_dirs, resume::job_digest(parts), plan, opt.resume, output);
}

SortJob::~SortJob() { dir_.remove(); }

void SortJob::verify_pieces() {
  std::vector<std::string> bad;
  for (const auto& [key, piece] : dir_.pieces()) {
    const std::string path = dir_.piece_path(piece);
    struct stat st;
    if (piece.kind == "out") continue;  // segments of the output: adopt_output checks them
    const bool ok = ::stat(path.c_str(), &st) == 0 && uint64_t(st.st_size) == piece.bytes &&
                    (piece.kind == "run" ? piece.a < runs_ : true) && hash_file(path, piece.bytes) == piece.checksum;
    if (ok) verified_.insert(key);
    else bad.push_back(key);
  }
  // A piece that does not check out is formed again (its file goes now).
  for (const std::string& key : bad) {
    ::unlink(dir_.piece_path(*dir_.find(key)).c_str());
    dir_.forget(key);
  }
}

std::pair<size_t, size_t> SortJob::span(size_t level, size_t group) const {
  // The merge tree groups consecutive inputs fan_in at a time (engine/merge.cpp); a
  // group of one is carried over. Replayed here on run index ranges.
  std::vector<std::pair<size_t, size_t>> items;
  for (size_t i = 0; i < runs_; ++i) items.push_back({i, i + 1});
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

std::vector<bool> SortJob::runs_to_form() const {
  std::vector<bool> form(runs_, true);
  for (const std::string& key : verified_) {
    const resume::Piece& p = *dir_.find(key);
    if (p.kind == "run") form[p.a] = false;
    if (p.kind != "level") continue;
    const auto [first, end] = span(p.a, p.b);
    for (size_t i = first; i < end && i < runs_; ++i) form[i] = false;
  }
  return form;
}

TreeInput SortJob::piece_input(const resume::Piece& p, bool direct) const {
  // The last owner deletes the piece: its data lives on in what it was merged into.
  const std::string path = dir_.piece_path(p);
  TreeInput t;
  t.file = std::shared_ptr<io::File>(new io::File(io::File::open_read(path)), [path](io::File* f) {
    delete f;
    ::unlink(path.c_str());
  });
  t.records = p.records;
  t.direct = direct;
  return t;
}

TreeInput SortJob::reuse_run(size_t i) {
  if (!verified_.count(run_key(i))) return {};
  ++runs_reused_;
  return piece_input(*dir_.find(run_key(i)), false);
}

io::TempFile SortJob::create_run(size_t i) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  return io::TempFile::create(dir_.piece_dir(p), "run");
}

TreeInput SortJob::keep_run(size_t i, io::TempFile run, uint64_t records, uint64_t checksum, bool direct) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  p.records = records;
  p.bytes = run.file().size();
  p.checksum = checksum;
  run.move_to(dir_.piece_path(p));
  run.release();  // from here the journal's: a signal leaves it for --resume
  dir_.record(p);
  return piece_input(p, direct);
}

TreeInput SortJob::reuse(size_t level, size_t group) {
  if (!verified_.count(level_key(level, group))) return {};
  ++merges_reused_;
  return piece_input(*dir_.find(level_key(level, group)), false);
}

io::TempFile SortJob::create(size_t level, size_t group) {
  resume::Piece p;
  p.kind = "level";
  p.a = level;
  p.b = group;
  return io::TempFile::create(dir_.piece_dir(p), "merge");
}

TreeInput SortJob::keep(size_t level, size_t group, io::TempFile merged, uint64_t records, bool direct) {
  resume::Piece p;
  p.kind = "level";
  p.a = level;
  p.b = group;
  p.records = records;
  p.bytes = merged.file().size();
  // Merge threads write the piece in parallel ranges: its checksum is read back (from
  // the page cache, unless it went around it).
  p.checksum = io::xxh3_of_file(merged.file(), p.bytes);
  merged.move_to(dir_.piece_path(p));
  merged.release();
  dir_.record(p);
  return piece_input(p, direct);
}

namespace {
std::string bucket_key(size_t b) { return "bucket " + std::to_string(b) + " 0"; }
std::string out_key(size_t b) { return "out " + std::to_string(b) + " 0"; }
}  // namespace

void SortJob::adopt_output(io::Output& out) {
  if (!out.keep_for_job(io::kJobPrefix + digest_ + ".out", resuming_)) return;
  // The buckets written before the kill: each journalled segment, in order, that checks out.
  const io::File& f = out.file();
  for (; first_unwritten_ < buckets_; ++first_unwritten_) {
    const resume::Piece* s = dir_.find(out_key(first_unwritten_));
    if (!s || s->records != written_ || f.size() < s->records + s->bytes) break;  // records: the offset
    io::Xxh3 h;
    std::vector<unsigned char> buf(size_t(std::min<uint64_t>(s->bytes, uint64_t(8) << 20)));
    for (uint64_t o = 0; o < s->bytes; o += buf.size()) {
      const size_t len = size_t(std::min<uint64_t>(buf.size(), s->bytes - o));
      f.read_at(buf.data(), len, s->records + o);
      h.update(buf.data(), len);
    }
    if (h.digest() != s->checksum) break;
    written_ += s->bytes;
  }
}

bool SortJob::kept_buckets(size_t from, size_t buckets) const {
  for (size_t b = from; b < buckets; ++b)
    if (!verified_.count(bucket_key(b))) return false;
  return true;
}

io::TempFile SortJob::adopt_bucket(size_t b) {
  ++buckets_reused_;
  return io::TempFile::adopt(dir_.piece_path(*dir_.find(bucket_key(b))));
}

io::TempFile SortJob::create_bucket(size_t b) {
  resume::Piece p;
  p.kind = "bucket";
  p.a = b;
  return io::TempFile::create(dir_.piece_dir(p), "bucket");
}

void SortJob::keep_bucket(size_t b, io::TempFile& file, uint64_t checksum) {
  resume::Piece p;
  p.kind = "bucket";
  p.a = b;
  p.bytes = file.file().size();
  p.checksum = checksum;
  file.move_to(dir_.piece_path(p));
  file.keep_on_signals();  // still removed when its bucket is done
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
  if (buckets_)
    return "resumed: " + std::to_string(buckets_reused_ + first_unwritten_) + " of " + std::to_string(buckets_) +
           " buckets, " + std::to_string(first_unwritten_) + " of them already in the output";
  return "resumed: " + std::to_string(runs_reused_) + " of " + std::to_string(runs_) + " runs, " +
         std::to_string(merges_reused_) + " of " + std::to_string(merges_) + " merge outputs";
}

}  // namespace gxsort
