// The last copy of the in-memory device sort: its sorted records into the mapped output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "gxsort/progress.hpp"
#include "io/mapped_file.hpp"

namespace gxsort {

// Copies the n sorted records (record_size bytes each) of `resident` to bytes [0, n *
// record_size) of `dst`, on up to `threads` threads: each thread takes its own contiguous
// part of the output and moves it a piece at a time, device to its own piece of the
// staging buffers (pinned host memory, `staging` of staging_bytes each), then into the
// mapping (MappedRange::put_here: final, its writeback starts). Progress: phase "write".
//
// Why parts and not one pipeline of slices, each split over every thread: a thread that
// faults the pages of its own part of a file filled the page cache at 10-12 GB/s, 64 MiB
// puts split over 32 threads at 7.7-8.3 (bench/page_cache_write, docs/benchmarks.md:
// "nopop", "map"). 4 GiB of u64 went out in 0.40-0.44 s instead of 0.50 s on the H200
// host (seventeenth session); the device's copies (50 GB/s) are a few percent of it.
void unload_in_parts(DeviceResidentSort& resident, size_t record_size, uint64_t n, io::MappedRange& dst,
                     const std::vector<unsigned char*>& staging, size_t staging_bytes, unsigned threads,
                     const ProgressFn& progress);

}  // namespace gxsort
