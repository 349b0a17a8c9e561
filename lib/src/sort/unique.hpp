// Adjacent unique of sorted records: keeps the first record of each group of equal
// keys (equal totalOrder bits: -0.0 and +0.0 differ, NaNs with the same bits are equal).
#pragma once
#include <cstddef>
#include <cstring>
#include <vector>

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

// The same for one piece of a longer sorted stream: the first record is also compared
// with `last`, the last record kept before this piece (when have_last). Updates both.
inline size_t unique_carry(const Format& f, unsigned char* records, size_t n, std::vector<unsigned char>& last,
                           bool& have_last) {
  const size_t rs = f.record_size;
  size_t skip = 0;
  if (have_last) while (skip < n && compare_keys(f, last.data(), records + skip * rs) == 0) ++skip;
  if (skip) std::memmove(records, records + skip * rs, (n - skip) * rs);
  const size_t kept = unique_in_place(f, records, n - skip);
  if (kept) {
    last.assign(records + (kept - 1) * rs, records + kept * rs);
    have_last = true;
  }
  return kept;
}

}  // namespace gxsort
