// unique and merge of a caller's device buffers (gxsort/memory.hpp) on their GPU, with no
// host round trip:
//   unique: the record sort's stable permutation and its records gathered in sorted order
//     (as argsort), a flag where a record's key differs from the one before it, the flagged
//     positions selected (cub::DeviceSelect::Flagged): group g starts at heads[g], so its
//     first record, its size (heads[g + 1] - heads[g]) and its first input index (the
//     permutation there: the stable sort keeps the earliest first) are written by one kernel.
//   merge: each input's order checked on the device (check_chunk_gpu), the inputs copied back
//     to back and merged by the out-of-core merge's tree of stable 2-way merges
//     (merge_slices_on_device) into the caller's output; keys past the 8-byte prefix by a
//     stable sort of the copies (equal to the stable merge of inputs in order).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <numeric>

#include "check_kernels.cuh"
#include "cuda_backend.cuh"
#include "device_keys.cuh"
#include "sort/caller_buffers.cuh"
#include "sort/sort_dispatch.cuh"
#include "window_merge.cuh"

namespace gxsort::cuda {
namespace {

constexpr unsigned kThreads = 256;

// head[i]: record i of the sorted records starts a group (its key is not the previous one's).
__global__ void head_flags_kernel(const unsigned char* sorted, size_t n, KeySpec s, uint8_t* head) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned char* rec = sorted + i * s.record_size;
    head[i] = i == 0 || device_compare_keys(rec - s.record_size, rec, s) != 0;
  }
}

// Group g's first record, its size and its first record's input index (perm null: the
// identity permutation, nothing moved).
__global__ void write_groups_kernel(const unsigned char* sorted, const uint32_t* perm, const uint32_t* heads,
                                    size_t groups, size_t n, uint32_t record_size, unsigned char* out,
                                    uint64_t* counts, uint64_t* first_index) {
  for (size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x; g < groups; g += size_t(gridDim.x) * blockDim.x) {
    const size_t at = heads[g];
    const unsigned char* rec = sorted + at * record_size;
    for (uint32_t b = 0; b < record_size; ++b) out[g * record_size + b] = rec[b];
    if (counts) counts[g] = (g + 1 < groups ? heads[g + 1] : n) - at;
    if (first_index) first_index[g] = perm ? perm[at] : at;
  }
}

size_t select_temp_bytes(size_t n) {
  size_t bytes = 0;
  GXSORT_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, thrust::counting_iterator<uint32_t>(0),
                                               static_cast<const uint8_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                               static_cast<uint32_t*>(nullptr), int64_t(n)));
  return bytes;
}

// Device bytes unique takes beside its argsort's: the group start flags and positions,
// the count, the select's temp storage.
uint64_t unique_extra_bytes(size_t n) {
  auto r = DeviceMemory::round_up;
  return r(n) + r(4 * n) + r(select_temp_bytes(n)) + 2 * DeviceMemory::kAlignment;
}

// The group starts of n sorted records into `heads`; returns how many (waits for the stream).
size_t find_heads(DeviceMemory& mem, const Format& f, const unsigned char* sorted, size_t n, uint32_t* heads,
                  unsigned grid_cap, cudaStream_t s) {
  device_buffer<uint8_t> flags(mem, n, "unique: group starts");
  device_buffer<uint32_t> found(mem, 1, "unique: group count");
  const size_t temp_bytes = select_temp_bytes(n);
  DeviceAllocation temp = mem.allocate(std::max<size_t>(temp_bytes, 1), "unique: select temp storage");
  head_flags_kernel<<<grid_blocks(n, kThreads, grid_cap), kThreads, 0, s>>>(sorted, n, KeySpec::of(f), flags.data());
  GXSORT_CUDA_CHECK_LAUNCH("head_flags_kernel");
  size_t tb = temp_bytes;
  GXSORT_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.get(), tb, thrust::counting_iterator<uint32_t>(0), flags.data(),
                                               heads, found.data(), int64_t(n), s));
  uint32_t groups = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&groups, found.data(), sizeof groups, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return groups;
}

}  // namespace

bool CudaBackend::device_unique_fits(const Format& f, size_t n) const {
  if (n > SortPolicy::kMaxRecords) return false;
  set_device();  // CUB's size query (unique_extra_bytes) asks the current device
  return device_need_fits(device_records_need(f, n, true) + unique_extra_bytes(n));
}

