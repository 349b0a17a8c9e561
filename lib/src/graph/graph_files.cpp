#include "graph/graph_files.hpp"

#include "format/npy.hpp"
#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/file.hpp"

namespace gxsort::graph {

io::OutputHeader npy_array_header(const std::string& path, uint32_t width) {
  if (!npy::has_npy_name(path)) return {};
  const std::string descr = width == 4 ? "'<u4'" : "'<u8'";
  const uint64_t bytes = npy::header_bytes(descr);
  return {bytes, [descr, bytes, width](uint64_t data) { return npy::header(descr, data / width, bytes); }};
}

std::string default_ids_path(const std::string& graph) { return graph + ".ids"; }

uint64_t id_map_hash(const std::vector<uint64_t>& ids) { return io::xxh3_64(ids.data(), 8 * ids.size()); }

namespace {

// The bytes before the values: a .npy map's header (checked: '<u8', 1-D, n values).
uint64_t npy_map_offset(const io::File& f, const std::string& path, uint64_t n) {
  std::string bytes;
  uint64_t need = 64;
  npy::Header h;
  for (;;) {
    const uint64_t have = bytes.size(), size = f.raw_size();
    if (need > size) fail_usage(path + ": not a .npy id map (the file ends inside its header)");
    bytes.resize(size_t(need));
    f.read_at(&bytes[have], size_t(need - have), have);
    if (npy::parse_header(path, bytes, h, &need)) break;
  }
  if (h.structured || h.columns || h.descr != "'<u8'" || h.count != n)
    fail_usage(path + ": not the id map of a graph of " + std::to_string(n) + " vertices (a 1-D .npy of '<u8' expected; its dtype is " +
               h.descr + ", " + std::to_string(h.count) + " values)");
  return h.data_offset;
}

}  // namespace

std::vector<uint64_t> read_id_map(const std::string& path, const std::string& graph, uint64_t n, uint64_t hash) {
  io::File f = io::File::open_read(path);
  const uint64_t start = npy::has_npy_name(path) ? npy_map_offset(f, path, n) : 0;
  if (f.raw_size() != start + 8 * n)
    fail_usage(path + ": " + std::to_string(f.raw_size() - start) + " bytes of ids, not the " + std::to_string(8 * n) +
               " of " + graph + "'s " + std::to_string(n) + " vertices: not its id map");
  std::vector<uint64_t> ids(n);
  if (n) f.read_at(ids.data(), size_t(8 * n), start);
  f.check_unchanged();
  if (id_map_hash(ids) != hash)
    fail_usage(path + ": not the id map of " + graph + " (its checksum differs from the one the graph's header holds)");
  return ids;
}

}  // namespace gxsort::graph
