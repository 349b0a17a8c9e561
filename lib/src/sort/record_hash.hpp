// A 64-bit hash of one record's bytes. `check` adds these up (mod 2^64), so the
// checksum does not depend on record order: a sort must keep it unchanged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gxsort {

inline uint64_t mix64(uint64_t x) {  // the splitmix64 finalizer
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t record_hash(const unsigned char* p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) { uint64_t w; std::memcpy(&w, p + i, 8); h = mix64(h ^ w); }
  if (i < n) { uint64_t w = 0; std::memcpy(&w, p + i, n - i); h = mix64(h ^ w ^ (uint64_t(n - i) << 56)); }
  return mix64(h);
}

}  // namespace gxsort
