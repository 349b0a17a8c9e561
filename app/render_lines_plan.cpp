// `gxsort plan --lines` as text, JSON and a dot graph: the library's LinesPlan rendered.
#include "render_lines_plan.hpp"

#include <sstream>

#include "report_json.hpp"

namespace gxsort::cli {
namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// In memory whatever its lines are: their index fits beside the text even if each is one byte.
bool surely_in_memory(const LinesPlan& p) { return p.input_bytes <= p.in_memory_lines; }

// ---- text ----

// "runs: about 9, each of at most 512 KiB of text and 6553 lines (...)"
std::string runs_line(const LinesPlan& p) {
  const uint64_t per_line = p.chunk_lines ? p.chunk_bytes / p.chunk_lines : 0;
  const std::string count = p.stream ? "as many as the stream needs" : "about " + std::to_string(p.runs);
  return "runs: " + count + ", each of at most " + format_bytes(p.chunk_bytes) +
         " of text and " + std::to_string(p.chunk_lines) + " lines (lines shorter than " + std::to_string(per_line) +
         " bytes on average make more)\n";
}

std::string sort_mode_text(const LinesPlan& p) {
  const std::string text = format_bytes(p.input_bytes);
  switch (p.mode) {
    case LinesPlanMode::in_memory:
      if (surely_in_memory(p)) return "mode: in memory: the " + text + " of lines and their index fit the memory budget\n";
      return "mode: in memory if the " + text + " of lines are at most " + std::to_string(p.in_memory_lines) +
             " lines (their index, tens of bytes a line, fits the memory budget beside them), else sorted runs merged\n";
    case LinesPlanMode::stream:
      return "mode: in memory if the stream ends within " + format_bytes(p.chunk_bytes) + " (and " +
             std::to_string(p.chunk_lines) + " lines), else sorted runs of that size merged (a stream's size is known "
             "when it ends)\n";
    case LinesPlanMode::runs:
      if (p.command == CommandKind::runs) return "mode: sorted runs, written into the output directory\n" + runs_line(p);
      return "mode: sorted runs in temporary files, merged: " + text +
             " of lines and their index are more than the memory budget\n" + runs_line(p) + "merge: " +
             plural(p.merge_passes, "pass", "passes") + " with a fan-in of " + std::to_string(p.fan_in) +
             " (the last into the output)\n";
    default: return "";
  }
}

std::string resume_text(const LinesPlan& p) {
  if (!p.resume) return "resume: " + std::string(command_name(p.command)) + " of text lines keeps no job: a killed run starts from the beginning\n";
  const LinesResume& s = *p.resume;
  if (!s.resumable)
    return "resume: this job keeps no runs (in memory, a stream, or an output into a pipe): a killed run starts from "
           "the beginning\n";
  if (s.job_dir.empty())
    return "resume: no killed run of this job (same inputs, options and output) left runs: it starts from the "
           "beginning\n";
  const std::string merge =
      s.merge_parts ? "the last merge: " + std::to_string(s.parts_kept) + " of its " + std::to_string(s.merge_parts) +
                          " parts kept (" + std::to_string(int(s.last_merge_from * 100)) +
                          "% of it; the resume verifies them first), the others merged"
                    : "the last merge from its start";
  return "resume: the job directory " + s.job_dir + (s.running ? " (a gxsort is running this job now)" : "") +
         "\n  runs kept: " + std::to_string(s.runs_kept) +
         ", in the text's order (sizes checked here; the resume verifies their checksums first); the rest formed, " +
         merge + "\n";
}

// merge: one streamed pass within the fan-in, else passes through temporary files.
std::string merge_mode_text(const LinesPlan& p) {
  if (p.merge_passes <= 1) return "mode: the sorted inputs merged, streamed (one pass)\n";
  return "mode: the sorted inputs merged in " + plural(p.merge_passes, "pass", "passes") + " with a fan-in of " +
         std::to_string(p.fan_in) + " (the last into the output)\n";
}

std::string plan_text(const LinesPlan& p, bool resume) {
  std::ostringstream o;
  o << "plan: " << command_name(p.command) << " of text lines, in LC_ALL=C sort's order\n";
  o << "input: " << (p.stream ? "a stream (size unknown)" : format_bytes(p.input_bytes))
    << (p.inputs > 1 ? " in " + std::to_string(p.inputs) + " inputs" : "") << "\n";
  o << "memory budget: " << format_bytes(p.memory) << "\n";
  if (p.mode == LinesPlanMode::merge) o << merge_mode_text(p);
  else if (p.mode == LinesPlanMode::pass) o << "mode: one pass over the lines, streamed\n";
  else o << sort_mode_text(p);
  const bool may_spill = (p.mode != LinesPlanMode::merge || p.merge_passes > 1) && p.mode != LinesPlanMode::pass &&
                         !(p.mode == LinesPlanMode::in_memory && surely_in_memory(p));
  if (may_spill && p.command != CommandKind::runs) o << "temporary files: in " << joined(p.temp_dirs) << "\n";
  if (p.mode == LinesPlanMode::runs && p.command != CommandKind::runs)
    o << "resumable: " << (p.resumable ? "yes (its runs are kept for --resume)" : "no (a stream or an output into a pipe)")
      << "\n";
  o << "threads: " << p.threads;
  if (p.mode != LinesPlanMode::merge && p.mode != LinesPlanMode::pass) o << "; the lines' prefixes sorted on: " << p.backend;
  o << "\n";
  if (resume) o << resume_text(p);
  return o.str();
}

// ---- JSON ----

Json resume_json(const LinesResume& r) {
  if (r.job_dir.empty()) return nullptr;
  return Json{{"job", "sort"}, {"job_dir", r.job_dir}, {"running", r.running}, {"runs_kept", r.runs_kept},
              {"merge_parts", r.merge_parts}, {"parts_kept", r.parts_kept}, {"last_merge_from", r.last_merge_from}};
}

std::string plan_json(const LinesPlan& p, bool resume) {
  Json j = json_document("plan");
  j["planned"] = command_name(p.command);
  j["lines"] = true;
  j["mode"] = lines_plan_mode_name(p.mode);
  j["backend"] = p.backend;
  j["threads"] = p.threads;
  j["memory"] = p.memory;
  j["stream"] = p.stream;
  j["inputs"] = p.inputs;
  j["input_bytes"] = p.stream ? Json(nullptr) : Json(p.input_bytes);
  j["in_memory_lines"] = p.in_memory_lines;
  j["chunk_bytes"] = p.chunk_bytes;
  j["chunk_lines"] = p.chunk_lines;
  j["runs"] = p.runs;
  j["fan_in"] = p.fan_in;
  j["merge_passes"] = p.merge_passes;
  j["temp_dirs"] = p.temp_dirs;
  j["resumable"] = p.resumable;
  if (resume) j["resume"] = p.resume ? resume_json(*p.resume) : Json(nullptr);
  return json_text(j) + "\n";
}

// ---- dot ----

std::string input_node(const LinesPlan& p) {
  const std::string size = p.stream ? "stream (size unknown)" : format_bytes(p.input_bytes);
  return "  input [shape=folder,label=\"" + plural(p.inputs, "input", "inputs") + "\\n" + size + "\"];\n";
}

// input -> sort -> output; input -> runs -> merge passes -> output; inputs -> merge -> output.
std::string plan_dot(const LinesPlan& p) {
  std::ostringstream o;
  o << "digraph merge_tree {\n  rankdir=BT;\n  node [shape=box];\n" << input_node(p)
    << "  output [shape=doubleoctagon,label=\"output\"];\n";
  if (p.mode == LinesPlanMode::runs) {
    o << "  runs [label=\"about " << p.runs << " runs\\nof at most " << format_bytes(p.chunk_bytes) << "\"];\n"
      << "  input -> runs;\n";
    std::string from = "runs";
    for (size_t pass = 1; pass <= p.merge_passes; ++pass) {
      const std::string node = "merge" + std::to_string(pass);
      o << "  " << node << " [label=\"merge pass " << pass << "\\nfan-in " << p.fan_in << "\"];\n  " << from << " -> "
        << node << ";\n";
      from = node;
    }
    o << "  " << from << " -> output;\n";
  } else {
    const std::string passes = plural(p.merge_passes, "pass", "passes");
    const std::string what = p.mode == LinesPlanMode::merge    ? "merge\\n" + (p.merge_passes == 1 ? "one pass" : passes)
                       : p.mode == LinesPlanMode::stream ? "sort\\nin memory, or runs merged"
                       : surely_in_memory(p)             ? "sort\\nin memory"
                                                         : "sort\\nin memory, or runs merged";
    o << "  sort [label=\"" << what << "\"];\n  input -> sort;\n  sort -> output;\n";
  }
  o << "}\n";
  return o.str();
}

}  // namespace

std::string render_lines_plan(const LinesPlan& p, PlanFormat format, bool resume) {
  switch (format) {
    case PlanFormat::json: return plan_json(p, resume);
    case PlanFormat::dot: return plan_dot(p);
    case PlanFormat::text: break;
  }
  return plan_text(p, resume);
}

}  // namespace gxsort::cli
