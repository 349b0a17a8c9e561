// A rank of `mpirun -np N gxsort sort|dedupe|plan ... --distributed` (docs/distributed.md).
#pragma once
#include "cli_options.hpp"

namespace gxsort::cli {

// Starts MPI, takes this rank's options (its share of the host, its GPU), makes the one
// library call, and reports on rank 0 (stats, -v, the plan). After an error it ends the
// job (DistributedJob::fail: one line from the failing rank, MPI_Abort with its exit code).
int run_distributed(const Command& cmd, int* argc, char*** argv);

}  // namespace gxsort::cli
