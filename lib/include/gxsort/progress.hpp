// Progress reporting: the library never prints; it calls this with what it has done,
// and the app decides what to draw.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

namespace gxsort {

struct Progress {
  const char* phase = "";         // "sort runs", "merge", "partition", ...
  uint64_t done = 0, total = 0;   // bytes of this phase (total 0: not known yet, a stream)
  size_t level = 0, levels = 0;   // a merge tree's level `level` of `levels` (0: not a merge level)
  // The whole job (a sort's or merge's plan: engine/whole_progress.hpp): the bytes it reads
  // and writes in all its phases, done so far (never less than before) and planned.
  // job_total 0: not known.
  uint64_t job_done = 0, job_total = 0;
};

using ProgressFn = std::function<void(const Progress&)>;

}  // namespace gxsort
