#include "engine/resident_output.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "parallel/parallel_for.hpp"

namespace gxsort {

namespace {
// Below this much output per thread, fewer threads (a part's faults and copies start
// and end in about 0.5 ms at this size).
constexpr uint64_t kMinPartBytes = uint64_t(4) << 20;
}  // namespace

void unload_in_parts(DeviceResidentSort& resident, size_t record_size, uint64_t n, io::MappedRange& dst,
                     const std::vector<unsigned char*>& staging, size_t staging_bytes, unsigned threads,
                     const ProgressFn& progress) {
  const uint64_t bytes = n * record_size;
  if (n == 0) return;
  if (staging.empty() || staging_bytes < record_size)
    throw std::logic_error("unload_in_parts: no staging buffer holds a record");
  unsigned parts = unsigned(std::clamp<uint64_t>(bytes / kMinPartBytes, 1, std::max(threads, 1u)));
  // Each part's piece of the staging: the buffers cut into ceil(parts / buffers) pieces,
  // none smaller than a record.
  auto pieces_per_buffer = [&] { return (parts + staging.size() - 1) / staging.size(); };
  while (parts > 1 && staging_bytes / pieces_per_buffer() < record_size) --parts;
  const size_t piece_records = staging_bytes / pieces_per_buffer() / record_size;
  std::mutex progress_m;
  uint64_t done = 0;
  parallel::parallel_for_ranges(size_t(n), parts, [&](size_t begin, size_t end, unsigned part) {
    unsigned char* piece = staging[part % staging.size()] + part / staging.size() * piece_records * record_size;
    for (size_t first = begin; first < end; first += piece_records) {
      const size_t count = std::min(piece_records, end - first);
      resident.unload(piece, first, count);
      dst.put_here(piece, uint64_t(first) * record_size, uint64_t(count) * record_size);
      if (progress) {
        std::lock_guard<std::mutex> l(progress_m);
        done += uint64_t(count) * record_size;
        progress({"write", done, bytes});
      }
    }
  });
}

}  // namespace gxsort
