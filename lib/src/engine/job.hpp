// The resumable state of one out-of-core sort (resume/journal.hpp has the directory and
// its journal): the runs and merge outputs a killed run of the same job left, verified
// (size and XXH3 of each block) when the job opens, and where new ones go. Pieces are
// written, then renamed to their stable names, then journalled (the journal is fsync'd;
// the pieces are not: a piece a reboot cut short fails its checksums and is formed
// again). They are not in the temp-file table: a signal or kill -9 leaves them for
// --resume, an error (an exception) removes the whole directory, success removes it too.
//
// The output is the job's too (a stable name beside the target, Output::keep_for_job),
// so that the last merge resumes where it stopped: it journals checkpoints (the output
// is whole up to here, its inputs consumed up to there, the new output's checksum) and
// punches its pieces only behind the last one. A resume verifies the output's
// checkpoints in order, each input piece from the block its checkpoint cut is in, and
// merges on from there (a piece that fails is formed again: it is the same bytes).
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "engine/run_parts.hpp"
#include "resume/journal.hpp"

namespace gxsort {

// ResumeState, what --resume would find of a sort job (plan --resume): gxsort/plan_report.hpp.

class SortJob : public MergePieces {
 public:
  // What --resume would find of each job open() (sort), open_runs() and open_merge()
  // make; nothing when the job keeps no pieces.
  static ResumeState inspect(const Prepared& p, const io::File& in, const std::string& output, const EngineOptions& opt);
  static ResumeState inspect_runs(const Prepared& p, const io::File& in, const std::string& out_dir, const EngineOptions& opt);
  static ResumeState inspect_merge(const Prepared& p, const std::vector<const io::File*>& inputs, const std::string& output,
                                   const EngineOptions& opt);
  // The job of sorting `in` into `output` as p.plan says (external plans only; null for
  // the others, and for streams, which cannot be read again).
  static std::unique_ptr<SortJob> open(const Prepared& p, const io::File& in, const std::string& output,
                                       const EngineOptions& opt);
  // The job of merging the files `inputs` into `output` (pieces: the outputs of the
  // intermediate merges; null when the plan has one level).
  static std::unique_ptr<SortJob> open_merge(const Prepared& p, const Plan& plan, const std::vector<const io::File*>& inputs,
                                             const std::string& output, const EngineOptions& opt);
  // The job of `gxsort runs` writing runs of `run_records` into `out_dir` (null for a
  // stream): its runs are pieces in a job directory inside out_dir.
  static std::unique_ptr<SortJob> open_runs(const Prepared& p, const io::File& in, const std::string& out_dir,
                                            size_t run_records, const EngineOptions& opt);
  ~SortJob() override;

  // Which of the plan's runs must be formed: those that no verified merge output covers
  // and not every part of which is a verified piece (Plan::run_files: a written run's
  // parts are pieces of their own, "run i part"; a run formed again writes every part).
  std::vector<bool> runs_to_form() const;
  TreeInput reuse_run(size_t i, size_t part);    // records == 0: none
  io::TempFile create_run(size_t i, size_t part);
  // `sums`: resume::piece_block_bytes blocks' XXH3 (io::block_sums); `checksum`: the
  // whole run's XXH3-64 (gxsort runs: its manifest's), else 0.
  TreeInput keep_run(size_t i, size_t part, io::TempFile run, uint64_t records, std::vector<uint64_t> sums, bool direct,
                     uint64_t checksum = 0);
  uint64_t run_checksum(size_t i) const;  // a kept run's whole XXH3-64 (gxsort runs)
  // Run i stays in memory for the last merge (no file): journalled with its records
  // alone, so that a resume after the merge covered it forms it no more.
  void keep_held_run(size_t i, uint64_t records);

  TreeInput reuse(size_t level, size_t group) override;
  io::TempFile create(size_t level, size_t group) override;
  TreeInput keep(size_t level, size_t group, io::TempFile merged, uint64_t records, bool direct) override;
  uint64_t final_merge(const MergeSetup& job, const std::vector<TreeInput>& inputs, const io::File& out,
                       uint64_t out_offset) override;

  // The output becomes the job's (a stable name beside the target), and what a killed
  // run wrote into it is verified: the partition's bucket segments, or the checkpoints
  // of the last merge.
  void adopt_output(io::Output& out);

