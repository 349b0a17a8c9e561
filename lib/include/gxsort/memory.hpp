// In-memory entry points for programs that embed gxsort (the Python package, other C++
// tools): sort, argsort, unique and merge of a caller's buffer of records of a Format.
// The order is gxsort's: a stable sort by the key's order words (format.hpp: totalOrder
// for floats, so -0.0 < +0.0 and NaNs by their bits), byte-identical to `gxsort sort` of
// the same bytes with the same format, on the CPU and the GPU backends.
//
// A buffer whose sort fits the memory budget is sorted in memory; a larger one goes
// through the out-of-core engine: it is written to a private temp file (0600, in a
// checked temp directory), sorted there with the budget, and read back; no temp file is
// left on any path, errors and cancellation included. argsort and unique sort the
// records with their indices (8 bytes more a record): a copy that does not fit the
// budget is written to the temp file in pieces and read back in pieces, never whole in
// memory. merge needs no memory beyond its output, whatever the budget. Calls share no
// mutable state but a DeviceWorkspace the caller gives them: several may run at once in
// one process.
//
// Errors are thrown as gxsort::Error (error.hpp): usage (bad format, unsorted merge
// input), io (temp files, memory), DeviceError (a device buffer without a usable GPU),
// Cancelled (the token was set). A sort that throws leaves the caller's buffer as it was
// (a spilled one is read back only once its sort succeeded; one in memory is polled only
// before it starts); the outputs of the other calls then hold no result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/cancel.hpp"
#include "gxsort/context.hpp"
#include "gxsort/error.hpp"
#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "gxsort/progress.hpp"

namespace gxsort {

class DeviceWorkspace;
namespace api {
class DeviceLease;
}

// Where a call's buffers live.
enum class BufferLocation {
  host,    // ordinary (or pinned) host memory
  device,  // CUDA device memory of the GPU MemoryOptions::device_index names
};

// What one in-memory call runs with: the engine's resources, resolved by the caller.
struct MemoryOptions {
  SizeOption memory;                  // host budget, as --memory; not given: half of the memory limit
  unsigned threads = default_threads();
  // The backend that sorts host buffers. auto: a GPU when usable, except buffers of at
  // most 4 MiB a thread, which the CPU sorts faster than a GPU starts and copies them.
  Device device = Device::automatic;
  unsigned device_index = 0;          // the GPU: device_index mod the GPUs visible
  SizeOption device_memory;           // as --device-memory; not given: 80% of free device memory
  std::vector<std::string> tmp_dirs;  // a buffer larger than the budget spills here; empty: $TMPDIR, else /tmp
  // Device buffers (every buffer of the call): sort, argsort, unique and merge run on the
  // GPU holding them, without a host round trip, after the work queued so far on
  // `stream` (a cudaStream_t; 0: the default stream), and are done when the call returns;
  // the results are the host calls' bytes. Buffers larger than one device call takes (2^31
  // records, or a working set past device_memory or the GPU's free memory): sort sorts
  // them on the GPU in chunks merged there (keys of at most 8 bytes, up to 16 chunks);
  // otherwise they are copied to host memory, handled there by the engine (on this GPU,
  // through temp files past `memory`) and the results copied back.
  BufferLocation location = BufferLocation::host;
  uintptr_t stream = 0;
  // Device buffers: the GPU's streams and memory arena kept between calls (see
  // DeviceWorkspace); null: each call makes and frees its own (about 0.5 ms).
  DeviceWorkspace* workspace = nullptr;
  const CancelToken* cancel = nullptr;  // polled at chunk and phase boundaries: throws Cancelled
  ProgressFn progress;                  // the engine's progress (phases of a spilled sort too)
  Context context;                      // the caller's resolved facts ($TMPDIR's directory, hooks, trace)
};

// What device calls keep between them, owned by the caller (the Python package keeps one):
// for each GPU the calls use, its streams and its memory arena, fitted to the largest
// recent call (made anew when a call needs more, or holds more than twice its need).
// Calls that share a workspace take turns on each GPU; any thread may use it.
class DeviceWorkspace {
 public:
  DeviceWorkspace();
  ~DeviceWorkspace();  // frees it all: call it before the CUDA runtime is torn down
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  DeviceWorkspace& operator=(const DeviceWorkspace&) = delete;
  // Frees the GPUs' memory and streams now, waiting for the calls running; later calls make them again.
  void release();

 private:
  friend class api::DeviceLease;
  struct State;
  std::unique_ptr<State> state_;
};

// Stable sort, in place, of `count` records of format f at `data`.
void sort(void* data, size_t count, const Format& f, const MemoryOptions& o = {});

// A stable sorted copy (np.sort): the `count` records at `in` sorted into `out` (buffers
// that do not overlap, both host or both device memory); `in` is not written. The copy
// is the sort's first pass, not one more: a GPU reads `in` and writes `out`.
void sort_copy(const void* in, void* out, size_t count, const Format& f, const MemoryOptions& o = {});

// The stable sorting permutation: perm[i] is the input index of the record that a stable
// sort puts at position i (np.argsort(kind="stable")). perm holds `count` entries; the
// records are not written.
void argsort(const void* data, size_t count, const Format& f, uint64_t* perm, const MemoryOptions& o = {});

// The distinct keys of `count` records, in sorted order: for each group of records with
// equal keys (equal key bytes, field by field: totalOrder bits), its first record in
// input order is written to `out` (room for `count` records), with, when not null,
// counts[g] its group's size and first_index[g] that record's index in the input
// (np.unique with return_index and return_counts, in gxsort's key order). Returns the
// number of groups; the same records as `gxsort dedupe` (or `sort -u`) writes.
size_t unique(const void* data, size_t count, const Format& f, void* out, uint64_t* counts = nullptr,
              uint64_t* first_index = nullptr, const MemoryOptions& o = {});

// The index of the first record whose key is smaller than the one before it; `count`
// when the records are sorted. Equal keys are in order. A device buffer (o.location) is
// read on its GPU; o's other fields serve device buffers only.
size_t first_unsorted(const void* data, size_t count, const Format& f, const MemoryOptions& o = {});

// A sorted buffer of records, an input of merge.
struct SortedRecords {
  const void* data = nullptr;
  size_t count = 0;
};

// Stable merge of sorted buffers into `out` (room for the sum of their counts, not
// overlapping them): records with equal keys keep the order of the inputs, then their
// order within an input, as `gxsort merge` does. A K-way merge on the call's threads,
// each taking a range of the output. An input that is not sorted throws Error(usage)
// naming the first such input and its first record out of order; `out` then holds no
// result. Progress (phase "merge") may be reported by several threads at once.
void merge(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o = {});
inline void merge(const void* a, size_t a_count, const void* b, size_t b_count, const Format& f, void* out,
                  const MemoryOptions& o = {}) {
  merge({{a, a_count}, {b, b_count}}, f, out, o);
}

}  // namespace gxsort
