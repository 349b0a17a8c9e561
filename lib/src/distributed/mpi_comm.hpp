// The MPI communicator of a job started by mpirun (MPI_COMM_WORLD), behind Comm.
// mpi_comm.cpp is not in the library: it is the plugin libgxsort-mpi.so (built with
// GXSORT_MPI), the one object of gxsort that links libmpi. A distributed session loads it
// (load_mpi_comm), so that the binary starts where Open MPI is absent. No mpi.h here.
#pragma once
#include <memory>
#include <string>

#include "distributed/comm.hpp"

namespace gxsort::distributed {

// The plugin's entry points, extern "C" (looked up by these names):
//   const char* gxsort_mpi_plugin_version(): the GXSORT_VERSION it was built with; a plugin
//     of another gxsort is refused (its Comm may differ from this one's);
//   Comm* gxsort_make_mpi_comm(int* argc, char*** argv): MPI_Init_thread (FUNNELED: only
//     the calling thread makes MPI calls; the engine's own threads do I/O and compute);
//     MPI_Finalize when the Comm is deleted.
constexpr const char* kMpiPluginVersionSymbol = "gxsort_mpi_plugin_version";
constexpr const char* kMakeMpiCommSymbol = "gxsort_make_mpi_comm";
using MpiPluginVersionFn = const char* ();
using MakeMpiCommFn = Comm*(int* argc, char*** argv);

// Loads the plugin at `path` and starts MPI through it. Throws Error(usage) with a line
// that names what could not be loaded (the plugin, or the libmpi it needs) and how to get it.
std::unique_ptr<Comm> load_mpi_comm(const std::string& path, int* argc, char*** argv);

}  // namespace gxsort::distributed
