// plan --lines: a lines command's plan from the decisions the command itself makes
// (lines_job's budget, fan-in, threads and temp directories; whole_max_lines, sort_lines'
// choice of the in-memory sort; the chunks' sizes; merge_passes), applied to the inputs'
// sizes. The inputs are opened as the command opens them; no text is read, so the runs
// are counted by bytes: lines shorter than a chunk's bytes per line make more.
#include <algorithm>

#include "gxsort/error.hpp"
#include "lines/chunks.hpp"
#include "lines/line_source.hpp"
#include "lines/lines_job.hpp"
#include "lines/merge.hpp"
#include "lines/merge_inputs.hpp"
#include "lines/runs_job.hpp"

namespace gxsort {
namespace {

// sort, dedupe and runs: the whole text in memory, or chunks sorted into runs (merged
// with the fan-in, but by runs, which keeps them).
void plan_sort(LinesPlan& p, const lines::LineSource& src, const lines::LinesJob& job, const std::string& output,
               const EngineOptions& opt) {
  const unsigned slots = p.command == CommandKind::runs ? 1 : lines::sort_chunk_slots(src, job.memory, job.fan_in);  // as form_line_runs, sort_lines
  p.chunk_bytes = lines::chunk_buffer_bytes(src, job.memory, slots);
  p.chunk_lines = lines::chunk_max_lines(job.memory, size_t(p.chunk_bytes), slots);
  p.temp_dirs = job.tmp_dirs;
  const bool runs_only = p.command == CommandKind::runs;  // runs only: never in memory, never merged
  if (p.stream) {
    p.mode = runs_only ? LinesPlanMode::runs : LinesPlanMode::stream;
    return;
  }
  p.in_memory_lines = runs_only ? 0 : lines::whole_max_lines(p.input_bytes, job);
  if (p.in_memory_lines > 0) return;  // in_memory
  p.mode = LinesPlanMode::runs;
  p.runs = std::max<uint64_t>(1, (p.input_bytes + p.chunk_bytes - 1) / p.chunk_bytes);
  p.merge_passes = runs_only ? 0 : lines::merge_passes(size_t(p.runs), job.fan_in);
  p.resumable = !runs_only && lines::keeps_runs(src, job, output, opt);
}

// merge: the inputs as merge_lines opens them (a runs directory: its runs), merged in
// the passes merge_inputs makes with the fan-in the budget allows.
void plan_merge(LinesPlan& p, const std::vector<std::string>& inputs, const lines::LinesJob& job) {
  const lines::MergeInputs in = lines::open_merge_inputs(inputs, job.order);
  p.mode = LinesPlanMode::merge;
  p.inputs = p.runs = in.files.size();
  for (const auto& f : in.files) {
    p.stream = p.stream || f->is_stream();
    p.input_bytes += f->is_stream() ? 0 : f->size();
  }
  p.fan_in = lines::budget_fan_in(job);
  p.merge_passes = lines::merge_passes(in.files.size(), p.fan_in);
  if (p.merge_passes > 1) p.temp_dirs = job.tmp_dirs;
}

}  // namespace

const char* lines_plan_mode_name(LinesPlanMode m) {
  switch (m) {
    case LinesPlanMode::in_memory: return "in-memory";
    case LinesPlanMode::runs: return "external";
    case LinesPlanMode::stream: return "stream";
    case LinesPlanMode::merge: return "merge";
    case LinesPlanMode::pass: return "pass";
  }
  return "";
}

LinesPlan plan_lines(CommandKind command, const std::vector<std::string>& inputs, const std::string& output,
                     const LineOrder& order, const EngineOptions& opt) {
  const bool sorts = command == CommandKind::sort || command == CommandKind::dedupe || command == CommandKind::runs;
  if (!sorts && command != CommandKind::merge && command != CommandKind::check)
    fail_usage("plan " + std::string(command_name(command)) + ": not a command of text lines");
  LineOrder job_order = order;
  job_order.unique = order.unique || command == CommandKind::dedupe;  // dedupe is sort -u
  const lines::LinesJob job = lines::lines_job(job_order, opt, command == CommandKind::check ? "" : output);
  LinesPlan p;
  p.command = command;
  p.memory = job.memory;
  p.threads = job.threads;
  p.fan_in = job.fan_in;
  p.backend = sorts ? lines::prefix_backend(opt) : "cpu";
  if (command == CommandKind::merge) {
    plan_merge(p, inputs, job);
  } else {
    const lines::LineSource src(inputs, job.order.terminator);
    p.inputs = src.inputs();
    p.stream = !src.all_regular();
    p.input_bytes = src.regular_bytes();
    if (sorts) plan_sort(p, src, job, output, opt);
    else p.mode = LinesPlanMode::pass;
  }
  if (opt.resume && (command == CommandKind::sort || command == CommandKind::dedupe)) p.resume = inspect_sort_lines(inputs, output, job_order, opt);
  return p;
}

}  // namespace gxsort
