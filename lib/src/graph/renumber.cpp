#include "graph/renumber.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace gxsort::graph {

uint64_t Renumbering::of(uint64_t original) const {
  const uint64_t rank = uint64_t(std::lower_bound(ids.begin(), ids.end(), original) - ids.begin());
  return new_id.empty() ? rank : new_id[rank];
}

std::vector<uint64_t> number_first_seen(Renumbering& r, std::vector<uint64_t> first_pos) {
  const uint64_t n = r.ids.size();
  std::vector<uint64_t> order(n);  // ranks by first position: order[k] is the rank of new id k
  std::iota(order.begin(), order.end(), uint64_t(0));
  std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return first_pos[a] < first_pos[b]; });
  r.new_id = std::move(first_pos);  // its room reused
  std::vector<uint64_t> map(n);
  for (uint64_t k = 0; k < n; ++k) {
    r.new_id[order[k]] = k;
    map[k] = r.ids[order[k]];
  }
  return map;
}

void relabel_edges(unsigned char* records, size_t count, const Renumbering& r) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t e[2];
    std::memcpy(e, records + 16 * i, 16);
    e[0] = __builtin_bswap64(r.of(__builtin_bswap64(e[0])));
    e[1] = __builtin_bswap64(r.of(__builtin_bswap64(e[1])));
    std::memcpy(records + 16 * i, e, 16);
  }
}

}  // namespace gxsort::graph
