// Parallel stable LSD radix sort of unsigned keys (8-bit digits), alone or with a
// 32-bit satellite index. Passes whose digit is equal for every key are skipped, so
// 32-bit keys held in 64-bit words cost four passes, not eight.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gxsort {

// Sorts keys[0..n) using tmp[0..n). Returns the buffer that holds the result
// (keys or tmp). `bits`: the number of low bits that can differ.
template <class K>
K* radix_sort_keys(K* keys, K* tmp, size_t n, unsigned bits, unsigned threads);

// Sorts (keys, idx) pairs by key, stably. Returns true when the result ended in
// (ktmp, itmp), false when in (keys, idx).
template <class K>
bool radix_sort_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned bits, unsigned threads);

}  // namespace gxsort
