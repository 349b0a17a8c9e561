// A rank of `mpirun -np N gxsort sort|dedupe|plan ... --distributed` (docs/distributed.md).
#pragma once
#include "cli_options.hpp"

namespace gxsort::cli {

// Starts MPI, takes this rank's options (its share of the host, its GPU), makes the one
// library call, and reports on rank 0 (stats, -v, the plan). After an error it ends the
// job (fail_job: one line from the failing rank, MPI_Abort with its exit code).
int run_distributed(const Command& cmd, int* argc, char*** argv);

// Whether this process was started by mpirun (Open MPI's or MPICH's, by the rank they
// set in the environment) as a rank other than 0: before MPI starts, the only way to
// keep N ranks from printing the same usage error N times.
bool other_rank_of_a_job();

}  // namespace gxsort::cli
