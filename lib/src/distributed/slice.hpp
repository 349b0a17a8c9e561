// A rank's slice of the input, sorted with the engine: read into memory and sorted there
// (one run, or several runs sorted in place when the sort's scratch does not fit), or
// formed into sorted run files by run formation, as a one-process external sort forms
// them. The runs stay apart (no local merge): the splitters cut every run, and the ranks
// merge what they receive.
#pragma once
#include <string>
#include <vector>

#include "distributed/device_pass.hpp"
#include "distributed/shape.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"

namespace gxsort::distributed {

struct LocalRuns {
  HostBuffer memory;              // the in-memory runs, back to back
  std::vector<TreeInput> files;   // the run files (owned: removed with this)
  std::vector<RunRef> runs;       // every run, in input order (ties keep it)
  std::vector<PhaseStat> stages;  // run formation's (run files only)
  uint64_t records() const;
  // Releases the runs (memory and files) once they were sent.
  void release();
};

// Sorts records [slice.first, slice.first + slice.records) of `in` as `shape` says (-u:
// each run keeps the first record of each key). `p` is the rank's prepared engine.
LocalRuns sort_slice(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt);

// The slice's records of `in`, read on `threads` threads: the fill of a device load.
Fill slice_reader(const io::File& in, const RankShape& shape, size_t record_size, unsigned threads);
// The slice sorted on a device (all of `slots`' records), copied into touched host memory
// as the slice's one run (-u: the first record of each key kept).
LocalRuns copy_to_host(DeviceSlots& slots, DeviceResidentSort& sorted, Prepared& p, const io::File& in,
                       const EngineOptions& opt);

}  // namespace gxsort::distributed
