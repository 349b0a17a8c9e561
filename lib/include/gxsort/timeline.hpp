// Context::timeline (the CLI: GXSORT_TIMELINE=1): a line to Context::trace at each step
// of the process's life, with the seconds since its exec, to find where a job's wall
// time goes outside its own work (mpirun, MPI's start and end, the device's start and end, the exit): issues 19 and 20.
#pragma once

#include "gxsort/context.hpp"

namespace gxsort {

// "gxsort: timeline: [rank R] STEP at S s" to context.trace where context.timeline is
// set; nothing otherwise.
void timeline(const Context& context, const char* step);

}  // namespace gxsort
