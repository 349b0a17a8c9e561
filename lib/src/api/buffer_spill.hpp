// A host buffer larger than the in-memory API's budget (memory_sort.cpp's out-of-core
// cases), sorted through private temp files: runs formed from the buffer (or from
// records made in memory) merged by engine/merge.hpp, the merges dropping what they
// read; or, where the plan keeps runs in memory, sort_file on a spill file. Every temp
// file is removed on every path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/memory_sort.hpp"
#include "engine/engine.hpp"

namespace gxsort::api {

// The records of a spilled sort_made_records go in and come out in pieces of this many:
// a quarter of the budget, at least one record.
size_t spill_piece_records(uint64_t memory, size_t record_size);

// Whether a plan (--ooc merge) forms runs in temp files and merges them (an external
// plan): sort_through_merged_file's and made_records_through_runs' case.
bool merges_runs(const Plan& plan);

// Whether it merges them in one level: sort_through_runs' case.
bool merges_once(const Plan& plan);

// A sorted copy larger than the budget, in one merge (merges_once(p.plan)): runs formed
// from `in`, then merged from their files into `out`. The disk holds one copy of the
// records, written and read once.
void sort_through_runs(Prepared& p, const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt);

// Larger than the budget, in place or in more than one merge level (an external plan):
// runs formed from `in`, merged into a temp file, which is read into `out`: `out` is
// written only after the merge succeeded (a cancelled or failed sort leaves an array
// sorted in place untouched).
void sort_through_merged_file(Prepared& p, const unsigned char* in, unsigned char* out, size_t n,
                              const EngineOptions& opt);

// A buffer out of core: written to a temp file, sorted there, read back. `data` is
// written only by the read-back, after the sort succeeded: a cancelled or failed sort
// leaves it untouched.
void sort_through_files(unsigned char* data, size_t n, const EngineOptions& opt, const std::string& dir);

// sort_made_records past the budget (an external plan): each run made by `fill` in the run
// buffer and sorted there, the runs merged into a temp file, read back piece by piece
// into `take`. The records are never all in memory.
void made_records_through_runs(Prepared& p, size_t n, const EngineOptions& opt, const FillRecords& fill,
                               const TakeRecords& take);

// sort_made_records out of core: the records made piece by piece into a temp file,
// sorted there, and read back piece by piece; never all in memory.
void made_records_through_files(size_t n, const EngineOptions& opt, const std::string& dir, size_t piece,
                                const FillRecords& fill, const TakeRecords& take);

}  // namespace gxsort::api
