#include "distributed/device_pass.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "backend/touched_pages.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"

namespace gxsort::distributed {

DeviceSlots::DeviceSlots(Backend& backend, size_t record_size, uint64_t records, size_t slice_bytes)
    : rs(record_size) {
  bytes = records * rs;
  slice = size_t(std::min<uint64_t>(slice_bytes, std::max<uint64_t>(bytes, rs)));
  for (int s = 0; s < 3; ++s) {
    buffers.push_back(backend.allocate_host(slice));
    slots.push_back(buffers.back().data());
  }
}

pipeline::Config DeviceSlots::config(const char* phase) const {
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = slice;
  cfg.phase = phase;
  return cfg;
}

void load_on_device(DeviceSlots& d, DeviceResidentSort& resident, const Fill& fill, const ProgressFn& progress) {
  if (d.bytes == 0) return;
  const size_t rs = d.rs;
  pipeline::Stages in;
  in.read = [&](pipeline::Chunk& c) { fill(c.data, c.offset / rs, c.bytes / rs); };
  in.compute = [&](pipeline::Chunk& c) { resident.load(c.data, c.offset / rs, c.bytes / rs); };
  pipeline::run_chunks(d.config("read"), d.slots, in, progress);
}

void unload_from_device(DeviceSlots& d, DeviceResidentSort& resident, const Drain& drain, const ProgressFn& progress) {
  if (d.bytes == 0) return;
  const size_t rs = d.rs;
  pipeline::Stages out;
  out.read = [&](pipeline::Chunk& c) { resident.unload(c.data, c.offset / rs, c.bytes / rs); };
  out.write = [&](pipeline::Chunk& c) { drain(c.data, c.offset / rs, c.bytes / rs); };
  pipeline::run_chunks(d.config("write"), d.slots, out, progress);
}

void sort_on_device(Backend& backend, DeviceResidentSort& resident, size_t rs, uint64_t records, size_t slice_bytes,
                    const Fill& fill, const Drain& drain, const ProgressFn& progress) {
  if (records == 0) return;
  DeviceSlots d(backend, rs, records, slice_bytes);
  load_on_device(d, resident, fill, progress);
  resident.sort();
  unload_from_device(d, resident, drain, progress);
}

Fill fill_from_pieces(const std::vector<RunRef>& pieces, size_t rs, unsigned threads) {
  std::vector<uint64_t> starts{0};  // each piece's first record in the concatenation
  for (const RunRef& p : pieces) starts.push_back(starts.back() + p.records);
  return [pieces, rs, threads, starts](unsigned char* dst, uint64_t first, uint64_t count) {
    size_t i = size_t(std::upper_bound(starts.begin(), starts.end(), first) - starts.begin()) - 1;
    for (; count > 0; ++i) {
      const uint64_t from = first - starts[i], n = std::min(count, pieces[i].records - from);
      io::parallel_copy(dst, pieces[i].mem + from * rs, size_t(n * rs), threads);
      dst += n * rs;
      first += n;
      count -= n;
    }
  };
}

namespace {
// The mapping's length sits in its first page, in front of the data: munmap needs it,
// and HostBuffer's release takes the pointer only.
constexpr size_t kHead = 4096;
void unmap_touched(unsigned char* data) {
  unsigned char* base = data - kHead;
  size_t length;
  std::memcpy(&length, base, sizeof length);
  ::munmap(base, length);
}
}  // namespace

HostBuffer touched_host_buffer(size_t bytes, unsigned threads) {
  const size_t length = kHead + (bytes + 4095) / 4096 * 4096;
  unsigned char* base = map_touched_pages(length, threads);
  if (!base) throw OutOfMemory(bytes);
  std::memcpy(base, &length, sizeof length);
  return HostBuffer(base + kHead, bytes, unmap_touched);
}

}  // namespace gxsort::distributed
