// The Backend interface: what run formation, merging, dedupe, reductions and BFS ask of
// a compute device. The CPU backend (cpu_backend.cpp) and the CUDA backend (cuda/)
// implement it with byte-identical results.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/context.hpp"
#include "gxsort/format.hpp"
#include "gxsort/options.hpp"
#include "kernels/reduce.hpp"
#include "kernels/check_chunk.hpp"

namespace gxsort {

// A host buffer owned by a backend: page-aligned memory for the CPU, pinned
// (cudaHostAlloc) memory for the CUDA backend so that copies run at full PCIe speed.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(unsigned char* p, size_t n, void (*release)(unsigned char*)) : p_(p), n_(n), release_(release) {}
  HostBuffer(HostBuffer&& o) noexcept { swap(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept { HostBuffer t(std::move(o)); swap(t); return *this; }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { if (p_ && release_) release_(p_); }
  unsigned char* data() const { return p_; }
  size_t size() const { return n_; }
  void swap(HostBuffer& o) noexcept { std::swap(p_, o.p_); std::swap(n_, o.n_); std::swap(release_, o.release_); }

 private:
  unsigned char* p_ = nullptr;
  size_t n_ = 0;
  void (*release_)(unsigned char*) = nullptr;
};

struct DeviceInfo {
  std::string name;
  size_t total_memory = 0;
  size_t free_memory = 0;
  size_t budget = 0;  // the device memory budget this run would use
  int multiprocessors = 0;
  int major = 0, minor = 0;
};

// A caller's sorted records in device memory: an input of merge_device_records.
struct DeviceSlice {
  const void* data = nullptr;
  size_t count = 0;
};

// A sort of a whole input held in device memory, fed and drained in slices, so that no
// host buffer of the whole input is needed and file reads overlap the copies: load()
// every slice, sort() once, then unload() the sorted slices.
class DeviceResidentSort {
 public:
  virtual ~DeviceResidentSort() = default;
  virtual void load(const unsigned char* host, size_t first, size_t count) = 0;
  virtual void sort() = 0;
  virtual void unload(unsigned char* host, size_t first, size_t count) = 0;
};

class KeyBitmap;  // sort/bitmap_dedupe.hpp
namespace graph {
struct CsrGraph;  // graph/graph.hpp
struct BfsRun;
struct BfsDevicePlan;
}  // namespace graph

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // The CPU threads of the host-side work a backend does itself (copies to and from its
  // buffers, a streamed graph's pieces): the plan's count, given once by make_backend.
  unsigned host_threads() const { return host_threads_; }
  void set_host_threads(unsigned threads) { host_threads_ = threads ? threads : 1; }
  // The call's Context (its tuning, test hooks and trace sink), given by whoever makes
  // the backend for a command (prepare).
  const Context& context() const { return context_; }
  void set_context(const Context& context) { context_ = context; }

  // Host memory for chunks: pinned for devices that copy from it.
  virtual HostBuffer allocate_host(size_t bytes) = 0;

  // Stable sort of n records of format f held in `records`, in place. `scratch`
  // holds at least sort_scratch_bytes(f, n) bytes.
  virtual size_t sort_scratch_bytes(const Format& f, size_t n) const = 0;
  virtual void sort_chunk(const Format& f, unsigned char* records, size_t n, unsigned char* scratch) = 0;

  // Stable sort of the n records of `src` into `dst` (src is not written; they do not
  // overlap), with whatever scratch the backend needs. The in-memory sort passes a
  // mapped input and a mapped output. `sorted`, when set, hears of each range of
  // records of dst that is final, as soon as it is (to start writing it back).
  // Default: sort_chunk in an allocate_host buffer (pinned on a device backend), between
  // two copies.
  using SortedRecords = std::function<void(size_t first, size_t count)>;
  virtual void sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                         const SortedRecords& sorted = {});

  // Buffers in this device's memory (the in-memory API's device pointers, gxsort/memory.hpp):
  // a stable sort of the n records at `from` into `records` (the same buffer: in place;
  // else apart from it), or their stable permutation into perm (n u64s, device memory
  // too), ordered after the work queued on the caller's `stream` (a cudaStream_t) and done
  // when the call returns. Default: DeviceError (no device).
  virtual void sort_device_records(const Format& f, const void* from, void* records, size_t n, uintptr_t stream);
  virtual void argsort_device_records(const Format& f, const void* records, size_t n, uint64_t* perm,
                                      uintptr_t stream);
  // A device buffer too large for one device sort, sorted where it lies in chunks merged
  // there (the same bytes); false, touching nothing, where this backend cannot (no device,
  // keys past 8 bytes, a budget too small for chunks of a sixteenth).
  virtual bool sort_device_records_in_chunks(const Format&, void* /*records*/, size_t /*n*/, uintptr_t /*stream*/) {
    return false;
  }
  // Whether those calls can take n records of f (one device sort: 2^31 records, its working
  // set within the budget and the memory free now); false without a device. A buffer that
  // does not fit goes through host memory: copied out and back on the caller's stream.
  virtual bool device_records_fit(const Format&, size_t /*n*/, bool /*argsort*/) const { return false; }
  // unique of a device buffer on the device (gxsort/memory.hpp's unique: its groups, first
  // records, counts and first indices, each output null or device memory), when
  // device_unique_fits. Default: DeviceError.
  virtual size_t unique_device_records(const Format& f, const void* records, size_t n, void* out, uint64_t* counts,
                                       uint64_t* first_index, uintptr_t stream);
  virtual bool device_unique_fits(const Format&, size_t /*n*/) const { return false; }
  // The index of the first record of a device buffer smaller than the one before it; n
  // when the records are sorted. Default: DeviceError.
  virtual size_t first_unsorted_device(const Format& f, const void* records, size_t n, uintptr_t stream);
  // The stable merge of sorted device buffers (ties keep the inputs' order) into `out`, of
  // room for all their records and apart from them, when device_merge_fits(f, their
  // total). Default: DeviceError.
  virtual void merge_device_records(const Format& f, const std::vector<DeviceSlice>& inputs, void* out,
                                    uintptr_t stream);
  virtual bool device_merge_fits(const Format&, size_t /*total*/) const { return false; }
  virtual void copy_from_device(void* host, const void* device, size_t bytes, uintptr_t stream);
  virtual void copy_to_device(void* device, const void* host, size_t bytes, uintptr_t stream);
  virtual void copy_on_device(void* to, const void* from, size_t bytes, uintptr_t stream);
  // Gives the device's arena back (reserved again at its next use), while nothing holds it.
  virtual void release_device_memory() {}

