// graph build --renumber: vertex ids compacted to 0..n-1, in the order each id is first
// seen in the input or in the order of the ids. The distinct ids come from the sort
// engine (commands/graph_renumber.cpp); what is done with them in memory is here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gxsort/gxsort.hpp"

namespace gxsort::graph {

struct Renumbering {
  std::vector<uint64_t> ids;     // the distinct original ids, ascending
  std::vector<uint64_t> new_id;  // first-seen: new_id[i] is the new id of ids[i]; sorted: empty (i)
  // The new id of `original`, one of `ids`.
  uint64_t of(uint64_t original) const;
};

// Numbers `r.ids` by `first_pos` (each id's first position in the input, distinct; taken):
// fills r.new_id and returns the map, new id -> original id.
std::vector<uint64_t> number_first_seen(Renumbering& r, std::vector<uint64_t> first_pos);

// Relabels `count` 16-byte edge records (big-endian src, dst) in place.
void relabel_edges(unsigned char* records, size_t count, const Renumbering& r);

}  // namespace gxsort::graph
