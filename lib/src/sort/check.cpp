// gxsort check: order violations, duplicate keys and an order-independent checksum,
// streamed through the chunk scheduler.
#include <algorithm>
#include <cstring>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "sort/engine.hpp"
#include "backend/backend.hpp"
#include "plan/sizes.hpp"
#include "sort/check_chunk.hpp"

namespace gxsort {

CheckResult check_file(const std::string& path, const EngineOptions& opt) {
  const Format& f = opt.format;
  f.validate();
  io::File in = io::File::open_read(path);
  const uint64_t bytes = in.size();
  checked_record_count(path, bytes, f);
  const size_t rs = f.record_size;
  auto backend = make_backend(opt.device, opt.threads, opt.device_memory);
  size_t chunk_records = size_t(std::max<uint64_t>(1, std::min<uint64_t>((size_t(64) << 20) / rs, bytes / rs)));
  // A device checks a chunk in its memory: keep chunks within its budget.
  if (size_t cap = backend->max_chunk_records(f)) chunk_records = std::max<size_t>(1, std::min(chunk_records, cap));
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (int s = 0; s < 3; ++s) {
    buffers.push_back(backend->allocate_host(chunk_records * rs));
    slots.push_back(buffers.back().data());
  }
  const unsigned threads = opt.threads ? opt.threads : hardware_threads();

  CheckResult r;
  std::vector<unsigned char> prev(rs);
  bool have_prev = false;
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) { in.read_at_parallel(c.data, c.bytes, c.offset, threads); };
  // Chunks reach compute in order: the backend checks inside the chunk, and here the
  // last record of one chunk meets the first of the next.
  st.compute = [&](pipeline::Chunk& c) {
    const size_t n = c.bytes / rs;
    const uint64_t first = c.offset / rs;
    CheckPartial part = backend->check_chunk(f, c.data, n, first);
    if (n && have_prev) {
      int cmp = compare_keys(f, prev.data(), c.data);
      if (cmp > 0 && r.sorted) { r.sorted = false; r.first_violation = first; }
      if (cmp == 0) ++r.duplicates;
    }
    if (part.first_violation != UINT64_MAX && r.sorted) { r.sorted = false; r.first_violation = part.first_violation; }
    r.duplicates += part.duplicates;
    r.checksum += part.checksum;
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
