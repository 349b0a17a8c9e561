// plan --resume: what a resume of a job would find (read without taking the job) and
// what it would have left (gxsort/plan_report.hpp: ResumeReport). The jobs of sort, runs
// and merge are pieces (ResumeState, engine/job.hpp finds them); those of dedupe --count /
// --keep last and graph build are stages (resume/staged_job.hpp), one of which runs a sort
// of its own.
#pragma once
#include <string>
#include <vector>

#include "gxsort/plan_report.hpp"
#include "resume/staged_job.hpp"

namespace gxsort {

// The staged job `found` (if a killed run left it), with the stages after its sort.
StagedResume staged_resume(const resume::StagesFound& found, std::vector<std::string> left);

inline ResumeReport resume_report(const ResumeState& r) { return {r, std::nullopt}; }
inline ResumeReport resume_report(const StagedResume& r) { return {std::nullopt, r}; }

}  // namespace gxsort
