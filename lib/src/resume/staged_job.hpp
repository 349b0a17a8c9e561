// A resumable command made of stages (issue 17): graph build (the parsed edges, then
// the sorted edges, then the CSR) and dedupe --count / --keep last (the sorted records,
// then the group pass). Each stage's file is a piece of the command's job directory
// (journal.hpp), journalled once complete with its size and checksum; a resume starts
// from the last stage whose file verifies. The sort a stage runs is a job of its own
// (engine/job.hpp) whose directory, output and temp files lie inside this one: the
// sort's input and output have stable names there, so its digest is the same on a
// resume and its runs are reused; removing this job removes all of it, and a job whose
// input was touched (another digest, the same output) is removed whole.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "resume/journal.hpp"

namespace gxsort::io { class File; }

namespace gxsort::resume {

class StagedJob {
 public:
  using Note = std::function<void(const std::string&)>;
  // Opens (creates) the job directories (JobDir::open: without `resume`, what a dead
  // job left goes first).
  StagedJob(const Context& context, const std::vector<std::string>& dirs, const std::string& digest, bool resume,
            const std::string& output, unsigned threads, Note note);
  ~StagedJob();  // not finished (an error): the job's directories go
  StagedJob(const StagedJob&) = delete;
  StagedJob& operator=(const StagedJob&) = delete;

  // The journalled stage `kind` whose file checks out (size, checksum), or null. One
  // that does not is discarded with a note (its file goes: the stage is done again).
  const Piece* kept(const std::string& kind, const std::string& what);
  // Where stage `kind`'s file goes (write it under another name and rename it there:
  // a file at this name is complete).
  std::string path(const std::string& kind) const;
  // Stage `kind`'s file is complete: journalled (fsync'd) with its checksum, read back,
  // and `values` the later stages need.
  void record(const std::string& kind, uint64_t records, std::vector<uint64_t> values);
  // The job's directories (one in each -T directory): the temp directories of the
  // sort a stage runs.
  const std::vector<std::string>& dirs() const { return dir_.paths(); }
  const std::string& digest() const { return digest_; }
  bool resuming() const { return resuming_; }
  size_t discarded() const { return discarded_; }
  // "resumed: the parsed edges kept; sort: 3 of 8 runs, 0 of 0 merge outputs" ("" when
  // not resuming): the stages kept, then what the stage's sort (`inner`) reused.
  std::string summary(const std::string& inner) const;
  void finish();  // done: the directories go
  // A call that `cancel` cancelled keeps the job for --resume (JobDir::remove).
  void keep_if_cancelled(const CancelToken* cancel) { dir_.keep_if_cancelled(cancel); }

 private:
  JobDir dir_;
  std::string digest_;
  unsigned threads_ = 1;
  bool resuming_ = false;
  Note note_;
  std::vector<std::string> reused_;
  size_t discarded_ = 0;
};

// plan --resume: the stages a killed run of a staged job left, read without taking the
// job (JobDir::peek): a stage counts as kept when it is journalled and its file has the
// journalled size (the resume verifies its checksum first).
class StagesFound {
 public:
  StagesFound(const std::vector<std::string>& dirs, const std::string& digest);
  bool found() const { return dir_.active(); }
  bool running() const { return dir_.running(); }
  const std::string& path() const { return dir_.path(); }
  // The job's directories: the temp directories of the sort a stage runs.
  const std::vector<std::string>& dirs() const { return dir_.paths(); }
  bool kept(const std::string& kind) const;
  std::string path(const std::string& kind) const;

 private:
  JobDir dir_;
};

}  // namespace gxsort::resume
