// What every engine command prepares before any I/O: the backend, the budgets, the
// input's record count and the plan, with all user errors reported up front.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "gxsort/gxsort.hpp"
#include "plan/plan.hpp"

namespace gxsort {

struct Prepared {
  std::unique_ptr<Backend> backend;
  uint64_t memory = 0;
  unsigned threads = 1;
  std::vector<std::string> tmp_dirs;
  PlanInput plan_input;
  Plan plan;
};

// Per-phase stats: seconds since t0.
using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Input size must be a whole number of records; names the file otherwise.
uint64_t checked_record_count(const std::string& path, uint64_t bytes, const Format& f);

// Resolves --memory, --threads, --tmp-dir (default $TMPDIR, else the output's
// directory) and the backend; plans the sort of `input_bytes`.
Prepared prepare(const EngineOptions& opt, uint64_t input_bytes, const std::string& output_dir);

}  // namespace gxsort
