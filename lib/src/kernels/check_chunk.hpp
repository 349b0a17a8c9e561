// The per-chunk part of `gxsort check`: order violations and duplicate keys between
// neighbours inside the chunk, and the order-independent checksum. The caller compares
// the records that meet at chunk boundaries. CPU and GPU give identical results.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gxsort/format.hpp"
#include "kernels/record_hash.hpp"

namespace gxsort {

struct CheckPartial {
  uint64_t first_violation = UINT64_MAX;  // file index of the first record smaller than its predecessor
  uint64_t duplicates = 0;                // records whose key equals the previous record's
  uint64_t checksum = 0;                  // sum of record_hash over the chunk
};

inline CheckPartial check_chunk_cpu(const Format& f, const unsigned char* recs, size_t n, uint64_t first_index) {
  CheckPartial p;
  const size_t rs = f.record_size;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* rec = recs + i * rs;
    p.checksum += record_hash(rec, rs);
    if (i == 0) continue;
    int c = compare_keys(f, rec - rs, rec);
    if (c > 0 && p.first_violation == UINT64_MAX) p.first_violation = first_index + i;
    if (c == 0) ++p.duplicates;
  }
  return p;
}

}  // namespace gxsort
