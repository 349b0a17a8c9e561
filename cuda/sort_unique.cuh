// Sort + unique of device-resident 32-bit order words (unsigned order = sort order), with
// a radix sort of only the bits the keys use and the lowest bits left to the unique:
//   1. the largest key (a max reduce) gives the bit width B of the keys;
//   2. the radix sort (CUB onesweep, 8-bit digits) sorts bits [L, B) only, where L = B mod 8
//      when that is at most 4: one digit pass fewer than sorting [0, B) (27 bits: 3 passes,
//      not 4). The keys come out ordered by k >> L; inside a group of equal k >> L the
//      low L bits are unordered;
//   3. per group, 1 << (k & (2^L - 1)) is ORed into one mask (at most 16 bits), the
//      group's set of distinct keys, in order, and each group writes its keys at the
//      number of distinct keys before it: one pass over tiles of the keys, a scan with
//      CUB's decoupled look-back carrying the prefix from tile to tile (sort_unique.cu
//      says how). One read of the keys, one write of the output.
// L stops at 4 so that the scan's state (a distinct-key count and two masks) fits the
// 64-bit word CUB's look-back reads in one load. With L = 0 (B a multiple of 8, or
// B mod 8 > 4) step 3 is a plain adjacent unique
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

// Step 3 alone: the sorted distinct words of d_sorted[0, n), whose words are ordered by
// k >> low (the low `low` bits in any order; low <= kMaxLowBits), into d_out. work: as above.
// Returns the number of distinct keys (waits for the stream).
size_t low_bit_unique_u32(const uint32_t* d_sorted, size_t n, int low, uint32_t* d_out, void* work, cudaStream_t s);

constexpr int kMaxLowBits = 4;

// The low bits L left to the unique for keys of bit width `bits` (see above).
inline int sort_unique_low_bits(int bits) { return bits % 8 <= kMaxLowBits ? bits % 8 : 0; }

}  // namespace gxsort::cuda
