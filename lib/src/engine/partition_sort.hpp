// The partition plan's out-of-core sort (plan.hpp: PlanMode::partition), a two-pass
// distribution sort:
//   pass 1  splitters are sampled from the input (sort/splitters.hpp); the input is read
//           chunk by chunk and each chunk's records are scattered, stably, by key range,
//           then appended to their bucket's temp file;
//   pass 2  each bucket in turn is sorted in memory and written to its place in the
//           output, its temp file deleted first (the output's pages reuse its pages).
// It reads and writes the data twice, like run formation plus one merge, but its second
// pass is an in-memory sort where the merge's is a K-way loser tree: on the CPU that
// is most of the out-of-core sort's time. Buckets keep input order and the in-memory
// sort is stable, so the output is the stable sort's, byte for byte.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "engine/engine.hpp"

namespace gxsort {

class SortJob;

// Sorts all `records` records of `file` into `out` from byte out_offset; returns the
// records written (fewer with unique). For a bucket too large to sort in memory.
using SortLargeBucket = std::function<uint64_t(const io::File& file, uint64_t records, uint64_t out_offset)>;

// Runs p.plan (mode partition) over `in` into `out` from byte 0; returns the records
// written. Appends its two phases to `phases`.
// `job`, when given, makes the buckets and the written buckets of the output pieces of
// a resumable job (engine/job.hpp), and takes over those a killed run left.
uint64_t partition_sort(Prepared& p, const io::File& in, const Format& f, bool unique, const ProgressFn& progress,
                        const io::File& out, const SortLargeBucket& sort_large, std::vector<PhaseStat>& phases,
                        SortJob* job = nullptr);

// Prefixes at `count` evenly spaced records of `in` (n records), sorted.
std::vector<uint64_t> sample_prefixes(const io::File& in, const Format& f, uint64_t n, size_t count);

}  // namespace gxsort
