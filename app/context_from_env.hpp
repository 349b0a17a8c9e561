// The CLI's one reading of the environment for the library: gxsort::Context.
#pragma once
#include "gxsort/context.hpp"

namespace gxsort::cli {

// $TMPDIR, the timeline switch (GXSORT_TIMELINE) and this process's MPI rank
// (OMPI_COMM_WORLD_RANK), the tuning knobs (GXSORT_BFS_*) and the test hooks
// (GXSORT_TEST_*, GXSORT_SKIP_SPACE_CHECK, GXSORT_BENCH_NO_JOURNAL); diagnostic lines go
// to stderr.
Context context_from_environment();

// How long the first signal leaves a command to unwind (app/signals.hpp): `standard`,
// unless the test hook GXSORT_TEST_SIGNAL_GRACE_MS sets it (a long one makes a test see
// the unwinding, 0 the old way at once).
unsigned signal_grace_ms(unsigned standard);

}  // namespace gxsort::cli
