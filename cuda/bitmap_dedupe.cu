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

// Work area layout: counts[kTiles + 1], offsets[kTiles + 1], range[2] (u32 min, max
// order word), CUB temp.
constexpr size_t kCountsBytes = (P::kTiles + 1) * sizeof(uint64_t);
constexpr size_t kArrayBytes = (kCountsBytes + 255) / 256 * 256;
constexpr size_t kRangeBytes = 256;

unsigned* range_of(void* work) {
  return reinterpret_cast<unsigned*>(static_cast<unsigned char*>(work) + 2 * kArrayBytes);
}

__global__ void set_kernel(uint32_t* __restrict__ bits, const uint32_t* __restrict__ keys, size_t n, KeyType t,
                           bool reverse, unsigned* __restrict__ range) {
  unsigned lo = 0xffffffffu, hi = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t k = order32(t, keys[i], reverse);
    atomicOr(bits + (k >> 5), 1u << (k & 31));  // return value unused: a fire-and-forget reduction
    lo = min(lo, k);
    hi = max(hi, k);
  }
  // The block's range, then one atomic pair per block (the grid is capped at kSetBlocks).
  __shared__ unsigned s_lo[P::kThreads / 32], s_hi[P::kThreads / 32];
  lo = __reduce_min_sync(0xffffffffu, lo);
  hi = __reduce_max_sync(0xffffffffu, hi);
  const unsigned warp = threadIdx.x / 32;
  if ((threadIdx.x & 31) == 0) { s_lo[warp] = lo; s_hi[warp] = hi; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w) { lo = min(lo, s_lo[w]); hi = max(hi, s_hi[w]); }
    if (lo <= hi) {
      atomicMin(range, lo);
      atomicMax(range + 1, hi);
    }
  }
}

// One warp per tile of 32 words: the tile's popcount. counts[i] for tile lo + i.
__global__ void tile_count_kernel(const uint32_t* __restrict__ bits, size_t lo, size_t tiles,
                                  uint64_t* __restrict__ counts) {
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= tiles * P::kTileWords) return;  // whole warps leave together
  const unsigned c = __reduce_add_sync(0xffffffffu, unsigned(__popc(bits[lo * P::kTileWords + g])));
  if ((threadIdx.x & 31) == 0) counts[g / P::kTileWords] = c;
  if (g == 0) counts[tiles] = 0;
}

// One warp per tile: each lane's word, its rank among the tile's set bits by a warp
// scan; the lanes expand their keys into the warp's shared staging area in order, then
// the warp copies the tile's keys out with coalesced stores.
__global__ void write_kernel(uint32_t* __restrict__ bits, const uint64_t* __restrict__ offsets, size_t tile_lo,
                             size_t tile_begin, size_t tile_end, uint64_t base, uint32_t* __restrict__ out, KeyType t,
                             bool reverse, bool clear) {
  __shared__ uint32_t stage[P::kThreads / 32][P::kTileBits];  // 32 KiB
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t tile = tile_begin + g / 32;
  if (tile >= tile_end) return;  // whole warps leave together
  const uint64_t first = offsets[tile - tile_lo];
  const unsigned count = unsigned(offsets[tile - tile_lo + 1] - first);
  if (count == 0) return;  // an empty tile
  const unsigned lane = threadIdx.x & 31;
  uint32_t* st = stage[threadIdx.x / 32];
  const size_t word = tile * P::kTileWords + lane;
  uint32_t w = bits[word];
  if (clear && w) bits[word] = 0;
  const unsigned c = unsigned(__popc(w));
  unsigned x = c;
#pragma unroll
  for (unsigned o = 1; o < 32; o <<= 1) {
    const unsigned y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  unsigned pos = x - c;
  const uint32_t key_base = uint32_t(word << 5);
  while (w) {
    const int b = __ffs(int(w)) - 1;
    st[pos++] = unorder32(t, key_base + uint32_t(b), reverse);
    w &= w - 1;
  }
  __syncwarp();
  uint32_t* o = out + (first - base);
  for (unsigned j = lane; j < count; j += 32) o[j] = st[j];
}

}  // namespace

size_t bitmap_scan_bytes() { return 2 * kArrayBytes + kRangeBytes + scan_temp_bytes() + 256; }

