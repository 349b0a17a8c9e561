#include "commands/graph_renumber.hpp"

#include <algorithm>

#include "graph/graph_files.hpp"
#include "graph/renumber.hpp"
#include "io/file.hpp"
#include "io/space.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"

namespace gxsort {
namespace {

// (id, position) records by id, the first position of each id kept: the sort is
// stable and `unique` keeps the first record of equal keys.
EngineOptions id_sort_options(const EngineOptions& opt, const std::vector<std::string>& tmp_dirs) {
  EngineOptions so = opt;
  so.format = Format();
  so.format.record_size = 16;
  so.format.key_type = KeyType::bytes;
  so.format.key_bytes = 8;
  so.unique = true;
  so.fsync = false;
  so.before_commit = nullptr;  // the sort of a temp file: its stats are not the command's
  so.tmp_dirs = tmp_dirs;
  return so;
}

// The sorted, distinct ids and their first positions, in memory.
void load_ids(const std::string& path, uint64_t n, graph::Renumbering& r, std::vector<uint64_t>& first_pos,
              bool want_positions, const Plan& plan) {
  const io::File f = io::File::open_read(path);
  r.ids.resize(n);
  if (want_positions) first_pos.resize(n);
  const uint64_t block = plan.graph.csr_block_bytes / 16;  // records
  std::vector<uint64_t> buf(size_t(2 * std::min(block, n)));
  for (uint64_t at = 0; at < n; at += block) {
    const uint64_t k = std::min(block, n - at);
    f.read_at_parallel(buf.data(), size_t(16 * k), 16 * at, plan.threads);
    for (uint64_t i = 0; i < k; ++i) {
      r.ids[at + i] = __builtin_bswap64(buf[2 * i]);
      if (want_positions) first_pos[at + i] = __builtin_bswap64(buf[2 * i + 1]);
    }
  }
}

void relabel_file(const std::string& path, uint64_t records, const graph::Renumbering& r, const Plan& plan) {
  const io::File f = io::File::open_rw(path);
  const uint64_t block = plan.graph.csr_block_bytes / 16;
  std::vector<unsigned char> buf(size_t(16 * std::min(block, records)));
  for (uint64_t at = 0; at < records; at += block) {
    const uint64_t k = std::min(block, records - at);
    f.read_at_parallel(buf.data(), size_t(16 * k), 16 * at, plan.threads);
    parallel::parallel_for_ranges(size_t(k), plan.threads, [&](size_t lo, size_t hi, unsigned) {
      graph::relabel_edges(buf.data() + 16 * lo, hi - lo, r);
    });
    f.write_at_parallel(buf.data(), size_t(16 * k), 16 * at, plan.threads);
  }
}

}  // namespace

RenumberStage renumber_edges(const std::string& ids, uint64_t id_records, const std::string& edges, uint64_t edge_records,
                             Renumber mode, io::Output& map_out, const Plan& plan, const EngineOptions& opt,
                             const std::vector<std::string>& tmp_dirs) {
  if (id_records > 1) sort_file(ids, ids, id_sort_options(opt, tmp_dirs));
  const uint64_t n = id_records > 0 ? io::file_size(ids) / 16 : 0;
  // In memory: the ids (8 bytes a vertex); first-seen also their positions, reused as
  // the new ids, the order and the map (32 in all).
  const bool first_seen = mode == Renumber::first_seen;
  const uint64_t need = (first_seen ? 32 : 8) * n;
  if (need > plan.graph.offsets_budget)
    throw Error(ExitCode::io, map_out.label() + ": renumbering " + std::to_string(n) + " distinct ids needs " +
                                  format_bytes(need) + " of memory, more than the " + option_ref("memory") + " budget of " +
                                  format_bytes(plan.graph.offsets_budget) + " (raise " + option_ref("memory") + ")");
  graph::Renumbering r;
  std::vector<uint64_t> first_pos;
  load_ids(ids, n, r, first_pos, first_seen, plan);
  RenumberStage stage;
  stage.vertices = n;
  {
    const std::vector<uint64_t> map = first_seen ? graph::number_first_seen(r, std::move(first_pos)) : std::vector<uint64_t>();
    const std::vector<uint64_t>& written = first_seen ? map : r.ids;
    io::check_space(opt.context, {{map_out.space_dir(), 8 * n, "the id map"}});
    if (n) map_out.file().write_at(written.data(), size_t(8 * n), 0);
    stage.ids_hash = graph::id_map_hash(written);
  }
  relabel_file(edges, edge_records, r, plan);
  return stage;
}

}  // namespace gxsort