size_t CudaBackend::unique_device_records(const Format& f, const void* records, size_t n, void* out, uint64_t* counts,
                                          uint64_t* first_index, uintptr_t stream) {
  if (n == 0) return 0;
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  check_device_pointer(out, device_, "output");
  if (counts) check_device_pointer(counts, device_, "counts");
  if (first_index) check_device_pointer(first_index, device_, "first index");
  fit_arena_to(device_records_need(f, n, true) + unique_extra_bytes(n));
  SortBuffers w;
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    allocate_record_sort(c, f, n, w);
    const uint32_t* perm = sort_record_passes(c, f, static_cast<const unsigned char*>(records), n, w);
    const unsigned char* sorted =
        perm ? gather_sorted_records(c, f, n, perm, w) : static_cast<const unsigned char*>(w.records_in.get());
    device_buffer<uint32_t> heads(*mem_, n, "unique: group start positions");
    const size_t groups = find_heads(*mem_, f, sorted, n, heads.data(), c.grid_cap, c.s[0]);
    write_groups_kernel<<<grid_blocks(groups, kThreads, c.grid_cap), kThreads, 0, c.s[0]>>>(
        sorted, perm, heads.data(), groups, n, uint32_t(f.record_size), static_cast<unsigned char*>(out), counts,
        first_index);
    GXSORT_CUDA_CHECK_LAUNCH("write_groups_kernel");
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
    return groups;
  } catch (...) {
    drain();
    throw;
  }
}

size_t CudaBackend::first_unsorted_device(const Format& f, const void* records, size_t n, uintptr_t stream) {
  if (n < 2) return n;
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(records, device_, "records");
  // The check's counters: in the arena a workspace keeps, else in one of 1 MiB (a fresh
  // backend's arena, not yet reserved, would reserve its whole budget).
  if (!mem_->base()) fit_arena_to(uint64_t(1) << 20);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  const CheckPartial p = check_chunk_gpu(*mem_, f, static_cast<const unsigned char*>(records), n, 0, s);
  return p.first_violation == UINT64_MAX ? n : size_t(p.first_violation);
}

// The copies of the inputs, back to back (the caller's output, or the merge's own buffer).
// Records with keys wider than the prefix are merged by a stable sort of the copies.
bool CudaBackend::device_merge_fits(const Format& f, size_t total) const {
  if (total > SortPolicy::kMaxRecords) return false;
  if (!f.key_fits_prefix()) return device_records_fit(f, total, false);
  return device_need_fits(window_merge_device_bytes(f, total, MergeKernel::circular) + (uint64_t(16) << 20));
}

void CudaBackend::merge_device_records(const Format& f, const std::vector<DeviceSlice>& inputs, void* out,
                                       uintptr_t stream) {
  std::vector<uint64_t> slices;
  for (const DeviceSlice& in : inputs) slices.push_back(in.count);
  const uint64_t total = std::accumulate(slices.begin(), slices.end(), uint64_t(0));
  if (total == 0) return;
  set_device();
  check_device_pointer(out, device_, "output");
  auto copy_inputs = [&](unsigned char* to, cudaStream_t s) {
    for (const DeviceSlice& in : inputs) {
      if (!in.count) continue;
      check_device_pointer(in.data, device_, "input");
      GXSORT_CUDA_CHECK(cudaMemcpyAsync(to, in.data, in.count * f.record_size, cudaMemcpyDeviceToDevice, s));
      to += in.count * f.record_size;
    }
  };
  if (!f.key_fits_prefix()) {
    copy_inputs(static_cast<unsigned char*>(out), reinterpret_cast<cudaStream_t>(stream));
    if (total >= 2) return sort_device_records(f, out, out, total, stream);
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)));  // the copy, done on return
    return;
  }
  std::lock_guard<std::mutex> lk(sort_mu_);
  fit_arena_to(window_merge_device_bytes(f, total, MergeKernel::circular) + (uint64_t(16) << 20));
  DeviceAllocation copies, aligned_out;  // released after the streams drained
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    copies = mem_->allocate(total * f.record_size, "merge: the inputs");
    auto* d_rec = static_cast<unsigned char*>(copies.get());
    copy_inputs(d_rec, c.s[0]);
    // The kernels store whole words of a record (the widest unit, up to 16 bytes, that
    // divides it): an output not aligned so gets the result copied from the arena (the
    // need counted room for it: window_merge_device_bytes).
    auto* dst = static_cast<unsigned char*>(out);
    const size_t unit = std::min<size_t>(f.record_size & (~f.record_size + 1), 16);
    if (reinterpret_cast<uintptr_t>(out) % unit != 0) {
      aligned_out = mem_->allocate(total * f.record_size, "merge: an aligned output");
      dst = static_cast<unsigned char*>(aligned_out.get());
    }
    const unsigned char* merged = merge_slices_on_device(*mem_, f, d_rec, dst, slices, MergeKernel::circular, c.s[0]);
    if (merged != out)
      GXSORT_CUDA_CHECK(cudaMemcpyAsync(out, merged, total * f.record_size, cudaMemcpyDeviceToDevice, c.s[0]));
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  } catch (...) {
    drain();
    throw;
  }
}

}  // namespace gxsort::cuda
