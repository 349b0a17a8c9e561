// The CLI owns the process's signals (the library installs none: gxsort/signals.hpp).
// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (as GNU sort) cancel the command: the
// first sets the CancelToken main passes it (EngineOptions::cancel), the command unwinds
// at its next chunk, run or window (no output replaced, temp files removed by their
// destructors, a resumable job's journalled pieces kept for --resume), and the process
// then dies of that signal (exit status 128 + N, as shells expect). A command that has not
// unwound `grace_ms` after it (blocked in a read from a pipe that never comes, a long
// fsync, a device call), or a second signal, ends the process the old way: every temp file
// removed at once, then dead of the signal; the end waits for an in-place rewrite of a
// user's file to be whole. A signal ignored at start (nohup, a script's background job)
// stays ignored. A SIGBUS that the library's mapping guard does not explain removes the
// temp files and takes the default action.
#pragma once
#include "gxsort/cancel.hpp"

namespace gxsort::cli {

// How long the first signal leaves a command to unwind: the engine polls its token at
// least once a chunk (32-64 MiB), run or merge window, tens of milliseconds apart at
// disk or memory speed; the longest steps without a poll (one run's sort, the sort of an
// input that fits in memory) take about a second per GiB on one core. Two seconds let
// nearly every command unwind and still feel prompt to a person at a terminal (whose
// second Ctrl-C ends it at once) and to a service manager's stop.
constexpr unsigned kSignalGraceMs = 2000;

// Installs the handlers and the library's mapping guard (gxsort::install_mapping_guard),
// once, at the start of main; returns the token that the signals set.
const CancelToken* install_signal_handlers(unsigned grace_ms);

// A rank of a distributed job: a signal ends it at once, the old way (its collectives do
// not poll the token, and mpirun SIGKILLs every rank as soon as the first one is gone), and
// it waits `linger_ms` after removing its temp files before it dies, so that the ranks the
// scheduler had not run yet remove theirs too.
void end_at_once_on_signals(unsigned linger_ms);

// The signal that cancelled the command (SIGINT, SIGTERM, ...); 0 when none came.
int signal_received();

// After the command returned or threw: when a signal came, the process dies of it now
// (the command's temp files are gone with its unwinding; what no destructor removes
// before the end, the debris list of static storage, goes first). Else it returns.
void end_if_signalled();

}  // namespace gxsort::cli
