// Bitmap dedupe of 32-bit keys on the GPU (docs/dedupe.md): one bit per possible key
// (2^32 bits = 512 MiB of device memory from the DeviceMemory manager), set with
// atomicOr (no locks), then compacted in key order: a popcount per tile of 32 words, an
// exclusive scan of the tile counts (CUB), and a kernel in which each warp writes the
// keys of its tile's set bits at the tile's offset, un-transformed back to the key type.
// The result is the sorted distinct keys: no sort, and the input may be any size.
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
  static constexpr size_t kTiles = kWords / kTileWords;  // 2^22
  static constexpr int kSetItems = 4;                // keys per thread in the set kernel
};

// Device bytes of the compaction's work area: tile offsets (kTiles + 1 u64) and the CUB
// scan temp storage.
size_t bitmap_scan_bytes();

// Zeroes the bitmap (kWords u32).
void bitmap_clear(uint32_t* d_bits, cudaStream_t s);

// Sets the bit of order32(t, key, reverse) for each of n raw keys.
void bitmap_set(uint32_t* d_bits, const uint32_t* d_keys, size_t n, KeyType t, bool reverse, cudaStream_t s);

// Counts the set bits per tile and scans them: d_offsets[i] (i in [0, kTiles]) is the
// number of set bits before tile i; d_offsets[kTiles] the total. `work` is the area of
// bitmap_scan_bytes() bytes; d_offsets points into it (bitmap_offsets(work)).
uint64_t* bitmap_offsets(void* work);
void bitmap_scan(const uint32_t* d_bits, void* work, cudaStream_t s);

// Writes the keys of the set bits of tiles [tile_begin, tile_end) to d_out, the key of
// global rank r at d_out[r - d_offsets[tile_begin]] (host_base: that offset, read back).
void bitmap_write_keys(const uint32_t* d_bits, const uint64_t* d_offsets, size_t tile_begin, size_t tile_end,
                       uint64_t host_base, uint32_t* d_out, KeyType t, bool reverse, cudaStream_t s);

// Whole dedupe of n device-resident keys into d_out (room for n keys): clear, set, scan,
// write. Returns the number of distinct keys. `work`: bitmap_scan_bytes() bytes.
size_t bitmap_unique_device(const uint32_t* d_keys, size_t n, uint32_t* d_bits, void* work, uint32_t* d_out,
                            KeyType t, bool reverse, cudaStream_t s);

}  // namespace gxsort::cuda
