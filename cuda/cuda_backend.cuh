// The CUDA backend: every device use of gxsort on one GPU, in one DeviceMemory arena,
// with byte-identical results to the CPU backend. The host library reaches it only
// through the Backend interface and backend/device_entry.hpp (cuda/backend_factory.cu).
//
// Plain C++ header (no CUDA types).
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "device_memory.cuh"

struct CUstream_st;  // cudaStream_t without <cuda_runtime.h>
struct CUevent_st;   // cudaEvent_t

namespace gxsort {
namespace cuda {

struct SortContext;  // sort/sort_context.cuh

class CudaBackend final : public Backend {
 public:
  CudaBackend(unsigned device, const SizeOption& device_memory);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  // "cuda:0 (NVIDIA H200)"
  std::string name() const override;

  // Pinned host memory (allocate_pinned): copies from it run at full PCIe speed.
  HostBuffer allocate_host(size_t bytes) override;

  // 0: the GPU sorts in its own device memory and needs no host scratch. Device memory
  // is bounded instead by max_chunk_records().
  size_t sort_scratch_bytes(const Format& f, size_t n) const override;

  // Stable sort of n records in host memory (pinned, or pageable through pinned staging:
  // host_staging.cuh), in place, byte-identical to std::stable_sort by compare_keys.
  // `scratch` is unused. Throws Error(io) when n exceeds max_chunk_records(f) for the
  // memory free now.
  void sort_chunk(const Format& f, unsigned char* records, size_t n, unsigned char* scratch) override;
  // The same sort from src into dst: copied in from one and out to the other, so no host
  // buffer of the records' size is made (the default's pinned one costs more than the sort).
  void sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                 const SortedRecords& sorted) override;

  // The caller's device buffers (gxsort/memory.hpp), sorted where they lie by the same
  // device sort as sort_chunk, its copies device to device (sort/device_buffers.cu).
  void sort_device_records(const Format& f, const void* from, void* records, size_t n, uintptr_t stream) override;
  void argsort_device_records(const Format& f, const void* records, size_t n, uint64_t* perm,
                              uintptr_t stream) override;
  bool device_records_fit(const Format& f, size_t n, bool argsort) const override;
  bool sort_device_records_in_chunks(const Format& f, void* records, size_t n, uintptr_t stream) override;
  // unique and merge of device buffers on the device (device_unique_merge.cu).
  size_t unique_device_records(const Format& f, const void* records, size_t n, void* out, uint64_t* counts,
                               uint64_t* first_index, uintptr_t stream) override;
  bool device_unique_fits(const Format& f, size_t n) const override;
  size_t first_unsorted_device(const Format& f, const void* records, size_t n, uintptr_t stream) override;
  void merge_device_records(const Format& f, const std::vector<DeviceSlice>& inputs, void* out,
                            uintptr_t stream) override;
  bool device_merge_fits(const Format& f, size_t total) const override;
  void copy_from_device(void* host, const void* device, size_t bytes, uintptr_t stream) override;
  void copy_to_device(void* device, const void* host, size_t bytes, uintptr_t stream) override;
  void copy_on_device(void* to, const void* from, size_t bytes, uintptr_t stream) override;
  void release_device_memory() override;

  // The most records of format f that one sort_chunk can take with the device memory
  // free now (the whole budget when nothing else holds any). The planner sizes chunks by it.
  size_t max_chunk_records(const Format& f) const override;

  // Flat keys that fit the device: slices in, one device sort, slices out.
  std::unique_ptr<DeviceResidentSort> begin_resident_sort(const Format& f, size_t n) override;

  // The out-of-core merge pass (cuda/window_merge.cu); keys wider than 8 bytes are
  // merged by a stable sort of the window (equal to the stable merge of its slices).
  size_t max_window_records(const Format& f) const override;
  void merge_window(const Format& f, unsigned char* records, const std::vector<uint64_t>& slices,
                    MergeKernel kernel) override;

  // Dedupe of flat 4-byte keys by a 2^32-bit bitmap in device memory
  // (cuda_backend_dedupe.cu, cuda/bitmap_dedupe.cuh); null when the budget cannot hold it.
  std::unique_ptr<KeyBitmap> make_key_bitmap(const Format& f, size_t chunk_records, uint64_t host_budget) override;

  // `gxsort check` of a chunk on the device (cuda/check_kernels.cu).
  CheckPartial check_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index) override;

  // Reductions (cuda/reduce/): copy in, reduce with the chosen kernel.
  ReducePartial reduce_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index,
                             ReduceAlgo algo) override;

  // `gxsort bfs` in the arena (cuda_backend_bfs.cu, cuda/graph/bfs_cuda.cu): vertex ids
  // are 32-bit on the device, so graphs of 2^32 or more vertices are refused.
  uint64_t max_bfs_vertices() const override;
  using Backend::bfs;
  std::vector<graph::BfsRun> bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources,
                                 const graph::BfsDevicePlan& plan) override;
  uint64_t device_budget() const override;
  bool fit_device_budget(uint64_t bytes) override;

  // Device bytes sort_chunk needs for n records of format f.
  size_t sort_device_bytes(const Format& f, size_t n) const override;

  DeviceMemory& memory() { return *mem_; }
  unsigned device() const { return device_; }
  DeviceInfo info() const;

 private:
  friend class ResidentSort;  // sort/resident_sort.cu
  SortContext sort_context() const;  // the streams, the arena and the grid cap of one sort
  // sort_chunk (in == out) and sort_into: the sort of host records from in into out.
  void sort_between(const Format& f, const unsigned char* in, unsigned char* out, size_t n);
  void set_device() const;
  void drain() noexcept;
  // Error(io) when a sort of n records of f does not fit the device's memory free now.
  void require_sort_fits(const Format& f, size_t n) const;
  // Device bytes one call on a caller's buffer takes from the arena, 16 MiB to spare.
  uint64_t device_records_need(const Format& f, size_t n, bool argsort) const;
  // The chunked sort of a device buffer (sort/device_chunks.cu): its device bytes for
  // chunks of `chunk` records, and one merge of a chunk's copy into the run before it.
  uint64_t chunked_sort_need(const Format& f, size_t chunk) const;
  void merge_chunk_into_run(const Format& f, unsigned char* records, uint64_t r, const unsigned char* copy, uint64_t n,
                            uint64_t window, CUstream_st* s);
  // Whether a call needing `need` device bytes fits the budget and the memory free now.
  bool device_need_fits(uint64_t need) const;
  // The arena made `bytes` anew when this call needs more than it holds or it holds far
  // more (sort_mu_ held).
  void fit_arena_to(uint64_t bytes);

  unsigned device_;
  int multiprocessors_ = 0;
  std::unique_ptr<DeviceMemory> mem_;
  uint64_t limit_ = 0;  // the budget it was made with (--device-memory): no arena grows past it
  CUstream_st* streams_[2] = {nullptr, nullptr};  // two streams: slice i+1 copies while slice i computes
  CUevent_st* joined_ = nullptr;                  // joins the second stream into the first
  // Where the key bit range lands: 16 bytes read once a sort, after a sync, so ordinary
  // memory (a pinned allocation would cost each in-memory call's backend more than it saves).
  mutable uint64_t bits_host_[2] = {0, 0};
  std::mutex sort_mu_;                            // one sort_chunk at a time: each may use the whole budget
};

}  // namespace cuda
}  // namespace gxsort
