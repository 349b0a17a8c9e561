// The u64 sorting networks in AVX-512 registers (sorting_network_avx512.cpp), for CPUs
// that have AVX-512F; the scalar networks of sorting_network.hpp elsewhere.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gxsort::network {

// Whether this CPU runs sort_u64_avx512 (checked once).
bool avx512_sort_available();

// Sorts the m <= 32 keys of src into dst[0, m) (dst may be src): only the m keys are
// read and written. Each key x is stored as x ^ (a ^ (b & s)), s all ones when x's top
// bit is set (an XorMap, xor_map.hpp; the defaults store the keys as they are).
void sort_u64_avx512(const uint64_t* src, uint64_t* dst, size_t m, uint64_t a = 0, uint64_t b = 0);

}  // namespace gxsort::network
