// The MPI communicator of a job started by mpirun (MPI_COMM_WORLD), behind Comm.
// mpi_comm.cpp is built only with GXSORT_MPI; this header needs no mpi.h.
#pragma once
#include <memory>

#include "distributed/comm.hpp"

namespace gxsort::distributed {

// MPI_Init_thread (FUNNELED: only the calling thread makes MPI calls; the engine's own
// threads do I/O and compute) on the first make_mpi_comm; MPI_Finalize when it goes.
std::unique_ptr<Comm> make_mpi_comm(int* argc, char*** argv);

}  // namespace gxsort::distributed
