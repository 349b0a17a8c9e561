// The sorted runs of an out-of-core sort of lines as a resumable job (--resume; the
// directory and its journal: resume/journal.hpp). Each run is a piece, written under a
// temp name, renamed to its stable one and journalled with the bytes of the text it
// holds ([begin, end): chunks end at line ends), its lines, size and XXH3. A signal or
// kill -9 leaves the pieces; a later run of the same job (the same inputs, order,
// budget and output) with --resume reuses, in order, the journalled runs that verify
// and start where the one before ended, and forms the rest from where they end.
// The output is the job's too (a stable name beside the target, Output::keep_for_job):
// the last merge, split over the threads (merge_split.hpp), journals its split and
// each part once its bytes are in the output (their place and XXH3); a resume merges
// by that split, only the parts not kept or that fail verification. A last merge in
// passes (more runs than the fan-in, or one thread) starts over. Success and errors
// remove the directory.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "io/temp_files.hpp"
#include "lines/line_source.hpp"
#include "lines/lines_job.hpp"
#include "lines/merge_split.hpp"
#include "lines/run_index.hpp"
#include "resume/journal.hpp"

namespace gxsort::lines {

class RunsJob : public SplitKeeper {
 public:
  // The job of sorting `src` into `output`: null when it keeps no pieces (an input that
  // is a stream, an output into a pipe, -T directories others may rename in), Error
  // (usage or io) for those with opt.resume.
  static std::unique_ptr<RunsJob> open(const LineSource& src, const LinesJob& job, const std::string& output,
                                       const EngineOptions& opt);
  // Not finished (an error): the directory goes; kept while a cancelled call unwinds
  // (a signal: JobDir::remove).
  ~RunsJob() override { dir_.remove(); }
  RunsJob(const RunsJob&) = delete;
  RunsJob& operator=(const RunsJob&) = delete;

  // Run `i`, when a killed run of the job journalled it starting at byte `begin` of the
  // text and its file verifies: its file (`end` set to where it ends, `lines` to the
  // chunk's lines, `index` rebuilt when given). An empty TempFile otherwise (one that
  // fails verification is discarded, with a note).
  io::TempFile reuse(size_t i, uint64_t begin, uint64_t& end, uint64_t& lines, RunIndex* index);
  // Where run `i` is written (then keep() it).
  io::TempFile create(size_t i) const;
  // Run `i` is complete: renamed to its stable name, kept on signals, journalled.
  void keep(size_t i, io::TempFile& run, uint64_t begin, uint64_t end, uint64_t lines);

  // The output becomes the job's (a stable name beside the target); with --resume, the
  // one a killed run wrote into is taken over (its parts of the last merge verified
  // as the merge reaches them).
  void adopt_output(io::Output& out);
  // The last merge's split and parts (merge_split.hpp; runs_job_merge.cpp).
  bool kept_split(const std::vector<uint64_t>& input_sizes, Split& split) override;
  void keep_split(const Split& split) override;
  bool kept_part(size_t p, const Split& split, const io::File& out, uint64_t& lines) override;
  void keep_part(size_t p, const Split& split, uint64_t checksum, uint64_t lines) override;

  // "resumed: 3 of 8 runs, 5 of 16 parts of the last merge" ("" when not resuming).
  std::string summary(size_t runs) const;
  size_t discarded() const { return discarded_; }
  bool resuming() const { return resuming_; }
  void finish() { dir_.remove(); }

 private:
  RunsJob() = default;
  resume::JobDir dir_;
  std::string digest_;
  const LinesJob* job_ = nullptr;
  bool resuming_ = false;
  bool output_taken_over_ = false;  // adopt_output: a killed run's output, its parts kept
  size_t reused_ = 0, discarded_ = 0;
  size_t parts_ = 0, parts_reused_ = 0;  // of the last merge's split
  std::mutex mutex_;  // the merge's parts journal (and verify) theirs at once
  std::function<void(const std::string&)> note_;
  const CancelToken* cancel_ = nullptr;
};

// Whether a sort of `src` into `output` through runs keeps them as a job's pieces (as
// RunsJob::open decides): its inputs are regular files (read again on a resume), its
// output is not a pipe, the -T directories are safe to keep a job in, and the
// benchmarks' switch that journals nothing is off.
bool keeps_runs(const LineSource& src, const LinesJob& job, const std::string& output, const EngineOptions& opt);

// The digest of a sort of lines' job: its inputs (resume::input_parts), order, budget
// and output.
std::string runs_job_digest(const LineSource& src, const LinesJob& job, const std::string& output);

// What a killed run of the job left of its last merge (plan --resume): the parts of its
// split, those journalled (not verified here), and the part of its input they merge.
struct KeptMerge {
  size_t parts = 0, kept = 0;
  double done = 0;
};
KeptMerge kept_merge(const resume::JobDir& dir);

// The sparse index of a sorted run of `lines` lines read back from `run` (a reused run:
// the last merge splits over the threads with it), sampled as write_sorted samples.
RunIndex index_of_run(const io::File& run, uint64_t lines, uint64_t budget, const LinesJob& job);

}  // namespace gxsort::lines
