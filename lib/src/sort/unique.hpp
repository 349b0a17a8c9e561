// Adjacent unique of sorted records: keeps the first record of each group of equal
// keys (equal totalOrder bits: -0.0 and +0.0 differ, NaNs with the same bits are equal).
#pragma once
#include <cstddef>
#include <cstring>

#include "gxsort/format.hpp"

namespace gxsort {

// Compacts records[0..n) in place; returns the records kept.
inline size_t unique_in_place(const Format& f, unsigned char* records, size_t n) {
  const size_t rs = f.record_size;
  size_t kept = n ? 1 : 0;
  for (size_t i = 1; i < n; ++i) {
    const unsigned char* rec = records + i * rs;
    if (compare_keys(f, records + (kept - 1) * rs, rec) == 0) continue;
    if (kept != i) std::memmove(records + kept * rs, rec, rs);
    ++kept;
  }
  return kept;
}

}  // namespace gxsort
