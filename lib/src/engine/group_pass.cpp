// The streamed group pass (engine/group_pass.hpp).
#include "engine/group_pass.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/backend.hpp"
#include "engine/engine.hpp"
#include "gxsort/error.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"

namespace gxsort {
namespace {

struct GroupState {
  const Format* f;
  bool count, keep_last;
  std::vector<unsigned char> pending;  // a record of the open group (its last with keep_last)
  uint64_t size = 0;                   // records in the open group; 0: none open
  size_t out_size() const { return f->record_size + (count ? 8 : 0); }

  // Writes the open group to o; returns the bytes written.
  size_t emit(unsigned char* o) const {
    std::memcpy(o, pending.data(), f->record_size);
    if (count)
      for (int b = 0; b < 8; ++b) o[f->record_size + size_t(b)] = uint8_t(size >> (8 * b));
    return out_size();
  }

  // Feeds n records (the first is record `first` of the stream); completed groups go to
  // o. Returns the bytes written. With verify, throws at the first unsorted record.
  size_t feed(const unsigned char* recs, size_t n, uint64_t first, unsigned char* o, bool verify,
              const std::string& name) {
    const size_t rs = f->record_size;
    size_t w = 0;
    for (size_t i = 0; i < n; ++i) {
      const unsigned char* rec = recs + i * rs;
      if (size) {
        const int c = compare_keys(*f, pending.data(), rec);
        if (c == 0) {
          ++size;
          if (keep_last) std::memcpy(pending.data(), rec, rs);
          continue;
        }
        if (c > 0 && verify)
          throw Error(ExitCode::check_failed, name + ": input is not sorted: record " + std::to_string(first + i) +
                                                  " is smaller than the one before it");
        w += emit(o + w);
      }
      std::memcpy(pending.data(), rec, rs);
      size = 1;
    }
    return w;
  }
};

}  // namespace

std::string group_records(const Format& f, const unsigned char* records, size_t n, bool count, bool keep_last) {
  GroupState g{&f, count, keep_last, std::vector<unsigned char>(f.record_size), 0};
  std::string out((n + 1) * g.out_size(), '\0');
  auto* o = reinterpret_cast<unsigned char*>(&out[0]);
  size_t w = g.feed(records, n, 0, o, false, "");
  if (g.size) w += g.emit(o + w);
  out.resize(w);
  return out;
}

uint64_t group_pass(const GroupPass& gp, Backend& backend, const io::File& in, uint64_t records, const io::File& out) {
  const Format& f = *gp.format;
  const size_t rs = f.record_size;
  GroupState g{&f, gp.count, gp.keep_last, std::vector<unsigned char>(rs), 0};
  const size_t ors = g.out_size();
  const bool stream = in.is_stream();  // `records` is unknown: read to its end
  const size_t chunk_records =
      size_t(std::max<uint64_t>(1, std::min<uint64_t>(stream ? UINT64_MAX : std::max<uint64_t>(records, 1), gp.chunk_bytes / rs)));
  constexpr size_t kSlots = 3;
  std::vector<HostBuffer> in_bufs, out_bufs;
  std::vector<unsigned char*> slots;
  std::vector<size_t> out_bytes(kSlots, 0);
  for (size_t s = 0; s < kSlots; ++s) {
    in_bufs.push_back(backend.allocate_host(chunk_records * rs));
    out_bufs.push_back(backend.allocate_host(chunk_records * ors));
    slots.push_back(in_bufs.back().data());
  }
  uint64_t out_offset = 0, groups = 0;
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) {
    c.bytes = in.read_chunk(c.data, c.bytes, c.offset, gp.threads);
    if (c.bytes % rs) checked_record_count(in.path(), c.offset + c.bytes, f);  // a stream's partial record
  };
  // Groups still open at the end of a chunk stay in `g` and close in a later chunk: the
  // compute stage runs the chunks in order on one thread.
  st.compute = [&](pipeline::Chunk& c) {
    out_bytes[c.slot] = g.feed(c.data, c.bytes / rs, c.offset / rs, out_bufs[c.slot].data(), gp.verify, gp.name);
  };
  st.write = [&](pipeline::Chunk& c) {
    const size_t b = out_bytes[c.slot];
    if (b) out.write_at(out_bufs[c.slot].data(), b, out_offset);
    out_offset += b;
    groups += b / ors;
  };
  pipeline::Config cfg;
  cfg.total_bytes = stream ? pipeline::kUntilEnd : records * rs;
  cfg.chunk_bytes = chunk_records * rs;
  cfg.phase = "dedupe";
  if (records || stream) pipeline::run_chunks(cfg, slots, st, gp.progress);
  if (g.size) {
    std::vector<unsigned char> last(ors);
    g.emit(last.data());
    out.write_at(last.data(), ors, out_offset);
    ++groups;
  }
  return groups;
}

}  // namespace gxsort
