// GXSORT_TIMELINE=1: a line on stderr at each step of the process's life, with the
// seconds since its exec, to find where a job's wall time goes outside its own work
// (mpirun, MPI's start and end, the device's start and end, the exit): issues 19 and 20.
#pragma once

namespace gxsort {

// "gxsort: timeline: [rank R] STEP at S s" where the variable is set; nothing otherwise.
void timeline(const char* step);

}  // namespace gxsort
