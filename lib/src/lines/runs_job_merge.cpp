// The last merge of a resumable sort of lines (runs_job.hpp): its output kept beside the
// target, its split and finished parts journalled, and on --resume taken back.
//
// Journal entries: "split 0 0" (records: the parts; list: at[0..parts], then the cuts
// of parts 1..parts, one row of every run's each); "part P 0" (records: its lines,
// bytes: its output's, checksum: io::xxh3_blocks of those bytes, list: {where they
// start}). A part's entry is taken only where the split puts that very range: the
// output is the same bytes whatever the split, so bytes that match an entry's checksum
// at its range are the output's, even an entry of an earlier split.
#include <sys/stat.h>

#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "lines/runs_job.hpp"

namespace gxsort::lines {
namespace {

resume::Piece split_piece() {
  resume::Piece p;
  p.kind = "split";
  return p;
}

resume::Piece part_piece(size_t part) {
  resume::Piece p;
  p.kind = "part";
  p.a = part;
  return p;
}

// The split an entry holds, when it is whole and in order (whether it fits the runs
// is the caller's to check).
bool split_of(const resume::Piece& piece, Split& split) {
  const size_t parts = size_t(piece.records), n = piece.list.size();
  if (parts == 0 || n < 2 * parts + 1 || (n - parts - 1) % parts != 0) return false;
  const size_t runs = (n - parts - 1) / parts;
  split.at.assign(piece.list.begin(), piece.list.begin() + long(parts + 1));
  split.cuts.assign(parts + 1, std::vector<uint64_t>(runs, 0));
  for (size_t p = 1; p <= parts; ++p)
    for (size_t r = 0; r < runs; ++r) split.cuts[p][r] = piece.list[parts + 1 + (p - 1) * runs + r];
  if (split.at[0] != 0) return false;
  for (size_t p = 0; p < parts; ++p) {
    if (split.at[p + 1] < split.at[p]) return false;
    for (size_t r = 0; r < runs; ++r)
      if (split.cuts[p + 1][r] < split.cuts[p][r]) return false;
  }
  return true;
}

// Whether the journalled `part` is part p of `split` (its range of the output).
bool part_fits(const resume::Piece* part, const Split& split, size_t p) {
  return part && part->list.size() == 1 && part->list[0] == split.at[p] && part->bytes == split.at[p + 1] - split.at[p];
}

// Whether `split` is one of inputs of `input_sizes` (the runs' bytes, then the lines of
// a block sorted in memory, when split.files < their count) the order `unique` gives:
// each part's output within (-u), or exactly (else), the bytes of the runs it merges;
// with a block, at least those bytes (without -u).
bool split_fits(const Split& split, const std::vector<uint64_t>& input_sizes, bool unique) {
  if (split.cuts.back() != input_sizes) return false;
  const bool block = split.files < input_sizes.size();
  for (size_t p = 0; p < split.parts(); ++p) {
    const uint64_t out = split.at[p + 1] - split.at[p], in = part_input(split, p);
    if (block ? !unique && out < in : unique ? out > in : out != in) return false;
  }
  return true;
}

}  // namespace

void RunsJob::adopt_output(io::Output& out) {
  output_taken_over_ = out.keep_for_job(io::kJobPrefix + digest_ + ".out", resuming_, cancel_);
  if (resuming_ && !output_taken_over_ && dir_.find(split_piece().key()) && note_)
    note_("resume: the job's output beside the target is gone: the last merge starts from the beginning");
}

bool RunsJob::kept_split(const std::vector<uint64_t>& input_sizes, Split& split) {
  const resume::Piece* p = dir_.find(split_piece().key());
  if (!p) return false;
  if (!split_of(*p, split) || !split_fits(split, input_sizes, job_->order.unique)) {
    if (note_) note_("resume: the last merge's split (" + dir_.path() + "/journal) does not fit the runs; split again");
    dir_.forget(p->key());
    ++discarded_;
    return false;
  }
  parts_ = split.parts();
  return true;
}

void RunsJob::keep_split(const Split& split) {
  resume::Piece p = split_piece();
  p.records = split.parts();
  p.list = split.at;
  for (size_t part = 1; part < split.cuts.size(); ++part)
    p.list.insert(p.list.end(), split.cuts[part].begin(), split.cuts[part].end());
  dir_.record(p, true);  // in the journal before any part's entry
  parts_ = split.parts();
}

bool RunsJob::kept_part(size_t p, const Split& split, const io::File& out, uint64_t& lines) {
  resume::Piece part;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const resume::Piece* kept = dir_.find(part_piece(p).key());
    if (!output_taken_over_ || !part_fits(kept, split, p)) return false;
    part = *kept;
  }
  const uint64_t at = split.at[p];
  std::string why;
  if (out.size() < at + part.bytes) why = "the job's output ends before it";
  else if (io::xxh3_blocks_of_file(out, part.bytes, at, 1) != part.checksum) why = "its XXH3 is not the journal's";
  std::lock_guard<std::mutex> lock(mutex_);
  if (!why.empty()) {
    // Merged again (a disk that lost data, an output someone changed): the user is told.
    if (note_)
      note_("resume: part " + std::to_string(p) + " of the last merge (bytes " + std::to_string(at) + ".." +
            std::to_string(at + part.bytes) + " of " + out.path() + ") discarded: " + why + "; merged again");
    dir_.forget(part.key());
    ++discarded_;
    return false;
  }
  lines = part.records;
  ++parts_reused_;
  return true;
}

void RunsJob::keep_part(size_t p, const Split& split, uint64_t checksum, uint64_t lines) {
  resume::Piece part = part_piece(p);
  part.records = lines;
  part.bytes = split.at[p + 1] - split.at[p];
  part.list = {split.at[p]};
  part.checksum = checksum;
  std::lock_guard<std::mutex> lock(mutex_);
  dir_.record(part, true);  // the other parts go on; nothing waits for this entry
}

KeptMerge kept_merge(const resume::JobDir& dir) {
  KeptMerge m;
  Split split;
  const resume::Piece* p = dir.find(split_piece().key());
  if (!p || !split_of(*p, split)) return m;
  uint64_t kept = 0, all = 0;
  m.parts = split.parts();
  for (size_t part = 0; part < m.parts; ++part) {  // by output bytes (a block sorted in memory has no file bytes)
    const uint64_t bytes = split.at[part + 1] - split.at[part];
    all += bytes;
    if (!part_fits(dir.find(part_piece(part).key()), split, part)) continue;
    ++m.kept;
    kept += bytes;
  }
  m.done = all ? double(kept) / double(all) : 0;
  return m;
}

}  // namespace gxsort::lines
