#include "window_merge.cuh"

#include <algorithm>

#include "cuda_check.cuh"
#include "device_keys.cuh"
#include "gather.cuh"
#include "grid.cuh"

namespace gxsort::cuda {
namespace {

constexpr int kThreads = 256;
constexpr size_t kMaxBlocks = 65535 * 8;

unsigned grid_for(size_t n) { return grid_blocks(n, kThreads, kMaxBlocks); }

template <class K>
__global__ void order_kernel(K* keys, size_t n, KeyType t, bool reverse, bool forward) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(K) == 4) keys[i] = forward ? order32(t, keys[i], reverse) : unorder32(t, keys[i], reverse);
    else keys[i] = forward ? order64(t, keys[i], reverse) : unorder64(t, keys[i], reverse);
  }
}

__global__ void key_index_kernel(const unsigned char* records, size_t n, KeySpec s, KeyIndex* out) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = KeyIndex{device_key_prefix(records + i * s.record_size, s), i};
}

// Merges the slices of `a` (element counts in `sizes`) pairwise, level by level,
// ping-ponging between a and b; returns the buffer holding the result.
template <class T>
T* merge_tree(DeviceMemory& mem, T* a, T* b, std::vector<uint64_t> sizes, MergeKernel k, cudaStream_t s) {
  while (sizes.size() > 1) {
    std::vector<uint64_t> next;
    uint64_t off = 0;
    for (size_t i = 0; i < sizes.size(); i += 2) {
      if (i + 1 == sizes.size()) {  // odd one out: copied to the same place
        if (sizes[i]) GXSORT_CUDA_CHECK(cudaMemcpyAsync(b + off, a + off, sizes[i] * sizeof(T), cudaMemcpyDeviceToDevice, s));
        next.push_back(sizes[i]);
        off += sizes[i];
        continue;
      }
      const uint64_t na = sizes[i], nb = sizes[i + 1];
      size_t tb = merge_temp_bytes<T>(k, na, nb);
      DeviceAllocation temp = mem.allocate(std::max<size_t>(tb, 1), "merge temp storage");
      merge<T>(k, a + off, na, a + off + na, nb, b + off, temp.get(), tb, s);
      // The temp block is released only after the merge ran: the stream orders reuse.
      GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
      next.push_back(na + nb);
      off += na + nb;
    }
    sizes.swap(next);
    std::swap(a, b);
  }
  return a;
}

}  // namespace

size_t window_merge_device_bytes(const Format& f, size_t m, MergeKernel k) {
  // The merges' temp storage (whichever element type the format merges as) and alignment.
  const size_t slack = std::max({merge_temp_bytes<uint32_t>(k, m, 0), merge_temp_bytes<uint64_t>(k, m, 0),
                                 merge_temp_bytes<KeyIndex>(k, m, 0)}) +
                       (1 << 20);
  if (f.flat()) return 2 * m * f.record_size + slack;
  return 2 * m * f.record_size + 2 * m * sizeof(KeyIndex) + slack;
}

unsigned char* merge_slices_on_device(DeviceMemory& mem, const Format& f, unsigned char* d_rec, unsigned char* d_out,
                                      const std::vector<uint64_t>& slices, MergeKernel k, cudaStream_t s) {
  uint64_t m = 0;
  std::vector<uint64_t> sizes;
  for (uint64_t c : slices) {
    m += c;
    if (c) sizes.push_back(c);
  }
  if (m == 0) return d_rec;
  if (f.flat()) {
    // Flat keys: transform to order words, merge them, transform back.
    auto run = [&](auto* keys, auto* other) {
      using K = std::remove_pointer_t<decltype(keys)>;
      order_kernel<K><<<grid_for(m), kThreads, 0, s>>>(keys, m, f.key_type, f.reverse, true);
      GXSORT_CUDA_CHECK_LAUNCH("order_kernel");
      K* res = sizes.size() > 1 ? merge_tree<K>(mem, keys, other, sizes, k, s) : keys;
      order_kernel<K><<<grid_for(m), kThreads, 0, s>>>(res, m, f.key_type, f.reverse, false);
      GXSORT_CUDA_CHECK_LAUNCH("unorder_kernel");
      return reinterpret_cast<unsigned char*>(res);
    };
    if (f.record_size == 4) return run(reinterpret_cast<uint32_t*>(d_rec), reinterpret_cast<uint32_t*>(d_out));
    return run(reinterpret_cast<uint64_t*>(d_rec), reinterpret_cast<uint64_t*>(d_out));
  }
  // Records: merge (key prefix, position) pairs, then gather the records by position.
  DeviceAllocation d_ki = mem.allocate(m * sizeof(KeyIndex), "merge keys");
  DeviceAllocation d_ki2 = mem.allocate(m * sizeof(KeyIndex), "merge keys (second buffer)");
  auto* ki = static_cast<KeyIndex*>(d_ki.get());
  key_index_kernel<<<grid_for(m), kThreads, 0, s>>>(d_rec, m, KeySpec::of(f), ki);
  GXSORT_CUDA_CHECK_LAUNCH("key_index_kernel");
  KeyIndex* order = sizes.size() > 1 ? merge_tree<KeyIndex>(mem, ki, static_cast<KeyIndex*>(d_ki2.get()), sizes, k, s) : ki;
  gather_records<size_t>(d_rec, d_out, order, 0, m, f.record_size, kMaxBlocks, s);
  // The key buffers go back only after the gather read them: the stream orders reuse.
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return d_out;
}

void merge_window(DeviceMemory& mem, const Format& f, unsigned char* records, const std::vector<uint64_t>& slices,
                  MergeKernel k, cudaStream_t s) {
  uint64_t m = 0;
  for (uint64_t c : slices) m += c;
  if (m == 0) return;
  const size_t bytes = m * f.record_size;
  DeviceAllocation d_rec = mem.allocate(bytes, "merge window");
  DeviceAllocation d_out = mem.allocate(bytes, "merge window output");
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(d_rec.get(), records, bytes, cudaMemcpyHostToDevice, s));
  const unsigned char* merged = merge_slices_on_device(mem, f, static_cast<unsigned char*>(d_rec.get()),
                                                       static_cast<unsigned char*>(d_out.get()), slices, k, s);
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(records, merged, bytes, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace gxsort::cuda
