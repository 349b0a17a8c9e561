// Bitmap dedupe of 32-bit keys on the GPU (docs/dedupe.md): one bit per possible key
// (2^32 bits = 512 MiB of device memory from the DeviceMemory manager), set with
// atomicOr (no locks), then compacted in key order: a popcount per tile of 32 words, an
// exclusive scan of the tile counts (CUB), and a kernel in which each warp writes the
// keys of its tile's set bits at the tile's offset, un-transformed back to the key type.
// The result is the sorted distinct keys: no sort, and the input may be any size.
//
// Only the tiles between the smallest and the largest key set are scanned and written:
// the set kernel keeps that range (one atomicMin/atomicMax per block), so a narrow key
// range (the PBBS case: 10^8 keys below 10^8, 12.5 MB of bits) costs its own size, not
// the 512 MiB of the whole bitmap.
//
// Bit index = order32(type, key, reverse): i32 (sign flip), f32 (totalOrder) and
// --reverse come out in the file's sort order.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gxsort/format.hpp"

namespace gxsort::cuda {

struct BitmapPolicy {
  static constexpr int kThreads = 256;               // threads per block (8 warps)
  static constexpr size_t kWords = size_t(1) << 27;  // 32-bit words of the bitmap
  static constexpr size_t kTileWords = 32;           // words per tile (one warp)
  static constexpr size_t kTileBits = kTileWords * 32;
  static constexpr size_t kTiles = kWords / kTileWords;  // 2^22
  static constexpr unsigned kSetBlocks = 4096;       // set kernel grid cap (grid-stride; few range atomics)
};

// Tiles [lo, hi) hold every set bit (lo == hi: none).
struct BitmapTiles {
  size_t lo = 0, hi = 0;
  size_t size() const { return hi - lo; }
};

// Device bytes of the work area: tile counts and offsets (kTiles + 1 u64 each), the key
// range seen by bitmap_set, and the CUB scan temp storage.
size_t bitmap_scan_bytes();

// Zeroes the whole bitmap (kWords u32).
void bitmap_clear(uint32_t* d_bits, cudaStream_t s);

// Empties the key range kept in `work` (before the first bitmap_set of a dedupe).
void bitmap_range_reset(void* work, cudaStream_t s);

// Sets the bit of order32(t, key, reverse) for each of n raw keys and widens the range.
void bitmap_set(uint32_t* d_bits, const uint32_t* d_keys, size_t n, KeyType t, bool reverse, void* work,
                cudaStream_t s);

// The tiles holding the range set so far (waits for the stream).
BitmapTiles bitmap_tiles(void* work, cudaStream_t s);

// Counts the set bits of tiles `tl` and scans them: d_offsets[i] (i in [0, tl.size()]) is
// the number of set bits in tiles [tl.lo, tl.lo + i); d_offsets[tl.size()] the total.
uint64_t* bitmap_offsets(void* work);
void bitmap_scan(const uint32_t* d_bits, void* work, BitmapTiles tl, cudaStream_t s);

// Writes the keys of the set bits of tiles [tile_begin, tile_end) (inside tl) to d_out,
// the key of rank r (counted from tl.lo) at d_out[r - host_base]. With `clear` the words
// read are zeroed, leaving the bitmap clean for the next dedupe.
void bitmap_write_keys(uint32_t* d_bits, const uint64_t* d_offsets, BitmapTiles tl, size_t tile_begin,
                       size_t tile_end, uint64_t host_base, uint32_t* d_out, KeyType t, bool reverse, bool clear,
                       cudaStream_t s);

// Whole dedupe of n device-resident keys into d_out (room for n keys): set, scan, write.
// Returns the number of distinct keys. `work`: bitmap_scan_bytes() bytes. d_bits must be
// all zero on entry (bitmap_clear once after allocating it) and is all zero again on
// return: only the words in the keys' range are touched, so there is no pass over the
// keys to find the range first and no clear of the whole 512 MiB.
size_t bitmap_unique_device(const uint32_t* d_keys, size_t n, uint32_t* d_bits, void* work, uint32_t* d_out,
                            KeyType t, bool reverse, cudaStream_t s);

}  // namespace gxsort::cuda
