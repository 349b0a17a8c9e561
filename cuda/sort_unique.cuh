// Sort + unique of device-resident 32-bit order words (unsigned order = sort order), with
// a radix sort of only the bits the keys use and the lowest bits left to the unique:
//   1. the largest key (a max reduce) gives the bit width B of the keys;
//   2. the radix sort (CUB onesweep, 8-bit digits) sorts bits [L, B) only, where L = B mod 8
//      when that is at most 5: one digit pass fewer than sorting [0, B) (27 bits: 3 passes,
//      not 4). The keys come out ordered by k >> L; inside a group of equal k >> L the
//      low L bits are unordered;
//   3. per group, 1 << (k & (2^L - 1)) is ORed into one mask (at most 32 bits), the
//      group's set of distinct keys, in order: a segmented OR scan inside tiles of 4096
//      keys, groups that cross a tile edge finished by atomics on their head tile;
//   4. a scan of the tiles' popcounts gives each tile's output offset, and each group
//      writes its keys there (sort_unique.cu says how).
// With L = 0 (B a multiple of 8, or B mod 8 > 5) steps 3-4 are a plain adjacent unique
// (cub::DeviceSelect::Unique).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gxsort::cuda {

// Device bytes of the work area for n keys.
size_t sort_unique_work_bytes(size_t n);

// The sorted distinct words of d_keys[0, n) into d_out (room for n). d_sorted: n words of
// scratch (the sorted keys). n < 2^31. Returns the number of distinct keys (waits for the
// stream).
size_t sort_unique_u32(const uint32_t* d_keys, size_t n, uint32_t* d_sorted, uint32_t* d_out, void* work,
                       cudaStream_t s);

// The low bits L left to the unique for keys of bit width `bits` (see above).
inline int sort_unique_low_bits(int bits) { return bits % 8 <= 5 ? bits % 8 : 0; }

}  // namespace gxsort::cuda
