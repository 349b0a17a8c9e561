// The distributed sort (docs/distributed.md): `mpirun -np N gxsort sort IN -o OUT
// --distributed`. Each process (rank) sorts a slice of IN with the engine (its GPU or its
// CPU), the ranks exchange records by key range over MPI, and each writes its range of
// OUT; the output is byte-identical to a one-process sort. Built with GXSORT_MPI; without
// it DistributedSession refuses to start (exit 2) and plan_distributed still plans for --ranks N.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/command_plan.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort {

namespace distributed { class Comm; }

// Whether this gxsort was built with MPI.
bool distributed_built();

// The engine options of rank `host_rank` of the `host_size` ranks on one host: the GPU
// host_rank (mod the GPUs there), and, where not given, its share of the host: of half
// its memory (--memory is each rank's budget) and of its cores (threads_given: --threads
// was given; else the CPUs this process may use, at most the host's cores / host_size).
EngineOptions distributed_rank_options(EngineOptions opt, int host_rank, int host_size, bool threads_given);

// This process's part of a distributed job.
class DistributedSession {
 public:
  // Starts MPI (MPI_Init_thread) through gxsort's MPI plugin at `mpi_plugin` (the
  // libgxsort-mpi.so built with this library: the one part that links libmpi, loaded only
  // here); MPI_Finalize when it goes. Throws Error(usage) in a gxsort built without MPI, or
  // when the plugin or the libmpi it needs cannot be loaded (the line names which).
  DistributedSession(int* argc, char*** argv, const std::string& mpi_plugin);
  // A job on a communicator of the caller's (tests).
  explicit DistributedSession(std::unique_ptr<distributed::Comm> comm);
  ~DistributedSession();
  DistributedSession(const DistributedSession&) = delete;
  DistributedSession& operator=(const DistributedSession&) = delete;

  int rank() const;
  int size() const;
  // This rank's engine options (distributed_rank_options for its place on its host).
  EngineOptions rank_options(EngineOptions opt, bool threads_given) const;
  // Runs `work` on every rank; when it throws on any rank it throws on every one, the
  // failing rank's own error there and a quiet one elsewhere (then see reports_failure()).
  void collectively(const std::function<void()>& work);
  // How the job ends after an error (the front end prints and exits): removes this
  // process's temp files, then returns whether this rank reports the failure (prints its
  // one line "gxsort: rank R: message", then calls abort_job(code)). After a failure every
  // rank agreed on (collectively), every rank has unwound first: the first failing rank
  // reports, the others wait here for its abort, which ends them (should it not, false:
  // the caller exits with the code). Any other error cannot wait for the others (they
  // may be inside a collective): this rank reports at once; MPI_Abort's SIGTERM makes
  // the others remove their temp files, as a signal always does.
  bool reports_failure();
  // Ends every rank of the job with `code` (MPI_Abort); returns only where the
  // communicator cannot (the caller then exits).
  void abort_job(ExitCode code);
  distributed::Comm& comm() { return *comm_; }

 private:
  std::unique_ptr<distributed::Comm> comm_;
};

// sort --distributed (and dedupe --distributed: options.unique, command dedupe) as a
// typed request of one rank of `job`. Every rank calls plan() and run() together (both
// are collective). plan() opens the input, checks that the ranks agree on the job,
// prepares and shapes this rank's part and gathers every rank's shape, writing nothing;
// its report() is the whole job's on every rank (plan --distributed's). run() returns the
// job's stats on rank 0 (with every rank's in .ranks), this rank's elsewhere.
struct DistributedSortRequest {
  std::string input, output;
  EngineOptions options;
  DistributedSession* job = nullptr;  // required
  CommandKind command = CommandKind::sort;
};
CommandPlan<DistributedSortRequest> plan(DistributedSortRequest request);
RunStats run(CommandPlan<DistributedSortRequest> plan);

// merge --distributed: rank r writes records [N·r/n, N·(r+1)/n) of the stable merge of the
// inputs, cut from each by the multiway co-rank (no exchange). Not with -u. plan() opens
// the inputs, checks that the ranks agree, finds this rank's cuts and plans its merge,
// writing nothing; run() merges. Both collective, as the sort's.
struct DistributedMergeRequest {
  std::vector<std::string> inputs;
  std::string output;
  EngineOptions options;
  DistributedSession* job = nullptr;  // required
};
CommandPlan<DistributedMergeRequest> plan(DistributedMergeRequest request);
RunStats run(CommandPlan<DistributedMergeRequest> plan);

// run(plan(...)) of the requests above.
RunStats sort_distributed(const std::string& input, const std::string& output, const EngineOptions& opt,
                          DistributedSession& job, CommandKind command = CommandKind::sort);
RunStats merge_distributed(const std::vector<std::string>& inputs, const std::string& output, const EngineOptions& opt,
                           DistributedSession& job);

// plan --distributed: each rank's slice, local sort, staging and the exchange's rounds at
// balance (PlanReport::distributed). With `job`, for its ranks (each rank plans its own
// part with its own memory and backend; every rank returns the whole job's); else for
// `ranks` ranks like this process.
PlanReport plan_distributed(const std::string& input, const EngineOptions& opt, DistributedSession* job, int ranks);

}  // namespace gxsort
