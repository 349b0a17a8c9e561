// GXSORT_TIMELINE=1: a line on stderr at each step of the process's life, with the
// seconds since its exec, to find where a job's wall time goes outside its own work
// (mpirun, MPI's start and end, the device's start and end, the exit): issue 19.
#pragma once

namespace gxsort::cli {

// "gxsort: timeline: [rank R] STEP at S s" where the variable is set; nothing otherwise.
void timeline(const char* step);

}  // namespace gxsort::cli
