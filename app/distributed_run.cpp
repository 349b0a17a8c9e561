#include "distributed_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>
#include <optional>

#include "gxsort/distributed.hpp"
#include "gxsort/timeline.hpp"
#include "commands.hpp"
#include "mpi_plugin.hpp"
#include "progress_line.hpp"
#include "render_plan.hpp"
#include "reports.hpp"
#include "signals.hpp"
#include "stats_file.hpp"

namespace gxsort::cli {

bool other_rank_of_a_job() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* v = std::getenv(name);
    if (v && *v) return std::string(v) != "0";
  }
  return false;
}

// Ends this rank after an error: the rank that reports it prints its line and aborts
// the job (DistributedSession::reports_failure says which and when); the others end there.
[[noreturn]] void fail_job(DistributedSession& job, const ErrorReport& r) {
  if (job.reports_failure()) {
    const std::string who = job.size() > 1 ? "rank " + std::to_string(job.rank()) + ": " : "";
    std::fprintf(stderr, "gxsort: %s%s\n", who.c_str(), r.message.c_str());
    job.abort_job(r.code);
  }
  std::_Exit(int(r.code));
}

int run_distributed(const Command& cmd, int* argc, char*** argv) {
  timeline(cmd.engine.context, "main");
  // mpirun SIGKILLs every rank once one died of its SIGTERM: a rank ends at once (its
  // collectives do not poll the token), and the ranks that are done wait 300 ms for the
  // others' cleanup (docs/distributed.md).
  end_at_once_on_signals(300);
  std::unique_ptr<DistributedSession> job;
  try {
    job = std::make_unique<DistributedSession>(argc, argv, mpi_plugin_path());
    timeline(cmd.engine.context, "MPI started");
  } catch (...) {  // built without MPI, or its plugin or libmpi cannot be loaded
    const ErrorReport r = describe_error(cmd, std::current_exception());
    std::fprintf(stderr, "gxsort: %s\n", r.message.c_str());
    return int(r.code);
  }
  const bool lead = job->rank() == 0;  // reports for the job
  EngineOptions opt = job->rank_options(cmd.engine, cmd.threads_given);
  try {
    EarlyDeviceStart early(opt);
    ProgressLine progress(cmd.quiet || !lead, cmd.progress);
    if (lead) opt.progress = [&progress](const Progress& p) { progress.update(p); };
    if (cmd.entry->plans) {
      check_plan_format(cmd.planned, true, cmd.plan_format);
      const PlanReport plan = plan_distributed(cmd.inputs[0], opt, job.get(), 0);
      if (lead) print_plan(stdout, plan, cmd.plan_format);
      return 0;
    }
    std::optional<StatsFile> stats;
    job->collectively([&] {
      if (!lead) return;
      stats.emplace(cmd.stats_json, cmd.inputs, std::vector<std::string>{cmd.output}, cmd.engine);
      const std::string note = cmd.quiet ? "" : stale_temp_note(command_debris_dirs(opt, cmd.output));
      if (!note.empty()) std::fprintf(stderr, "gxsort: note: %s\n", shown(note).c_str());
    });
    if (lead) opt.before_commit = [&](const RunStats& st) { stats->write(st, opt.fsync); };
    timeline(cmd.engine.context, "job starts");
    const RunStats s = cmd.entry->run_rank(cmd, opt, *job);
    timeline(cmd.engine.context, "job ended");
    progress.finish();
    if (lead && cmd.verbose) print_summary(s);
  } catch (...) {
    fail_job(*job, describe_error(cmd, std::current_exception()));
  }
  timeline(cmd.engine.context, "device's start joined");
  job.reset();
  timeline(cmd.engine.context, "MPI finalized");
  return 0;
}

}  // namespace gxsort::cli
