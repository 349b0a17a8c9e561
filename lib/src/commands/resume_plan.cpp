#include "commands/resume_plan.hpp"

#include <sstream>

#include "gxsort/gxsort.hpp"

namespace gxsort {
namespace {

const char* kNoJob = "resume: no killed run of this job (same input, options and output) left pieces: it starts from the beginning\n";
const char* kSizesOnly = "  (sizes checked here; the resume verifies each piece's checksums first)\n";

std::string head(const std::string& job_dir, bool running) {
  return "resume: the job directory " + job_dir + (running ? " (a gxsort is running this job now)" : "") + "\n";
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

int percent(double part) { return int(part * 100); }

// "3 of 8 runs, 1 of 2 merge outputs, the last merge 40% done"
std::string kept_words(const ResumeState& r) {
  const std::string n = std::to_string(r.buckets);
  if (r.buckets)
    return std::to_string(r.buckets_written) + " of " + n + " buckets written into the output, " +
           std::to_string(r.buckets_kept) + " of the other " + std::to_string(r.buckets - r.buckets_written) + " as bucket files";
  std::vector<std::string> parts;
  if (r.of != ResumeState::Of::merge) parts.push_back(std::to_string(r.runs_kept) + " of " + std::to_string(r.runs) + " runs");
  if (r.of != ResumeState::Of::runs)
    parts.push_back(std::to_string(r.merges_kept) + " of " + std::to_string(r.merges) + " merge outputs");
  if (percent(r.last_merge_from) > 0) parts.push_back("the last merge " + std::to_string(percent(r.last_merge_from)) + "% done");
  return joined(parts, ", ");
}

// "form 5 runs, 1 merges, then the last merge from 40%"
std::string left_words(const ResumeState& r) {
  if (r.buckets) {
    const size_t left = r.buckets - r.buckets_written;
    return std::string(r.buckets_kept == left ? "" : "pass 1 again (for the missing buckets), ") + "sort " +
           std::to_string(left) + " buckets into the output";
  }
  const int from = percent(r.last_merge_from);
  const std::string form = "form " + std::to_string(r.runs_to_form) + " runs";
  if (r.of == ResumeState::Of::runs) return form + ", then the manifest";
  const std::string merges = std::to_string(r.merges - r.merges_kept) + " merges, then the last merge" +
                             (from > 0 ? " from " + std::to_string(from) + "%" : "");
  return r.of == ResumeState::Of::merge ? merges : form + ", " + merges;
}

}  // namespace

std::string resume_text_keeps_nothing() {
  return "resume: this job keeps no pieces (nothing of it goes through temporary files a resume could reuse): a killed "
         "run starts from the beginning\n";
}

std::string resume_text(const ResumeState& r) {
  if (!r.resumable) return resume_text_keeps_nothing();
  if (r.job_dir.empty()) return kNoJob;
  return head(r.job_dir, r.running) + "  kept: " + kept_words(r) + "\n  left: " + left_words(r) + "\n" + kSizesOnly;
}

std::string resume_json(const ResumeState& r) {
  if (r.job_dir.empty()) return "null";
  static const char* kOf[] = {"sort", "runs", "merge"};
  std::ostringstream o;
  o << "{\"job\":" << json_quote(kOf[int(r.of)]) << ",\"job_dir\":" << json_quote(r.job_dir)
    << ",\"running\":" << (r.running ? "true" : "false") << ",\"runs\":" << r.runs << ",\"runs_kept\":" << r.runs_kept
    << ",\"runs_to_form\":" << r.runs_to_form << ",\"merges\":" << r.merges << ",\"merges_kept\":" << r.merges_kept
    << ",\"last_merge_from\":" << r.last_merge_from << ",\"buckets\":" << r.buckets << ",\"buckets_kept\":" << r.buckets_kept
    << ",\"buckets_written\":" << r.buckets_written << "}";
  return o.str();
}

StagedResume StagedResume::of(const resume::StagesFound& found, std::vector<std::string> left) {
  StagedResume r;
  r.left = std::move(left);
  if (found.found()) {
    r.job_dir = found.path();
    r.running = found.running();
  }
  return r;
}

std::string resume_text(const StagedResume& r) {
  if (r.job_dir.empty()) return kNoJob;
  std::vector<std::string> kept = r.kept, left;
  if (r.sort && !r.sort->job_dir.empty()) kept.push_back("of the sort of " + r.sort_of + ": " + kept_words(*r.sort));
  if (!r.sort_of.empty()) left.push_back("sort " + r.sort_of + (r.sort && !r.sort->job_dir.empty() ? " (" + left_words(*r.sort) + ")" : ""));
  for (const std::string& s : r.left) left.push_back(s);
  return head(r.job_dir, r.running) + "  kept: " + (kept.empty() ? "nothing" : joined(kept, "; ")) +
         "\n  left: " + joined(left, ", then ") + "\n" + kSizesOnly;
}

std::string resume_json(const StagedResume& r) {
  if (r.job_dir.empty()) return "null";
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ",") + json_quote(x);
    return "[" + s + "]";
  };
  return "{\"job\":\"stages\",\"job_dir\":" + json_quote(r.job_dir) + ",\"running\":" + (r.running ? "true" : "false") +
         ",\"stages_kept\":" + list(r.kept) + ",\"sort_of\":" + (r.sort_of.empty() ? "null" : json_quote(r.sort_of)) +
         ",\"sort\":" + (r.sort ? resume_json(*r.sort) : "null") + ",\"left\":" + list(r.left) + "}";
}

}  // namespace gxsort
