// The sorted runs of an out-of-core sort of lines as a resumable job (--resume; the
// directory and its journal: resume/journal.hpp). Each run is a piece, written under a
// temp name, renamed to its stable one and journalled with the bytes of the text it
// holds ([begin, end): chunks end at line ends), its lines, size and XXH3. A signal or
// kill -9 leaves the pieces; a later run of the same job (the same inputs, order,
// budget and output) with --resume reuses, in order, the journalled runs that verify
// and start where the one before ended, and forms the rest from where they end. The
// last merge is not resumable: a job killed in it forms the runs it had consumed
// again. Success and errors remove the directory.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gxsort/gxsort.hpp"
#include "io/temp_files.hpp"
#include "lines/line_source.hpp"
#include "lines/lines_job.hpp"
#include "lines/run_index.hpp"
#include "resume/journal.hpp"

namespace gxsort::lines {

class RunsJob {
 public:
  // The job of sorting `src` into `output`: null when it keeps no pieces (an input that
  // is a stream, an output into a pipe, -T directories others may rename in), Error
  // (usage or io) for those with opt.resume.
  static std::unique_ptr<RunsJob> open(const LineSource& src, const LinesJob& job, const std::string& output,
                                       const EngineOptions& opt);
  // Not finished (an error): the directory goes; kept while a cancelled call unwinds
  // (a signal: JobDir::remove).
  ~RunsJob() { dir_.remove(); }
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

  // "resumed: 3 of 8 runs" ("" when not resuming).
  std::string summary(size_t runs) const;
  size_t discarded() const { return discarded_; }
  bool resuming() const { return resuming_; }
  void finish() { dir_.remove(); }

 private:
  RunsJob() = default;
  resume::JobDir dir_;
  const LinesJob* job_ = nullptr;
  bool resuming_ = false;
  size_t reused_ = 0, discarded_ = 0;
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

// The sparse index of a sorted run of `lines` lines read back from `run` (a reused run:
// the last merge splits over the threads with it), sampled as write_sorted samples.
RunIndex index_of_run(const io::File& run, uint64_t lines, uint64_t budget, const LinesJob& job);

}  // namespace gxsort::lines
