// Where sort --distributed finds gxsort's MPI plugin (libgxsort-mpi.so, the one part of
// gxsort that links libmpi: gxsort/distributed.hpp).
#pragma once
#include <string>

namespace gxsort::cli {

// The plugin beside this binary (the build folder), else in the installed tree's
// LIBDIR/gxsort, found from the binary's own folder (/proc/self/exe: every rank mpirun
// starts is this binary), so that a tree installed under any prefix finds its own.
// Throws Error(usage) naming both places when it is in neither.
std::string mpi_plugin_path();

}  // namespace gxsort::cli
