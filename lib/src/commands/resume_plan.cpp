#include "commands/resume_plan.hpp"

namespace gxsort {

StagedResume staged_resume(const resume::StagesFound& found, std::vector<std::string> left) {
  StagedResume r;
  r.left = std::move(left);
  if (found.found()) {
    r.job_dir = found.path();
    r.running = found.running();
  }
  return r;
}

}  // namespace gxsort
