// Adjacent unique of sorted records: keeps the first record of each group of equal
// keys (equal totalOrder bits: -0.0 and +0.0 differ, NaNs with the same bits are equal).
//
// Equal keys are equal key bytes (same_key, format.hpp): the order transform (sign
// flip, totalOrder, complement for --reverse) is a bijection, so the raw bytes are
// compared, field by field for a composite key, never the transformed words. Flat 4- and 8-byte keys take a branch-free typed loop: this runs
// over every record of `sort -u` on the host (one thread, in the output's write stage),
// so it must cost far less than writing the record.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gxsort/format.hpp"

namespace gxsort {

namespace detail {
// Flat keys of type K (any alignment), from record `begin` on, compacted to the front:
// each key is stored at the kept position, which advances only past a key unlike the
// previous one.
template <class K>
size_t unique_flat(unsigned char* p, size_t begin, size_t n) {
  if (begin >= n) return 0;
  K prev;
  std::memcpy(&prev, p + begin * sizeof(K), sizeof(K));
  std::memcpy(p, &prev, sizeof(K));
  size_t kept = 1;
  for (size_t i = begin + 1; i < n; ++i) {
    K x;
    std::memcpy(&x, p + i * sizeof(K), sizeof(K));
    std::memcpy(p + kept * sizeof(K), &x, sizeof(K));  // kept <= i: never ahead of the reads
    kept += x != prev ? 1 : 0;
    prev = x;
  }
  return kept;
}
}  // namespace detail

// Unique of records [begin, n), compacted to the front of `records`; returns the records kept.
inline size_t unique_from(const Format& f, unsigned char* records, size_t begin, size_t n) {
  if (f.flat() && f.key_bytes == 8) return detail::unique_flat<uint64_t>(records, begin, n);
  if (f.flat() && f.key_bytes == 4) return detail::unique_flat<uint32_t>(records, begin, n);
  if (begin >= n) return 0;
  const size_t rs = f.record_size;
  if (begin) std::memcpy(records, records + begin * rs, rs);
  size_t kept = 1;
  for (size_t i = begin + 1; i < n; ++i) {
    const unsigned char* rec = records + i * rs;
    if (same_key(f, records + (kept - 1) * rs, rec)) continue;
    if (kept != i) std::memcpy(records + kept * rs, rec, rs);  // kept < i: the records do not overlap
    ++kept;
  }
  return kept;
}

// Compacts records[0..n) in place; returns the records kept.
inline size_t unique_in_place(const Format& f, unsigned char* records, size_t n) {
  return unique_from(f, records, 0, n);
}

// The same for one piece of a longer sorted stream: the first record is also compared
// with `last`, the last record kept before this piece (when have_last). Updates both.
inline size_t unique_carry(const Format& f, unsigned char* records, size_t n, std::vector<unsigned char>& last,
                           bool& have_last) {
  const size_t rs = f.record_size;
  size_t skip = 0;
  if (have_last) while (skip < n && same_key(f, last.data(), records + skip * rs)) ++skip;
  const size_t kept = unique_from(f, records, skip, n);  // no move of the whole piece past a skipped group
  if (kept) {
    last.assign(records + (kept - 1) * rs, records + kept * rs);
    have_last = true;
  }
  return kept;
}

}  // namespace gxsort
