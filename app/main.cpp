// gxsort: the command-line tool. Parses the options into one Command, makes one
// library call for it, prints the result, and maps errors to the documented exit codes.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>

#include "cli_options.hpp"
#include "distributed_run.hpp"
#include "gxsort/distributed.hpp"
#include "gxsort/timeline.hpp"
#include "progress_line.hpp"
#include "reports.hpp"

using namespace gxsort;

namespace {

bool uses_temp_dirs(const std::string& name) {
  return name == "sort" || name == "runs" || name == "merge" || name == "dedupe" || name == "graph build";
}

// Runs the command that writes an output (or nothing but its stats) and returns its stats.
RunStats run_work(const cli::Command& cmd, const EngineOptions& opt, FILE* report) {
  const std::string& in = cmd.inputs.empty() ? std::string() : cmd.inputs[0];
  const std::string& n = cmd.name;
  if (n == "sort") return sort_file(in, cmd.output, opt);
  if (n == "runs") return form_runs(in, cmd.output, opt);
  if (n == "merge") return merge_files(cmd.inputs, cmd.output, opt);
  if (n == "dedupe") return dedupe_file(in, cmd.output, opt);
  if (n == "gen" && opt.graph.gen.kind != GraphKind::none) return gen_graph(cmd.output, opt.graph.gen, opt);
  if (n == "gen") return gen_file(cmd.output, opt.format, cmd.gen, opt);
  if (n == "reduce") {
    ReduceResult r = reduce_file(in, cmd.reduce_op, cmd.reduce_algo, opt);
    cli::print_reduce(report, in, cmd.reduce_op, r, cmd.json);
    return r.stats;
  }
  if (n == "graph build") {
    GraphBuildResult r = graph_build(in, cmd.output, opt.graph.build, opt);
    if (!cmd.quiet || cmd.json) cli::print_graph_build(report, cmd.output, r, cmd.json);
    return r.stats;
  }
  BfsResult r = bfs_file(in, opt.graph.bfs, opt);
  if (!cmd.quiet || cmd.json) cli::print_bfs(report, in, r, cmd.json);
  return r.stats;
}

int run(const cli::Command& cmd) {
  if (cmd.name == "help") {
    (cmd.help_is_error ? std::cerr : std::cout) << cmd.help_text;
    return cmd.help_is_error ? int(ExitCode::usage) : 0;
  }
  // Checked (and its room reserved) before any work; written after the output.
  StatsFile stats(cmd.stats_json, cmd.inputs, {cmd.output, cmd.engine.graph.bfs.parents_output}, cmd.engine);
  // What a command reports goes to stdout, unless its output does (-o -, --parents -).
  FILE* report = cmd.output == "-" || cmd.engine.graph.bfs.parents_output == "-" ? stderr : stdout;
  cli::ProgressLine progress(cmd.quiet, cmd.progress);
  EngineOptions opt = cmd.engine;
  opt.progress = [&progress](const Progress& p) { progress.update(p); };
  if (!cmd.quiet)
    opt.note = [&progress](const std::string& line) {
      progress.finish();  // the line starts at the left margin; the progress redraws below it
      std::fprintf(stderr, "gxsort: note: %s\n", cli::one_line(line).c_str());
    };
  // Written before the outputs are committed (nothing that can fail comes after).
  opt.before_commit = [&](const RunStats& s) { stats.write(s, cmd.engine.fsync); };
  if (uses_temp_dirs(cmd.name) && !cmd.quiet) {
    const std::string note = stale_temp_note(command_debris_dirs(opt, cmd.name == "runs" ? std::string() : cmd.output));
    if (!note.empty()) std::fprintf(stderr, "gxsort: note: %s\n", cli::one_line(note).c_str());
  }
  if (cmd.name == "clean") {
    cli::print_clean(stdout, clean_temp_files(cmd.engine.tmp_dirs, cmd.dry_run, cmd.all_users), cmd.json, cmd.quiet);
    return 0;
  }
  if (cmd.name == "info") { cli::print_info(stdout, opt, cmd.json); return 0; }
  if (cmd.name == "plan" && cmd.distributed) {  // --ranks N: planned here, as if on this host
    const EngineOptions rank = distributed_rank_options(opt, 0, cmd.ranks, cmd.threads_given);
    cli::print_plan(stdout, plan_distributed(cmd.inputs[0], rank, cmd.plan_format, nullptr, cmd.ranks), cmd.plan_format);
    return 0;
  }
  if (cmd.name == "plan" && !cmd.planned.empty()) {  // plan CMD ARGS
    cli::print_plan(stdout, plan_command(cmd.planned, cmd.inputs, cmd.output, opt, cmd.plan_format), cmd.plan_format);
    return 0;
  }
  if (cmd.name == "plan") {
    cli::print_plan(stdout, plan_sort(cmd.inputs[0], cmd.output, opt, cmd.plan_format), cmd.plan_format);
    return 0;
  }
  if (cmd.name == "check") {
    CheckResult r = check_file(cmd.inputs[0], opt);
    progress.finish();
    if (!cmd.quiet || cmd.json) cli::print_check(report, cmd.inputs[0], r, cmd.json);
    stats.write(r.stats, cmd.engine.fsync);
    if (cmd.verbose) cli::print_summary(r.stats);
    return r.sorted ? 0 : int(ExitCode::check_failed);
  }
  const RunStats s = run_work(cmd, opt, report);
  progress.finish();
  stats.write(s, cmd.engine.fsync);
  if (cmd.verbose) cli::print_summary(s);
  return 0;
}

}  // namespace

