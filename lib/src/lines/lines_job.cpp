#include "lines/lines_job.hpp"

#include <algorithm>

#include "device/backend_select.hpp"
#include "engine/engine.hpp"
#include "lines/line_index.hpp"
#include "plan/plan_request.hpp"

namespace gxsort::lines {
namespace {

// The merge's fan-in when --fan-in is not given, and its buffers' bounds.
constexpr size_t kDefaultFanIn = 64;
constexpr size_t kMinMergeBuffer = size_t(4) << 10;
constexpr size_t kMaxMergeBuffer = size_t(4) << 20;

// The threads that write a run while the next chunk is read and sorted on all of them:
// a quarter, two at least. The run's writes into its one file take turns on the file's
// lock, so more threads gather its lines faster than they can be written and take cores
// from the sort; one alone gathers slower than the sort goes.
unsigned default_run_writers(unsigned threads) { return std::max(2u, threads / 4); }

}  // namespace

LinesJob lines_job(const LineOrder& order, const EngineOptions& opt, const std::string& output) {
  LinesJob job;
  job.order = order;
  job.order.unique = order.unique || opt.unique;
  job.memory = std::max<uint64_t>(host_budget(opt), 4096);
  job.threads = std::max(1u, resolve_threads(opt.threads));
  job.tmp_dirs = temp_dirs(opt, default_temp_dir(output.empty() ? "-" : output));
  MemoryOptions& mo = job.sort_options;
  mo.memory = opt.memory;
  mo.threads = job.threads;
  mo.device = opt.device;
  mo.device_index = opt.device_index;
  mo.device_memory = opt.device_memory;
  mo.tmp_dirs = job.tmp_dirs;
  mo.cancel = opt.cancel;
  mo.context = opt.context;
  job.fan_in = opt.fan_in ? std::max<size_t>(opt.fan_in, 2) : kDefaultFanIn;
  job.merge_buffer = size_t(std::clamp<uint64_t>(job.memory / (2 * (job.fan_in + 1)), kMinMergeBuffer, kMaxMergeBuffer));
  job.fan_in = budget_fan_in(job);  // a --fan-in whose buffers the budget cannot hold: as many as it can
  job.gather_buffer = size_t(std::clamp<uint64_t>(job.memory / 16 / job.threads, kMinMergeBuffer, kMaxMergeBuffer));
  const Tuning& tuning = opt.context.tuning;
  job.keep_last = tuning.lines_keep_last.value_or(true);
  job.run_writers = std::clamp(tuning.lines_run_writers.value_or(default_run_writers(job.threads)), 1u, job.threads);
  return job;
}

size_t whole_max_lines(uint64_t text, const LinesJob& job) {
  if (text > job.memory) return 0;
  return size_t((job.memory - text) / kIndexBytesPerLine);
}

size_t budget_fan_in(const LinesJob& job) {
  const uint64_t buffers = job.memory / job.merge_buffer;  // k readers and the writer
  return size_t(std::clamp<uint64_t>(buffers, 3, job.fan_in + 1) - 1);
}

MergeSetup merge_setup(const LinesJob& job, const EngineOptions& opt, bool check_sorted) {
  MergeSetup s;
  s.order = &job.order;
  s.check_sorted = check_sorted;
  s.buffer_bytes = job.merge_buffer;
  s.max_line = job.memory;
  s.threads = job.threads;
  s.cancel = opt.cancel;
  return s;
}

std::string prefix_backend(const EngineOptions& opt) {
  return opt.device != Device::cpu && visible_gpus() > 0 ? "cuda" : "cpu";
}

}  // namespace gxsort::lines
