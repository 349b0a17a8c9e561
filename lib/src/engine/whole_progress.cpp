#include "engine/whole_progress.hpp"

#include <algorithm>

namespace gxsort {

std::vector<ProgressStage> merge_stages(const Plan& plan) {
  std::vector<ProgressStage> s;
  for (size_t k = 0; k < plan.levels.size(); ++k)
    s.push_back({"merge", k + 1, plan.levels[k].bytes_read + plan.levels[k].bytes_written});
  return s;
}

// The phase names are those the engine reports (run_formation.cpp, merge.cpp,
// partition_sort.cpp, sort.cpp, sort_in_memory.cpp).
std::vector<ProgressStage> sort_stages(const Plan& plan) {
  const uint64_t data = plan.records * plan.record_size;
  switch (plan.mode) {
    case PlanMode::in_memory: return {{"read", 0, data}, {"write", 0, data}};
    case PlanMode::runs_in_memory: return {{"sort runs", 0, data}, {"merge", 0, data}};
    case PlanMode::partition: return {{"partition", 0, 2 * data}, {"sort buckets", 0, 2 * data}};
    case PlanMode::external: break;
  }
  std::vector<ProgressStage> s{{"sort runs", 0, 2 * data}};
  for (ProgressStage& level : merge_stages(plan)) s.push_back(std::move(level));
  return s;
}

WholeProgress::WholeProgress(ProgressFn sink, std::vector<ProgressStage> stages, uint64_t done_bytes)
    : sink_(std::move(sink)), stages_(std::move(stages)), done_(done_bytes) {
  total_ = done_bytes;
  for (const ProgressStage& s : stages_) {
    before_.push_back(total_);
    total_ += s.bytes;
  }
}

ProgressFn WholeProgress::fn() {
  if (!sink_) return nullptr;
  return [this](const Progress& p) { report(p); };
}

void WholeProgress::report(Progress p) {
  std::lock_guard<std::mutex> l(m_);
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i].phase != p.phase || stages_[i].level != p.level) continue;
    // A stage that writes less than it read (-u) ends short of its share: the next
    // stage starts from the full share of those before it.
    const uint64_t part = p.total ? uint64_t(double(stages_[i].bytes) * double(std::min(p.done, p.total)) / double(p.total)) : 0;
    done_ = std::max(done_, before_[i] + part);
    break;
  }
  // A phase outside the plan (a misjudged bucket sorted through runs) keeps the job's
  // figure where it was.
  p.job_done = done_;
  p.job_total = total_;
  sink_(p);
}

}  // namespace gxsort
