// gxsort check: order violations, duplicate keys and an order-independent checksum,
// streamed through the chunk scheduler.
#include <cstring>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "sort/engine.hpp"
#include "sort/record_hash.hpp"

namespace gxsort {

CheckResult check_file(const std::string& path, const EngineOptions& opt) {
  const Format& f = opt.format;
  f.validate();
  io::File in = io::File::open_read(path);
  const uint64_t bytes = in.size();
  checked_record_count(path, bytes, f);
  const size_t rs = f.record_size;
  const size_t chunk_records = size_t(std::max<uint64_t>(1, std::min<uint64_t>((size_t(16) << 20) / rs, bytes / rs)));
  std::vector<std::vector<unsigned char>> buffers(3, std::vector<unsigned char>(chunk_records * rs));
  std::vector<unsigned char*> slots;
  for (auto& b : buffers) slots.push_back(b.data());

  CheckResult r;
  std::vector<unsigned char> prev(rs);
  bool have_prev = false;
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) { in.read_at(c.data, c.bytes, c.offset); };
  // Chunks reach compute in order, so the last record of one chunk is compared with
  // the first of the next.
  st.compute = [&](pipeline::Chunk& c) {
    const size_t n = c.bytes / rs;
    const uint64_t first = c.offset / rs;
    for (size_t i = 0; i < n; ++i) {
      const unsigned char* rec = c.data + i * rs;
      r.checksum += record_hash(rec, rs);
      const unsigned char* before = i ? rec - rs : (have_prev ? prev.data() : nullptr);
      if (before) {
        int cmp = compare_keys(f, before, rec);
        if (cmp > 0 && r.sorted) { r.sorted = false; r.first_violation = first + i; }
        if (cmp == 0) ++r.duplicates;
      }
    }
    if (n) { std::memcpy(prev.data(), c.data + (n - 1) * rs, rs); have_prev = true; }
    r.records += n;
  };
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = chunk_records * rs;
  cfg.phase = "check";
  pipeline::run_chunks(cfg, slots, st, opt.progress);
  return r;
}

}  // namespace gxsort