  // A device-resident sort of n records of format f, or null when this backend (or this
  // format) has none; the caller then uses sort_chunk on a host buffer.
  virtual std::unique_ptr<DeviceResidentSort> begin_resident_sort(const Format&, size_t) { return nullptr; }

  // The most records one sort_chunk call may take (a device's memory budget); 0: no limit.
  virtual size_t max_chunk_records(const Format&) const { return 0; }

  // The reduction partial of n records (host memory from allocate_host) whose first
  // record is number first_index of the file. algo: the CUDA kernels (the CPU has one
  // algorithm). Identical results on every backend.
  // The out-of-core merge pass on a device: the most records one output window may
  // hold (0: this backend has no device merge; the CPU loser tree merges instead).
  virtual size_t max_window_records(const Format&) const { return 0; }
  // Stable merge, in place, of the sorted slices lying back to back in `records`
  // (slices[i] records each, slice i from an earlier run than slice i+1).
  virtual void merge_window(const Format&, unsigned char* /*records*/, const std::vector<uint64_t>& /*slices*/,
                            MergeKernel /*kernel*/) {}

  // Dedupe of flat 4-byte keys by a bitmap of all 2^32 keys (sort/bitmap_dedupe.hpp), fed
  // chunks of at most chunk_records keys. Null when it does not fit: the device budget on
  // a GPU, host_budget bytes on the CPU. The default is the host bitmap (all cores).
  virtual std::unique_ptr<KeyBitmap> make_key_bitmap(const Format& f, size_t chunk_records, uint64_t host_budget);

  // `gxsort check` of one chunk (host memory from allocate_host) whose first record is
  // number first_index of the file: comparisons inside the chunk and the checksum.
  virtual CheckPartial check_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index) {
    return check_chunk_cpu(f, records, n, first_index);
  }

  virtual ReducePartial reduce_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index,
                                     ReduceAlgo algo) = 0;

  // `gxsort bfs`: one breadth-first search of g per source (each < g.n), all on one load
  // of the graph. A single source's run keeps its levels and parents; several keep only
  // their summaries (n-sized arrays per source would not fit). Levels equal on every
  // backend; parents may differ but form a valid BFS tree. A graph of more than
  // max_bfs_vertices() vertices is refused (Error(usage)).
  // On a device, the search lays out its memory as `plan` says (make_plan of bfs:
  // graph::plan_bfs_device of device_budget()); the CPU needs none.
  virtual uint64_t max_bfs_vertices() const { return UINT64_MAX; }
  virtual std::vector<graph::BfsRun> bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources,
                                         const graph::BfsDevicePlan& plan) = 0;
  // The same, planned for this backend's budget (tests).
  std::vector<graph::BfsRun> bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources);

  // Bytes of the device's memory budget (its arena); 0: no device. The planner sizes the
  // device's work from it.
  virtual uint64_t device_budget() const { return 0; }
  // Device bytes a sort of n records of f needs (its working set); 0 on the CPU.
  virtual size_t sort_device_bytes(const Format&, size_t /*n*/) const { return 0; }
  // Cuts the device's arena down to `bytes` while nothing is allocated from it, for a job
  // that knows its need: the distributed device exchange, whose peers map the arena
  // whole. False where it kept the arena (no device, allocations live, or `bytes` is
  // not less than the budget).
  virtual bool fit_device_budget(uint64_t /*bytes*/) { return false; }

 private:
  unsigned host_threads_ = 1;
  Context context_;
};

// Fits the device's arena (Backend::fit_device_budget) to resident sorts of `n` and of
// `beside` records at once, 16 MiB to spare, when the device can hold a sort of n records
// (the chunk limit); false where it kept the arena.
bool fit_device_to_sorts(Backend& b, const Format& f, uint64_t n, uint64_t beside = 0);

// The largest n such that n records plus their sort scratch fit in `bytes`.
size_t records_that_fit(const Backend& b, const Format& f, size_t bytes);

// Host bytes to sort one record on `b`: the record and its share of the sort's scratch
// (linear in n on every backend). cpu_sort_bytes_per_record: the CPU backend's, none made.
size_t sort_bytes_per_record(const Backend& b, const Format& f);
size_t cpu_sort_bytes_per_record(const Format& f);

std::unique_ptr<Backend> make_cpu_backend(unsigned threads);

}  // namespace gxsort
