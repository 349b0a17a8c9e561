// Files that go with a CSR: the .npy header of bfs's level and parent arrays, and the
// id map of a graph built with --renumber (docs/graph.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/output.hpp"

namespace gxsort::graph {

// A 1-D .npy header for an output of little-endian unsigned values `width` bytes wide
// (4 or 8) when `path` ends in .npy; none (raw values) otherwise.
io::OutputHeader npy_array_header(const std::string& path, uint32_t width);

// The id map of a renumbered graph: entry k is vertex k's original id, u64
// little-endian, raw or (by its name) a 1-D .npy of '<u8'. Its XXH3-64 over the n values
// is in the CSR's header, which ties the two files together.
std::string default_ids_path(const std::string& graph);  // GRAPH.ids
uint64_t id_map_hash(const std::vector<uint64_t>& ids);
// The map at `path` for `graph` (its name in messages) of n vertices whose header gives
// `hash`; Error(usage) naming `path` when it is not that graph's map.
std::vector<uint64_t> read_id_map(const std::string& path, const std::string& graph, uint64_t n, uint64_t hash);

}  // namespace gxsort::graph
