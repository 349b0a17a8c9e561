// The one way gxsort splits CPU work over threads. Every split runs on one process-wide
// pool of long-lived threads (started at the first split that needs it, one thread per
// hardware thread), so a split costs a queue push and a wake-up, not a thread start.
//
// Rules every split keeps:
// - The calling thread works too: it takes tasks like any pool thread.
// - Exceptions: the first one a task throws is rethrown in the caller once every task
//   that had started has ended; tasks not yet started are skipped.
// - Nesting never deadlocks: a task may itself call parallel_for (a parallel write
//   inside a scheduler stage while a radix sort runs). A caller never waits for a task
//   that no thread has started: it runs every unstarted task itself, and then waits
//   only for tasks other threads are running.
// - threads = 1 (or a single task) runs inline on the caller, with no pool traffic.
// - `threads` bounds the threads working on one call; above the pool's size the tasks
//   still all run, on fewer threads.
#pragma once
#include <cstddef>
#include <functional>

namespace gxsort::parallel {

// Runs fn(0) .. fn(tasks - 1), each exactly once, on up to `threads` threads (0 counts as
// 1). Tasks are handed out in index order to whichever thread is free.
void parallel_for(size_t tasks, unsigned threads, const std::function<void(size_t task)>& fn);

// [begin, end) of part `part` when [0, n) is cut into `parts` contiguous parts whose
// sizes differ by at most one, in order (part p ends where part p + 1 begins).
struct Range { size_t begin, end; };
Range part_range(size_t n, unsigned parts, unsigned part);

// Runs fn(begin, end, part) once for every part of [0, n) cut as part_range cuts it, on
// up to `parts` threads (0 counts as 1). Every part is called, also empty ones (n <
// parts), so per-part state indexed by `part` is always written.
void parallel_for_ranges(size_t n, unsigned parts,
                         const std::function<void(size_t begin, size_t end, unsigned part)>& fn);

}  // namespace gxsort::parallel
