// gxsort: the command-line tool. Parses the options into one Command, makes one
// library call for it, prints the result, and maps errors to the documented exit codes.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <unistd.h>

#include "cli_options.hpp"
#include "progress_line.hpp"

using namespace gxsort;

namespace {

void summarize(const cli::Command& cmd, const RunStats& s) {
  if (!cmd.verbose) return;
  double mbps = s.seconds > 0 ? double(std::max(s.input_bytes, s.output_bytes)) / s.seconds / 1e6 : 0;
  const std::string shape = s.buckets ? std::to_string(s.buckets) + " buckets"
                                      : std::to_string(s.runs) + " runs, " + std::to_string(s.merge_levels) + " merge levels";
  std::fprintf(stderr, "gxsort %s: %" PRIu64 " records, %s, backend %s, %s, %.3f s, %.1f MB/s\n", s.command.c_str(),
               s.records, s.mode.c_str(), s.backend.c_str(), shape.c_str(), s.seconds, mbps);
  for (const auto& p : s.phases) std::fprintf(stderr, "  %-18s %8.3f s\n", p.name.c_str(), p.seconds);
}

bool uses_temp_dirs(const std::string& name) {
  return name == "sort" || name == "runs" || name == "merge" || name == "dedupe" || name == "graph build";
}

int clean(const cli::Command& cmd) {
  uint64_t removed = 0, bytes = 0, kept = 0;
  for (const CleanEntry& e : clean_temp_files(cmd.engine.tmp_dirs, cmd.dry_run)) {
    if (e.removed) { ++removed; bytes += e.bytes; } else { ++kept; }
    if (!cmd.quiet) std::printf("%s %s (%" PRIu64 " bytes): %s\n", e.removed ? "removed" : "kept", e.path.c_str(), e.bytes, e.why.c_str());
  }
  if (!cmd.quiet) std::printf("%" PRIu64 " removed (%" PRIu64 " bytes), %" PRIu64 " kept\n", removed, bytes, kept);
  return 0;
}

int run(const cli::Command& cmd) {
  // Checked (and its room reserved) before any work; written after the output.
  StatsFile stats(cmd.stats_json, cmd.inputs, cmd.output, cmd.engine);
  auto write_stats = [&](const cli::Command&, const RunStats& s) { stats.write(s, cmd.engine.fsync); };
  // What a command reports goes to stdout, unless its output does (-o -, --parents -).
  FILE* report = cmd.output == "-" || cmd.engine.graph.bfs.parents_output == "-" ? stderr : stdout;
  cli::ProgressLine progress(!cmd.quiet);
  EngineOptions opt = cmd.engine;
  opt.progress = [&progress](const char* phase, uint64_t done, uint64_t total) { progress.update(phase, done, total); };
  if (uses_temp_dirs(cmd.name) && !cmd.quiet) {
    const std::string note = stale_temp_note(command_temp_dirs(opt, cmd.name == "runs" ? std::string() : cmd.output));
    if (!note.empty()) std::fprintf(stderr, "gxsort: note: %s\n", note.c_str());
  }

  if (cmd.name == "help") {
    (cmd.help_is_error ? std::cerr : std::cout) << cmd.help_text;
    return cmd.help_is_error ? int(ExitCode::usage) : 0;
  }
  if (cmd.name == "clean") return clean(cmd);
  if (cmd.name == "info") { std::cout << info_text(opt); return 0; }
  if (cmd.name == "plan") { std::cout << plan_sort(cmd.inputs[0], cmd.output, opt, cmd.plan_format); return 0; }
  if (cmd.name == "check") {
    CheckResult r = check_file(cmd.inputs[0], opt);
    progress.finish();
    if (!cmd.quiet) {
      std::fprintf(report, "file: %s\nrecords: %" PRIu64 "\n", cmd.inputs[0].c_str(), r.records);
      if (r.sorted) std::fprintf(report, "sorted: yes\n");
      else std::fprintf(report, "sorted: no (record %" PRIu64 " is smaller than the one before it)\n", r.first_violation);
      std::fprintf(report, "duplicate keys: %" PRIu64 "\nchecksum: %016" PRIx64 "\nxxh3: %016" PRIx64 "\n", r.duplicates, r.checksum,
                  r.xxh3);
    }
    return r.sorted ? 0 : int(ExitCode::check_failed);
  }
  if (cmd.name == "reduce") {
    ReduceResult r = reduce_file(cmd.inputs[0], cmd.reduce_op, cmd.reduce_algo, opt);
    progress.finish();
    std::fprintf(report, "%s\n", r.text.c_str());
    write_stats(cmd, r.stats);
    summarize(cmd, r.stats);
    return 0;
  }
  if (cmd.name == "graph build") {
    GraphBuildResult r = graph_build(cmd.inputs[0], cmd.output, opt.graph.build, opt);
    progress.finish();
    if (!cmd.quiet)
      std::fprintf(report, "graph: %s\nvertices: %" PRIu64 "\nedges: %" PRIu64 " (from %" PRIu64 " input edges)\ntime: %.3f s\n",
                  cmd.output.c_str(), r.vertices, r.edges, r.input_edges, r.stats.seconds);
    write_stats(cmd, r.stats);
    summarize(cmd, r.stats);
    return 0;
  }
  if (cmd.name == "bfs") {
    BfsResult r = bfs_file(cmd.inputs[0], opt.graph.bfs, opt);
    progress.finish();
    if (!cmd.quiet) {
      std::fprintf(report, "graph: %" PRIu64 " vertices, %" PRIu64 " edges%s; backend %s; load %.3f s\n", r.vertices, r.edges,
                  r.symmetric ? " (symmetric)" : "", r.backend.c_str(), r.load_seconds);
      double sum_t = 0, sum_g = 0, sum_g500 = 0;
      for (const BfsSearch& b : r.searches) {
        std::fprintf(report, "source %" PRIu64 ": levels %u, vertices reached %" PRIu64 ", edges traversed %" PRIu64
                    " (sum of out-degrees of reached vertices), time %.3f ms, %.3f GTEPS; Graph500 edges %" PRIu64
                    ", %.3f GTEPS\n",
                    b.source, b.depth, b.reached, b.edges_traversed, b.seconds * 1e3, b.gteps, b.graph500_edges,
                    b.graph500_gteps);
        if (b.partitions_streamed)
          std::fprintf(report, "  neighbors streamed: %" PRIu64 " partition copies, %.1f MiB\n", b.partitions_streamed,
                      double(b.streamed_bytes) / (1 << 20));
        sum_t += b.seconds;
        sum_g += b.gteps;
        sum_g500 += b.graph500_gteps;
      }
      if (r.searches.size() > 1)
        std::fprintf(report, "mean of %zu searches: time %.3f ms, %.3f GTEPS; Graph500 %.3f GTEPS\n", r.searches.size(),
                    sum_t * 1e3 / double(r.searches.size()), sum_g / double(r.searches.size()),
                    sum_g500 / double(r.searches.size()));
    }
    return 0;
  }
  RunStats s;
  if (cmd.name == "sort") s = sort_file(cmd.inputs[0], cmd.output, opt);
  else if (cmd.name == "runs") s = form_runs(cmd.inputs[0], cmd.output, opt);
  else if (cmd.name == "merge") s = merge_files(cmd.inputs, cmd.output, opt);
  else if (cmd.name == "dedupe") s = dedupe_file(cmd.inputs[0], cmd.output, opt);
  else if (cmd.name == "gen" && opt.graph.gen.kind != GraphKind::none) s = gen_graph(cmd.output, opt.graph.gen, opt);
  else if (cmd.name == "gen") s = gen_file(cmd.output, opt.format, cmd.gen, opt);
  progress.finish();
  write_stats(cmd, s);
  summarize(cmd, s);
  return 0;
}

}  // namespace

