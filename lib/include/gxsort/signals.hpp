// What a front end's signal handling needs from the library. The library installs no
// signal handler of its own: a front end (the CLI's app/signals.cpp, the Python package)
// owns SIGINT, SIGTERM and the like, sets the CancelToken of the call running
// (gxsort/cancel.hpp) and lets it unwind (no output replaced, temp files removed, a
// resumable job's pieces kept); where it ends the process at once instead (a call that
// does not unwind soon, a second signal), it calls these functions first.
#pragma once

namespace gxsort {

// Installs the SIGBUS handler that lets the library read files it maps: a mapped input
// that shrinks during a call faults (SIGBUS) at the first page past its new end; the
// handler maps zero pages over the rest of that mapping and records the file, and the
// call then fails with "input changed during the run" (exit code 3's class) instead of
// committing. A process that does not install it dies of SIGBUS then. Once per process,
// from its main thread, before any call (idempotent). A SIGBUS it does not explain (not
// a guarded mapping, or kill -BUS) goes to the handler installed before it, or takes the
// default action: a front end that must remove temp files then installs its own first.
void install_mapping_guard();

// The rest is async-signal-safe (no lock, no allocation): callable from a handler.

// Unlinks every temporary file the library holds in this process now (a resumable job's
// journalled pieces and an in-place rewrite's complete copy excepted: they are kept), and
// makes a thread that would create another wait for ever: for a process about to die.
void remove_all_temps_now() noexcept;

// Whether the process may end now: false while an in-place rewrite of a user's file runs
// (a file with other hard links, io::Output): ending then would leave it half-written.
// Once it returned true, no rewrite starts any more (one about to waits for ever). A front
// end that ends the process calls it until true (a short sleep between), then
// remove_all_temps_now(), then dies.
bool begin_process_exit() noexcept;

// While an in-place rewrite runs, the line that tells a user why a signal does not end
// the process yet ("gxsort: FILE: a signal came while ... finished first\n"); else null.
const char* process_exit_held_note() noexcept;

}  // namespace gxsort
