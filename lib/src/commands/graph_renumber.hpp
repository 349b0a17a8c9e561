// graph build --renumber's stage between the parse and the edge sort (docs/graph.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "plan/plan.hpp"

namespace gxsort {

struct RenumberStage {
  uint64_t vertices = 0;  // the distinct ids
  uint64_t ids_hash = 0;  // the map's XXH3-64, for the CSR's header
};

// `ids` holds `id_records` 16-byte records (big-endian id, position), one for each end
// of every input edge in input order; `edges` the parsed edges (16-byte big-endian
// records). The ids are sorted by id, the first position of each kept (sort_file,
// stable and unique: the external engine, its temp files in `tmp_dirs`), then numbered
// in memory (first-seen or sorted order; over `memory`: Error(io)), the map (new id ->
// original id) written into `map_out`, and the edges relabelled in place.
RenumberStage renumber_edges(const std::string& ids, uint64_t id_records, const std::string& edges, uint64_t edge_records,
                             Renumber mode, io::Output& map_out, const Plan& plan, const EngineOptions& opt,
                             const std::vector<std::string>& tmp_dirs);

}  // namespace gxsort