  // Partition (engine/partition_sort.cpp): the buckets of pass 1 are pieces, and the
  // output is the job's too (a stable name beside the target): each bucket written into
  // it is a journalled segment, and its file goes only then.
  size_t first_unwritten_bucket() const { return first_unwritten_; }
  unsigned threads() const { return threads_; }
  uint64_t written_bytes() const { return written_; }
  bool kept_buckets(size_t from, size_t buckets) const;  // each bucket from `from` on is a verified piece
  io::TempFile adopt_bucket(size_t b);
  io::TempFile create_bucket(size_t b);
  void keep_bucket(size_t b, io::TempFile& file, uint64_t checksum);
  void keep_segment(size_t b, uint64_t offset, uint64_t bytes, uint64_t checksum);

  // The sort succeeded: the directory goes.
  void finish();
  // The job's (first) directory: the caller's own, private.
  const std::string& dir() const { return dir_.path(); }
  // "resumed: 12 of 17 runs, 0 of 1 merge outputs" ("" when not resuming).
  std::string summary() const;
  size_t discarded() const { return discarded_; }  // pieces that failed verification

 private:
  SortJob() = default;
  static std::unique_ptr<SortJob> create(const Prepared& p, const Plan& plan, const std::string& digest,
                                         const std::string& output, const EngineOptions& opt);
  static ResumeState peek(const std::vector<std::string>& dirs, const Plan& plan, const std::string& digest, ResumeState::Of of);
  void verify_pieces();
  // Why a piece's file cannot be reused, checked from the block holding from_byte ("" when
  // it checks out); a discarded piece is forgotten and the user told (note_).
  std::string check(const resume::Piece& p, uint64_t from_byte) const;
  std::string check_checkpoint(const io::File& f, const resume::Piece& c, size_t inputs, size_t rs) const;
  void discard(const resume::Piece& p, const std::string& where, const std::string& why, const std::string& then);
  std::string segment_text(uint64_t offset, uint64_t bytes) const;
  void adopt_segments(const io::File& out);
  void adopt_checkpoints(const io::File& out, size_t record_size);
  std::vector<std::string> run_input_keys() const;  // the runs' parts, as merge inputs
  std::vector<std::string> final_input_keys() const;
  bool run_kept(size_t i) const;  // every part of run i is a verified piece
  uint64_t part_records(const Plan& plan, const std::string& run_key) const;  // by the plan's run sizes
  std::vector<std::string> merged_level(const std::vector<std::string>& items, size_t level) const;
  // The inputs of the intermediate merges that started (journalled "merging"): punched.
  std::set<std::string> inputs_of_started_merges() const;
  TreeInput piece_input(const resume::Piece& p, bool direct) const;
  // The runs under merge `group` of `level`: [first, end).
  std::pair<size_t, size_t> span(size_t level, size_t group) const;

  resume::JobDir dir_;
  // EngineOptions::cancel: a job cancelled keeps its journalled pieces for --resume, as
  // one stopped by a signal does; any other error removes them.
  const CancelToken* cancel_ = nullptr;
  bool resuming_ = false;
  bool runs_only_ = false;   // gxsort runs: no merges to report
  bool merge_only_ = false;  // gxsort merge: its inputs are the user's files, no runs to report
  size_t runs_ = 0, fan_in_ = 0, run_records_ = 0;
  RunParts parts_;  // the merge inputs of the runs (Plan::run_files, Plan::held_runs)
  std::set<std::string> verified_;  // keys of journalled pieces whose files check out
  size_t runs_reused_ = 0, merges_reused_ = 0, merges_ = 0, discarded_ = 0;
  std::function<void(const std::string&)> note_;
  std::string digest_;
  size_t first_unwritten_ = 0, buckets_ = 0, buckets_reused_ = 0;
  uint64_t written_ = 0;
  unsigned threads_ = 1;
  size_t record_size_ = 0;
  const io::File* output_ = nullptr;       // the job's output (adopt_output), else null
  std::set<std::string> deferred_;         // final merge inputs: verified from the checkpoint
  // Final merge inputs wholly behind the last verified checkpoint whose files a finished
  // merge had removed: their records are in the output, so nothing is formed or read.
  std::set<std::string> consumed_;
  std::vector<uint64_t> final_cuts_;       // the last verified checkpoint: inputs consumed, and
  uint64_t final_records_ = 0, final_checkpoints_ = 0;  // output records, checkpoints kept
  double final_resumed_at_ = 0;            // the part of the last merge a resume skipped
};

}  // namespace gxsort
