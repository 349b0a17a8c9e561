// A rank's slice of the input, sorted with the engine: read into memory and sorted there
// (one run, or several runs sorted in place when the sort's scratch does not fit), or
// formed into sorted run files by run formation, as a one-process external sort forms
// them. The runs stay apart (no local merge): the splitters cut every run, and the ranks
// merge what they receive.
#pragma once
#include <string>
#include <vector>

#include "distributed/shape.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"

namespace gxsort::distributed {

struct LocalRuns {
  HostBuffer memory;              // the in-memory runs, back to back
  std::vector<TreeInput> files;   // the run files (owned: removed with this)
  std::vector<RunRef> runs;       // every run, in input order (ties keep it)
  uint64_t records() const;
  // Releases the runs (memory and files) once they were sent.
  void release();
};

// Sorts records [slice.first, slice.first + slice.records) of `in` as `shape` says (-u:
// each run keeps the first record of each key). `p` is the rank's prepared engine.
LocalRuns sort_slice(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt);

}  // namespace gxsort::distributed
