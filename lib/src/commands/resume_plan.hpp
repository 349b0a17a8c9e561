// plan --resume: what a resume of a job would find (read without taking the job) and
// what it would have left, in words and as JSON. The jobs of sort, runs and merge are
// pieces (engine/job.hpp's ResumeState); those of dedupe --count / --keep last and graph
// build are stages (resume/staged_job.hpp), one of which runs a sort of its own.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/job.hpp"
#include "resume/staged_job.hpp"

namespace gxsort {

struct StagedResume {
  std::string job_dir;  // "" when no killed run left one
  bool running = false;
  std::vector<std::string> kept;    // the stages kept, in words ("the parsed edges")
  std::string sort_of;              // what the next stage sorts ("the edges"), or "" when none is left
  std::optional<ResumeState> sort;  // that sort's pieces, where its input is there to name its job
  std::vector<std::string> left;    // the stages after that sort, in words ("write the CSR")
  // The job `found` (if a killed run left it), with the stages after its sort.
  static StagedResume of(const resume::StagesFound& found, std::vector<std::string> left);
};

// A job that keeps no pieces (in memory, a stream, one merge level, the bitmap).
std::string resume_text_keeps_nothing();
std::string resume_text(const ResumeState& r);
std::string resume_json(const ResumeState& r);
std::string resume_text(const StagedResume& r);
std::string resume_json(const StagedResume& r);

// What `plan CMD --resume` prints of a job: in words and as JSON (both empty: none).
struct ResumeFound {
  std::string text, json;
  template <class State>
  static ResumeFound of(const State& r) { return {resume_text(r), resume_json(r)}; }
};

}  // namespace gxsort
