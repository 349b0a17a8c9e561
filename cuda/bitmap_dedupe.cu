// Bitmap dedupe kernels (see bitmap_dedupe.cuh).
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "bitmap_dedupe.cuh"
#include "cuda_check.cuh"

namespace gxsort::cuda {
namespace {

using P = BitmapPolicy;

size_t scan_temp_bytes() {
  size_t t = 0;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, t, static_cast<const uint64_t*>(nullptr),
                                                  static_cast<uint64_t*>(nullptr), P::kTiles + 1));
  return t;
}

// Work area layout: counts[kTiles + 1], offsets[kTiles + 1], CUB temp.
constexpr size_t kCountsBytes = (P::kTiles + 1) * sizeof(uint64_t);
constexpr size_t kArrayBytes = (kCountsBytes + 255) / 256 * 256;

__global__ void set_kernel(uint32_t* __restrict__ bits, const uint32_t* __restrict__ keys, size_t n, KeyType t,
                           bool reverse) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t k = order32(t, keys[i], reverse);
    atomicOr(bits + (k >> 5), 1u << (k & 31));  // return value unused: a fire-and-forget reduction
  }
}

// One warp per tile of 32 words: the tile's popcount.
__global__ void tile_count_kernel(const uint32_t* __restrict__ bits, uint64_t* __restrict__ counts) {
  const size_t word = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned c = __reduce_add_sync(0xffffffffu, unsigned(__popc(bits[word])));
  if ((threadIdx.x & 31) == 0) counts[word / P::kTileWords] = c;
  if (word == 0) counts[P::kTiles] = 0;
}

// One warp per tile: each lane's word, its rank among the tile's set bits by a warp
// scan, and its keys written in order.
__global__ void write_kernel(const uint32_t* __restrict__ bits, const uint64_t* __restrict__ offsets,
                             size_t tile_begin, size_t tile_end, uint64_t base, uint32_t* __restrict__ out, KeyType t,
                             bool reverse) {
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t tile = tile_begin + g / 32;
  if (tile >= tile_end) return;  // whole warps leave together
  const uint64_t first = offsets[tile];
  if (offsets[tile + 1] == first) return;  // an empty tile
  const unsigned lane = threadIdx.x & 31;
  const size_t word = tile * P::kTileWords + lane;
  uint32_t w = bits[word];
  const unsigned c = unsigned(__popc(w));
  unsigned x = c;
#pragma unroll
  for (unsigned o = 1; o < 32; o <<= 1) {
    const unsigned y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  uint32_t* o = out + (first - base + (x - c));
  const uint32_t key_base = uint32_t(word << 5);
  while (w) {
    const int b = __ffs(int(w)) - 1;
    *o++ = unorder32(t, key_base + uint32_t(b), reverse);
    w &= w - 1;
  }
}

}  // namespace

size_t bitmap_scan_bytes() { return 2 * kArrayBytes + scan_temp_bytes() + 256; }

uint64_t* bitmap_offsets(void* work) {
  return reinterpret_cast<uint64_t*>(static_cast<unsigned char*>(work) + kArrayBytes);
}

void bitmap_clear(uint32_t* d_bits, cudaStream_t s) {
  GXSORT_CUDA_CHECK(cudaMemsetAsync(d_bits, 0, P::kWords * sizeof(uint32_t), s));
}

void bitmap_set(uint32_t* d_bits, const uint32_t* d_keys, size_t n, KeyType t, bool reverse, cudaStream_t s) {
  if (n == 0) return;
  const size_t per_block = size_t(P::kThreads) * P::kSetItems;
  const unsigned blocks = unsigned(std::min<size_t>((n + per_block - 1) / per_block, size_t(1) << 20));
  set_kernel<<<blocks, P::kThreads, 0, s>>>(d_bits, d_keys, n, t, reverse);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap set");
}

void bitmap_scan(const uint32_t* d_bits, void* work, cudaStream_t s) {
  auto* counts = static_cast<uint64_t*>(work);
  uint64_t* offsets = bitmap_offsets(work);
  tile_count_kernel<<<unsigned(P::kWords / P::kThreads), P::kThreads, 0, s>>>(d_bits, counts);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap tile count");
  size_t temp = scan_temp_bytes();
  void* d_temp = static_cast<unsigned char*>(work) + 2 * kArrayBytes;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp, counts, offsets, P::kTiles + 1, s));
}

void bitmap_write_keys(const uint32_t* d_bits, const uint64_t* d_offsets, size_t tile_begin, size_t tile_end,
                       uint64_t host_base, uint32_t* d_out, KeyType t, bool reverse, cudaStream_t s) {
  if (tile_end <= tile_begin) return;
  const size_t threads = (tile_end - tile_begin) * 32;
  const unsigned blocks = unsigned((threads + P::kThreads - 1) / P::kThreads);
  write_kernel<<<blocks, P::kThreads, 0, s>>>(d_bits, d_offsets, tile_begin, tile_end, host_base, d_out, t, reverse);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap write keys");
}

size_t bitmap_unique_device(const uint32_t* d_keys, size_t n, uint32_t* d_bits, void* work, uint32_t* d_out,
                            KeyType t, bool reverse, cudaStream_t s) {
  bitmap_clear(d_bits, s);
  bitmap_set(d_bits, d_keys, n, t, reverse, s);
  bitmap_scan(d_bits, work, s);
  bitmap_write_keys(d_bits, bitmap_offsets(work), 0, P::kTiles, 0, d_out, t, reverse, s);
  uint64_t total = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&total, bitmap_offsets(work) + P::kTiles, sizeof total, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return size_t(total);
}

}  // namespace gxsort::cuda
