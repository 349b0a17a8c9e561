// A 64-bit hash of one record's bytes. `check` adds these up (mod 2^64), so the
// checksum does not depend on record order: a sort must keep it unchanged. Host and
// device compute the same value.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gxsort/format.hpp"

namespace gxsort {

GXSORT_HD uint64_t mix64(uint64_t x) {  // the splitmix64 finalizer
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Little-endian load of n <= 8 bytes (compilers turn the full-width case into one load).
GXSORT_HD uint64_t load_le(const unsigned char* p, size_t n) {
  uint64_t w = 0;
  for (size_t b = 0; b < n; ++b) w |= uint64_t(p[b]) << (8 * b);
  return w;
}

GXSORT_HD uint64_t record_hash(const unsigned char* p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = mix64(h ^ load_le(p + i, 8));
  if (i < n) h = mix64(h ^ load_le(p + i, n - i) ^ (uint64_t(n - i) << 56));
  return mix64(h);
}

}  // namespace gxsort