uint64_t* bitmap_offsets(void* work) {
  return reinterpret_cast<uint64_t*>(static_cast<unsigned char*>(work) + kArrayBytes);
}

void bitmap_clear(uint32_t* d_bits, cudaStream_t s) {
  GXSORT_CUDA_CHECK(cudaMemsetAsync(d_bits, 0, P::kWords * sizeof(uint32_t), s));
}

void bitmap_range_reset(void* work, cudaStream_t s) {
  unsigned* r = range_of(work);
  GXSORT_CUDA_CHECK(cudaMemsetAsync(r, 0xff, sizeof(unsigned), s));   // min: the largest word
  GXSORT_CUDA_CHECK(cudaMemsetAsync(r + 1, 0, sizeof(unsigned), s));  // max: the smallest
}

void bitmap_set(uint32_t* d_bits, const uint32_t* d_keys, size_t n, KeyType t, bool reverse, void* work,
                cudaStream_t s) {
  if (n == 0) return;
  const unsigned blocks = unsigned(std::min<size_t>((n + P::kThreads - 1) / P::kThreads, P::kSetBlocks));
  set_kernel<<<blocks, P::kThreads, 0, s>>>(d_bits, d_keys, n, t, reverse, range_of(work));
  GXSORT_CUDA_CHECK_LAUNCH("bitmap set");
}

BitmapTiles bitmap_tiles(void* work, cudaStream_t s) {
  unsigned r[2];
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(r, range_of(work), sizeof r, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  BitmapTiles tl;
  if (r[0] <= r[1]) {
    tl.lo = size_t(r[0]) / P::kTileBits;
    tl.hi = size_t(r[1]) / P::kTileBits + 1;
  }
  return tl;
}

void bitmap_scan(const uint32_t* d_bits, void* work, BitmapTiles tl, cudaStream_t s) {
  auto* counts = static_cast<uint64_t*>(work);
  uint64_t* offsets = bitmap_offsets(work);
  const size_t threads = std::max<size_t>(tl.size(), 1) * P::kTileWords;  // one block at least: counts[size] = 0
  tile_count_kernel<<<unsigned((threads + P::kThreads - 1) / P::kThreads), P::kThreads, 0, s>>>(d_bits, tl.lo,
                                                                                                 tl.size(), counts);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap tile count");
  if (tl.size() == 0) GXSORT_CUDA_CHECK(cudaMemsetAsync(counts, 0, sizeof(uint64_t), s));
  size_t temp = scan_temp_bytes();
  void* d_temp = static_cast<unsigned char*>(work) + 2 * kArrayBytes + kRangeBytes;
  GXSORT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp, counts, offsets, tl.size() + 1, s));
}

void bitmap_write_keys(uint32_t* d_bits, const uint64_t* d_offsets, BitmapTiles tl, size_t tile_begin,
                       size_t tile_end, uint64_t host_base, uint32_t* d_out, KeyType t, bool reverse, bool clear,
                       cudaStream_t s) {
  if (tile_end <= tile_begin) return;
  const size_t threads = (tile_end - tile_begin) * 32;
  const unsigned blocks = unsigned((threads + P::kThreads - 1) / P::kThreads);
  write_kernel<<<blocks, P::kThreads, 0, s>>>(d_bits, d_offsets, tl.lo, tile_begin, tile_end, host_base, d_out, t,
                                              reverse, clear);
  GXSORT_CUDA_CHECK_LAUNCH("bitmap write keys");
}

size_t bitmap_unique_device(const uint32_t* d_keys, size_t n, uint32_t* d_bits, void* work, uint32_t* d_out,
                            KeyType t, bool reverse, cudaStream_t s) {
  bitmap_range_reset(work, s);
  bitmap_set(d_bits, d_keys, n, t, reverse, work, s);
  const BitmapTiles tl = bitmap_tiles(work, s);
  if (tl.size() == 0) return 0;
  bitmap_scan(d_bits, work, tl, s);
  bitmap_write_keys(d_bits, bitmap_offsets(work), tl, tl.lo, tl.hi, 0, d_out, t, reverse, true, s);
  uint64_t total = 0;
  GXSORT_CUDA_CHECK(cudaMemcpyAsync(&total, bitmap_offsets(work) + tl.size(), sizeof total, cudaMemcpyDeviceToHost, s));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  return size_t(total);
}

}  // namespace gxsort::cuda
