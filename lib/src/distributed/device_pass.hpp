// A rank's records through its device's resident sort, where the device holds them all
// (a GPU backend; begin_resident_sort says): loaded in 64 MiB slices through pinned
// slots (the fill of the next slice overlaps the copy in of this one), sorted on the
// device, and unloaded slice by slice to `drain` (the copy out overlaps the drain). The
// same path as the one-process in-memory GPU sort (engine/sort_in_memory.cpp): where a
// rank's slice and what it receives fit its device, the GPU sorts both, not the host's
// copies and merges.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/engine.hpp"
#include "engine/run.hpp"
#include "pipeline/chunk_scheduler.hpp"

namespace gxsort::distributed {

// fill(dst, first, count): copies records [first, first + count) of the source to dst.
// drain(src, first, count): takes sorted records [first, first + count).
using Fill = std::function<void(unsigned char* dst, uint64_t first, uint64_t count)>;
using Drain = std::function<void(const unsigned char* src, uint64_t first, uint64_t count)>;

// Three pinned slots for the slices of `records` records going in or out: of the plan's
// slice_bytes (Plan::resident_slice_bytes), or all of them when less.
struct DeviceSlots {
  DeviceSlots(Backend& backend, size_t record_size, uint64_t records, size_t slice_bytes);
  pipeline::Config config(const char* phase) const;
  size_t rs = 0, slice = 0;
  uint64_t bytes = 0;
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
};
// The halves of sort_on_device: every slice loaded (fill overlapping the copy in), and
// every sorted slice unloaded (the copy out overlapping drain).
void load_on_device(DeviceSlots& slots, DeviceResidentSort& resident, const Fill& fill, const ProgressFn& progress);
void unload_from_device(DeviceSlots& slots, DeviceResidentSort& resident, const Drain& drain,
                        const ProgressFn& progress);
void sort_on_device(Backend& backend, DeviceResidentSort& resident, size_t record_size, uint64_t records,
                    size_t slice_bytes, const Fill& fill, const Drain& drain, const ProgressFn& progress);

// A fill that reads the pieces (in memory) back to back, in their order, on `threads`.
Fill fill_from_pieces(const std::vector<RunRef>& pieces, size_t record_size, unsigned threads);

// Pageable host memory of `bytes`, every page touched on `threads` threads (first-touch
// faults on one thread cost 2-3 s a GiB on the CPU machine's VM).
HostBuffer touched_host_buffer(size_t bytes, unsigned threads);

}  // namespace gxsort::distributed