// Starts the GPU early for a command that may use it (help, gen and clean do not), and
// joins that start before the process ends, whatever path it ends by.
struct EarlyCudaStart {
  explicit EarlyCudaStart(const cli::Command& cmd) {
    if (cmd.name != "help" && cmd.name != "gen" && cmd.name != "clean") start.emplace(cmd.engine);
  }
  std::optional<EarlyDeviceStart> start;
};

// Out of host memory, whatever asked for it: the budget is --memory's (or the RAM and
// cgroup limits under it). Names the command's input, the budget and what to change.
std::string out_of_memory(const cli::Command& cmd, uint64_t bytes) {
  std::string what = cmd.name;
  if (!cmd.inputs.empty()) what += " " + cmd.inputs[0];
  const std::string asked = bytes ? "allocating " + std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB " : "";
  const std::string budget = !cmd.engine.memory.given ? "the default --memory (half of RAM)"
                             : cmd.engine.memory.percent > 0 ? "--memory " + std::to_string(int(cmd.engine.memory.percent)) + "%"
                                                             : "--memory " + format_bytes(cmd.engine.memory.bytes);
  return what + ": out of host memory " + asked + "within " + budget +
         ": lower --memory, or raise the memory limit of the job (ulimit -v, the cgroup or the batch scheduler's)";
}

int main(int argc, char** argv) {
  cli::Command cmd;
  try {
    cmd = cli::parse_command_line(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "gxsort: %s\n", e.what());
    return int(e.code());
  }
  try {
    EarlyCudaStart early(cmd);
    return run(cmd);
  } catch (const OutOfMemory& e) {
    std::fprintf(stderr, "gxsort: %s\n", out_of_memory(cmd, e.bytes()).c_str());
    return int(ExitCode::io);
  } catch (const Error& e) {
    std::fprintf(stderr, "gxsort: %s\n", e.what());
    return int(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gxsort: %s\n", out_of_memory(cmd, 0).c_str());
    return int(ExitCode::io);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gxsort: %s\n", e.what());
    return int(ExitCode::io);
  }
}
