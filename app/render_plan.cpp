// `gxsort plan`'s renderings: the choice of format, and the dot graph of the merge tree.
#include "render_plan.hpp"

#include <sstream>
#include <vector>

#include "gxsort/error.hpp"

namespace gxsort::cli {

void check_plan_format(CommandKind planned, bool distributed, PlanFormat format) {
  if (format != PlanFormat::dot) return;
  if (distributed) fail_usage("plan --distributed: --dot does not apply (each rank has its own merge)");
  if (planned != CommandKind::sort && planned != CommandKind::merge)
    fail_usage("plan " + std::string(command_name(planned)) + ": --dot draws a merge tree (sort and merge); use --json");
}

std::string render_plan(const PlanReport& r, PlanFormat format) {
  switch (format) {
    case PlanFormat::json: return plan_json(r);
    case PlanFormat::dot: return plan_dot(r);
    case PlanFormat::text: break;
  }
  return plan_text(r);
}

void print_plan(FILE* out, const PlanReport& r, PlanFormat format) { std::fputs(render_plan(r, format).c_str(), out); }

namespace {

// "run 3\n1000 records, 7.8 KiB": a node's label.
std::string dot_label(const std::string& what, uint64_t records, size_t record_size) {
  return what + "\\n" + std::to_string(records) + " records, " + format_bytes(records * record_size);
}

// A partition sort has no tree: input -> buckets -> output.
void partition_dot(std::ostringstream& o, const PlanReport& r) {
  const uint64_t per = r.sort.buckets ? r.records / r.sort.buckets : 0;
  o << "  input [shape=folder,label=\"" << dot_label("input", r.records, r.record_size) << "\"];\n";
  for (size_t b = 0; b < r.sort.buckets; ++b)
    o << "  B" << b << " [label=\"" << dot_label("bucket " + std::to_string(b), per, r.record_size)
      << " (about)\"];\n  input -> B" << b << ";\n  B" << b << " -> output;\n";
}

// The runs, then each level's merges, each with an edge from each of its inputs. A run
// carried over to the next level unmerged is not a node of its own: its edge goes on to
// where it is merged.
void merge_tree_dot(std::ostringstream& o, const PlanReport& r) {
  const SortPlanReport& s = r.sort;
  std::vector<std::string> names;
  std::vector<uint64_t> sizes = s.run_sizes;
  for (size_t i = 0; i < s.runs; ++i) {
    names.push_back("R" + std::to_string(i));
    o << "  " << names.back() << " [label=\"" << dot_label("run " + std::to_string(i), sizes[i], r.record_size) << "\"];\n";
  }
  for (size_t l = 0; l < s.levels.size(); ++l) {
    const MergeLevel& level = s.levels[l];
    std::vector<std::string> next_names;
    std::vector<uint64_t> next_sizes;
    size_t in = 0;
    for (size_t g = 0; g < level.groups.size(); ++g) {
      const size_t width = level.groups[g];
      if (width == 1 && !level.final) {  // carried over
        next_names.push_back(names[in]);
        next_sizes.push_back(sizes[in++]);
        continue;
      }
      uint64_t merged = 0;
      for (size_t i = 0; i < width; ++i) merged += sizes[in + i];
      std::string node = "output";
      if (!level.final) {
        node = "L" + std::to_string(l + 1) + "_" + std::to_string(g);
        o << "  " << node << " [label=\""
          << dot_label("level " + std::to_string(l + 1) + " merge " + std::to_string(g), merged, r.record_size) << "\"];\n";
      }
      for (size_t i = 0; i < width; ++i, ++in) o << "  " << names[in] << " -> " << node << ";\n";
      next_names.push_back(node);
      next_sizes.push_back(merged);
    }
    names.swap(next_names);
    sizes.swap(next_sizes);
  }
}

}  // namespace

std::string plan_dot(const PlanReport& r) {
  if (r.stream) return "digraph merge_tree {\n  input [shape=folder,label=\"stream (size unknown)\"];\n}\n";
  std::ostringstream o;
  o << "digraph merge_tree {\n  rankdir=BT;\n  node [shape=box];\n";
  o << "  output [shape=doubleoctagon,label=\"" << dot_label("output", r.records, r.record_size) << "\"];\n";
  if (r.sort.mode == PlanMode::partition) partition_dot(o, r);
  else merge_tree_dot(o, r);
  o << "}\n";
  return o.str();
}

std::string format_with_width(const std::string& words, size_t record_size) {
  if (record_size == 0 || words.find("-byte records") != std::string::npos) return words;
  return words + " (" + std::to_string(record_size) + "-byte records)";
}

}  // namespace gxsort::cli
