// A caller's device buffer too large for one device sort (gxsort/memory.hpp), sorted where
// it lies: chunks that one sort takes are sorted in place, then merged there, each into
// the run before it. A merge of the run R = records[0, r) with the next chunk C copies C
// to an arena buffer and fills records[0, r + |C|) from the back, one window of the output
// at a time: the window's parts of R and of the copy are merged into scratch (stable, ties
// to R) and copied into place. A window [p0, p1) takes R's records from i0 = co-rank(p0) on,
// and p0 >= i0: it overwrites only records of R it has merged, never one a window still to
// come reads. No host round trip; device memory: a chunk's sort, or the copy of a chunk and
// two windows.
#include <algorithm>

#include "cuda_backend.cuh"
#include "device_keys.cuh"
#include "merge/corank.cuh"
#include "sort/caller_buffers.cuh"
#include "sort/sort_dispatch.cuh"
#include "window_merge.cuh"

namespace gxsort::cuda {
namespace {

// At most this many chunks: each merge rewrites the run so far.
constexpr size_t kMaxChunks = 16;

// The records' keys as the co-rank reads them: the 64-bit prefix, the whole key of a
// format whose key fits it.
struct PrefixKeys {
  const unsigned char* records;
  KeySpec spec;
  __device__ uint64_t operator[](uint64_t i) const { return device_key_prefix(records + i * spec.record_size, spec); }
};

__global__ void co_rank_kernel(PrefixKeys a, uint64_t m, PrefixKeys b, uint64_t n, uint64_t k, uint64_t* out) {
  *out = co_rank_generic<uint64_t>(k, a, m, b, n);
}

// The records of R among the first k outputs of the stable merge of R (m records) and C (n).
uint64_t co_rank_on_device(const Format& f, const unsigned char* r, uint64_t m, const unsigned char* c, uint64_t n,
                           uint64_t k, uint64_t* d_out, cudaStream_t s) {
  const KeySpec spec = KeySpec::of(f);
  co_rank_kernel<<<1, 1, 0, s>>>(PrefixKeys{r, spec}, m, PrefixKeys{c, spec}, n, k, d_out);
  GXSORT_CUDA_CHECK_LAUNCH("co_rank_kernel");
  uint64_t i = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&i, d_out, sizeof i, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return i;
}

uint64_t window_of(uint64_t chunk) { return std::max<uint64_t>(chunk / 2, 1); }

}  // namespace

uint64_t CudaBackend::chunked_sort_need(const Format& f, size_t chunk) const {
  const uint64_t merge = chunk * f.record_size + window_merge_device_bytes(f, window_of(chunk), MergeKernel::circular) +
                         (uint64_t(16) << 20);
  return std::max<uint64_t>(device_records_need(f, chunk, false), merge);
}

// Records R = records[0, r) and the chunk that follows them, its copy in `copy` (n
// records), merged into records[0, r + n), windows from the back.
void CudaBackend::merge_chunk_into_run(const Format& f, unsigned char* records, uint64_t r, const unsigned char* copy,
                                       uint64_t n, uint64_t window, cudaStream_t s) {
  const size_t rs = f.record_size;
  DeviceAllocation scratch = mem_->allocate(window * rs, "chunked sort: a window's parts");
  DeviceAllocation merged_room = mem_->allocate(window * rs, "chunked sort: a merged window");
  DeviceAllocation rank = mem_->allocate(sizeof(uint64_t), "chunked sort: a co-rank");
  auto* parts = static_cast<unsigned char*>(scratch.get());
  uint64_t p1 = r + n, i1 = r, j1 = n;
  while (p1 > 0) {
    const uint64_t p0 = p1 > window ? p1 - window : 0;
    const uint64_t i0 = co_rank_on_device(f, records, r, copy, n, p0, static_cast<uint64_t*>(rank.get()), s);
    const uint64_t j0 = p0 - i0;
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(parts, records + i0 * rs, (i1 - i0) * rs, cudaMemcpyDeviceToDevice, s));
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(parts + (i1 - i0) * rs, copy + j0 * rs, (j1 - j0) * rs, cudaMemcpyDeviceToDevice, s));
    const unsigned char* merged = merge_slices_on_device(*mem_, f, parts, static_cast<unsigned char*>(merged_room.get()),
                                                         {i1 - i0, j1 - j0}, MergeKernel::circular, s);
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(records + p0 * rs, merged, (p1 - p0) * rs, cudaMemcpyDeviceToDevice, s));
    p1 = p0;
    i1 = i0;
    j1 = j0;
  }
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
}

bool CudaBackend::sort_device_records_in_chunks(const Format& f, void* data, size_t n, uintptr_t stream) {
  if (!f.key_fits_prefix() || n < 2) return false;
  std::lock_guard<std::mutex> lk(sort_mu_);
  set_device();
  check_device_pointer(data, device_, "records");
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const uint64_t avail = std::min<uint64_t>(limit_, free_b + (mem_->base() ? mem_->budget() : 0));
  size_t chunk = std::min<size_t>(n, SortPolicy::kMaxRecords);
  while (chunk > 1 && chunked_sort_need(f, chunk) > avail) chunk = chunk / 4 * 3;
  if (chunk < 2 || (n + chunk - 1) / chunk > kMaxChunks || chunked_sort_need(f, chunk) > avail) return false;
  fit_arena_to(chunked_sort_need(f, chunk));
  auto* records = static_cast<unsigned char*>(data);
  const size_t rs = f.record_size;
  DeviceAllocation copy;  // released after the streams drained
  try {
    SortContext c = sort_context();
    wait_for_caller(c, stream);
    for (size_t first = 0; first < n; first += chunk) {
      SortBuffers w;
      const size_t count = std::min(chunk, n - first);
      if (count < 2) continue;  // one record: sorted
      if (f.flat()) sort_flat_in_place_on_device(c, f, records + first * rs, records + first * rs, count, w);
      else sort_records_on_device(c, f, records + first * rs, records + first * rs, count, w);
      GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
      GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[1]));
    }
    copy = mem_->allocate(chunk * rs, "chunked sort: a chunk's copy");
    auto* copied = static_cast<unsigned char*>(copy.get());
    for (size_t r = chunk; r < n; r += chunk) {
      const size_t count = std::min(chunk, n - r);
      GXSORT_CUDA_CHECK(cudaMemcpyAsync(copied, records + r * rs, count * rs, cudaMemcpyDeviceToDevice, c.s[0]));
      merge_chunk_into_run(f, records, r, copied, count, window_of(chunk), c.s[0]);
    }
  } catch (...) {
    drain();
    throw;
  }
  return true;
}

}  // namespace gxsort::cuda
