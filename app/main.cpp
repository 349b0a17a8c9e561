// gxsort: the command-line tool. Parses the options into one Command, makes one
// library call for it, prints the result, and maps errors to the documented exit codes.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#include "commands.hpp"
#include "context_from_env.hpp"
#include "distributed_run.hpp"
#include "gxsort/distributed.hpp"
#include "gxsort/timeline.hpp"
#include "progress_line.hpp"
#include "render_plan.hpp"
#include "reports.hpp"
#include "signals.hpp"
#include "stats_file.hpp"

using namespace gxsort;

namespace {

// Sets up what every command shares (the --stats-json file, the progress line, notes)
// and runs the command's entry of the registry.
int run(const cli::Command& cmd) {
  // Checked (and its room reserved) before any work; written after the output.
  cli::StatsFile stats(cmd.stats_json, cmd.inputs, {cmd.output, cmd.engine.graph.bfs.parents_output}, cmd.engine);
  // What a command reports goes to stdout, unless its output does (-o -, --parents -).
  FILE* report = cmd.output == "-" || cmd.engine.graph.bfs.parents_output == "-" ? stderr : stdout;
  cli::ProgressLine progress(cmd.quiet, cmd.progress);
  EngineOptions opt = cmd.engine;
  opt.progress = [&progress](const Progress& p) { progress.update(p); };
  if (!cmd.quiet)
    opt.note = [&progress](const std::string& line) {
      progress.finish();  // the line starts at the left margin; the progress redraws below it
      std::fprintf(stderr, "gxsort: note: %s\n", cli::shown(line).c_str());
    };
  // Written before the outputs are committed (nothing that can fail comes after).
  opt.before_commit = [&](const RunStats& s) { stats.write(s, cmd.engine.fsync); };
  if (cmd.entry->temp_note && !cmd.quiet) {
    const std::string note = stale_temp_note(command_debris_dirs(opt, cmd.entry->output_dir ? std::string() : cmd.output));
    if (!note.empty()) std::fprintf(stderr, "gxsort: note: %s\n", cli::shown(note).c_str());
  }
  cli::CommandRun r{cmd, opt, stats, progress, report};
  return cmd.entry->run(r);
}

// A command a signal cancelled says, as it dies, what it kept for --resume (its job's
// pieces are what its unwinding left: no process holds their lock now) and the two ways
// on; nothing when it kept nothing, or with -q.
void say_what_was_kept(const cli::Command& cmd) {
  const int sig = cli::signal_received();
  if (!sig || cmd.quiet || !cmd.entry || !cmd.entry->temp_note) return;
  try {
    const std::string kept =
        stale_temp_note(command_debris_dirs(cmd.engine, cmd.entry->output_dir ? std::string() : cmd.output));
    if (!kept.empty()) std::fprintf(stderr, "gxsort: %s: %s\n", strsignal(sig), cli::shown(kept).c_str());
  } catch (...) {  // the process is about to die of the signal: the line is a courtesy
  }
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
    const cli::EarlyGpu when = cmd.entry->early_gpu;
    if (when == cli::EarlyGpu::none) return;
    if (when == cli::EarlyGpu::unless_cpu_sort && cmd.inputs.size() == 1 &&
        !may_use_gpu(*cmd.entry->kind, cmd.inputs[0], cmd.engine))
      return;
    if (when != cli::EarlyGpu::all && !cmd.distributed && cmd.engine.device != Device::cpu) show_only_the_first_gpu();
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

// The library's Context of this process, read from the environment once.
const Context& process_context() {
  static const Context context = cli::context_from_environment();
  return context;
}

int main(int argc, char** argv) {
  process_context();  // before the exit handler that uses it: destroyed after it ran
  std::atexit([] { timeline(process_context(), "exit handlers ran (left: the teardown)"); });
  hold_closed_std_descriptors();
  keep_freed_buffers();
  const CancelToken* cancel = cli::install_signal_handlers(cli::signal_grace_ms(cli::kSignalGraceMs));
  cli::Command cmd;
  try {
    cmd = cli::parse_command_line(argc, argv);
    cli::refuse_terminal_output(cmd);
    cli::resolve_npy(cmd);
    cmd.engine.context = process_context();
    cmd.engine.cancel = cancel;
  } catch (const Error& e) {
    // Every rank of an MPI job fails to parse the same command line: rank 0 says so.
    if (!cli::other_rank_of_a_job()) std::fprintf(stderr, "gxsort: %s\n", cli::shown(e.message()).c_str());
    return int(e.code());
  }
  // A rank of an MPI job (plan --ranks N plans one without MPI).
  if (cmd.distributed && cmd.ranks == 0) return cli::run_distributed(cmd, &argc, &argv);
  int rc = 0;
  try {
    timeline(cmd.engine.context, "main");
    EarlyCudaStart early(cmd);
    rc = run(cmd);
    timeline(cmd.engine.context, "work ended (its buffers and backend freed)");
  } catch (...) {
    // Cancelled by a signal (or an error it caused: EPIPE after SIGPIPE): unwound, the
    // process dies of the signal, saying only what it kept for --resume.
    say_what_was_kept(cmd);
    cli::end_if_signalled();
    const cli::ErrorReport r = cli::describe_error(cmd, std::current_exception());
    std::fprintf(stderr, "gxsort: %s\n", r.message.c_str());
    return int(r.code);
  }
  cli::end_if_signalled();  // a signal after the command's last poll (its commit): it dies of it all the same
  return rc;
}