// A standard descriptor the caller closed (`>&-`) gets an O_PATH descriptor of
// /dev/null in its place: reads and writes fail on it as on a closed one (`-o -` is
// refused at open: io::Output), and no file gxsort opens takes its number (a temp file
// on descriptor 1 would receive what is meant for standard output).
void hold_closed_std_descriptors() {
  for (int fd = 0; fd < 3; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int held = ::open("/dev/null", O_PATH);  // the lowest free number: this one
      if (held >= 0 && held != fd) ::close(held);
    }
}

// A command of one process uses the first GPU it is shown (the ranks of a distributed
// job each take their own and reach the others', so they see all). Showing it that one
// alone spares the CUDA driver the start of the others: 0.51 s with both GPUs of a 2x
// H200 host visible, 0.20 s with one (docs/benchmarks.md, sixteenth session). A list the
// user gave is cut to its first entry; an empty one (no GPU) is left so.
void show_only_the_first_gpu() {
  const char* given = std::getenv("CUDA_VISIBLE_DEVICES");
  if (given && !*given) return;
  const std::string list = given ? given : "0";
  ::setenv("CUDA_VISIBLE_DEVICES", list.substr(0, list.find(',')).c_str(), 1);
}

// Starts the GPU early for a command that may use it (help, gen and clean do not, nor a
// sort or dedupe that --device auto gives to the CPU backend), and joins that start before the
// process ends, whatever path it ends by. `info` lists every GPU, and a distributed plan
// counts them; the others use the first.
struct EarlyCudaStart {
  explicit EarlyCudaStart(const cli::Command& cmd) {
    if (cmd.name == "help" || cmd.name == "gen" || cmd.name == "clean") return;
    if (cmd.inputs.size() == 1 && !may_use_gpu(cmd.name, cmd.inputs[0], cmd.engine)) return;
    if (cmd.name != "info" && !cmd.distributed && cmd.engine.device != Device::cpu) show_only_the_first_gpu();
    start.emplace(cmd.engine);
  }
  std::optional<EarlyDeviceStart> start;
};

// Buffers of a few MiB freed and allocated again and again (the run cursors of a
// resumable merge, new for each of its ~64 checkpointed segments) come back from the
// heap instead of as fresh pages: glibc's default trims them away and faults them in
// again (2 GiB out-of-core sort on the 2-core VM: 530k page faults against 132k without
// checkpoints, about 3% of its time). Buffers from 64 MiB (run slots) are still mapped
// and unmapped on their own.
void keep_freed_buffers() {
  ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

int main(int argc, char** argv) {
  std::atexit([] { timeline("exit handlers ran (left: the teardown)"); });
  hold_closed_std_descriptors();
  keep_freed_buffers();
  cli::Command cmd;
  try {
    cmd = cli::parse_command_line(argc, argv);
    cli::resolve_npy(cmd);
  } catch (const Error& e) {
    // Every rank of an MPI job fails to parse the same command line: rank 0 says so.
    if (!cli::other_rank_of_a_job()) std::fprintf(stderr, "gxsort: %s\n", cli::one_line(e.what()).c_str());
    return int(e.code());
  }
  // A rank of an MPI job (plan --ranks N plans one without MPI).
  if (cmd.distributed && !(cmd.name == "plan" && cmd.ranks > 0)) return cli::run_distributed(cmd, &argc, &argv);
  try {
    timeline("main");
    EarlyCudaStart early(cmd);
    const int rc = run(cmd);
    timeline("work ended (its buffers and backend freed)");
    return rc;
  } catch (...) {
    const cli::ErrorReport r = cli::describe_error(cmd, std::current_exception());
    std::fprintf(stderr, "gxsort: %s\n", r.message.c_str());
    return int(r.code);
  }
}
