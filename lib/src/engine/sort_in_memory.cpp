// The sort command's in-memory plan: the device's resident sort, or the mapped input
// sorted straight into the mapped output (engine/sort.cpp chooses).
#include "engine/sort_in_memory.hpp"

#include <algorithm>
#include <future>
#include <optional>

#include "io/mapped_file.hpp"
#include "parallel/background_tasks.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "engine/resident_output.hpp"
#include "kernels/unique.hpp"

namespace gxsort {

// An in-memory sort on a device that holds all the records: slices stream file ->
// device through a few pinned slots, the scheduler overlapping the file reads with the
// copies in; out, every thread copies its own part of the output through its piece of
// the slots (engine/resident_output.hpp). The output is written through a mapping: one
// file's buffered writes are serialized by the kernel, and one thread filling the page
// cache took 1.1-2.1 s of 4 GiB on the H100 host; the mapping is sized and pre-faulted
// while the input is read. Returns the output bytes.
uint64_t sort_resident(Prepared& p, DeviceResidentSort& resident, const io::File& in, const EngineOptions& opt,
                       io::Output& out, RunStats& st) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = p.plan.input_bytes;
  auto t0 = Clock::now();
  std::optional<io::MappedRange> dst;
  parallel::BackgroundTasks mapper(1);
  std::future<void> mapped = mapper.submit([&] { dst.emplace(out.file(), 0, bytes, p.threads); });
  const size_t slice = p.plan.chunks.chunk_bytes;
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (unsigned s = 0; s < p.plan.chunks.slots; ++s) {
    buffers.push_back(p.backend->allocate_host(std::min<uint64_t>(slice, bytes)));
    slots.push_back(buffers.back().data());
  }
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = size_t(std::min<uint64_t>(slice, bytes));
  cfg.phase = "read";
  cfg.cancel = opt.cancel;
  pipeline::Stages in_st;
  in_st.read = [&](pipeline::Chunk& c) {
    in.prefetch(c.offset + c.bytes, 2 * slice);  // a cold file: the disk reads on while this slice copies
    in.read_at_parallel(c.data, c.bytes, c.offset, p.threads);
  };
  in_st.compute = [&](pipeline::Chunk& c) { resident.load(c.data, c.offset / rs, c.bytes / rs); };
  pipeline::run_chunks(cfg, slots, in_st, opt.progress);
  const double t_read = since(t0);
  auto t1 = Clock::now();
  throw_if_cancelled(opt.cancel);
  resident.sort();
  mapped.get();
  throw_if_cancelled(opt.cancel);
  const double t_sort = since(t1);
  auto t2 = Clock::now();
  uint64_t written = bytes;
  if (!opt.unique) {
    unload_in_parts(resident, rs, p.plan.records, *dst, slots, cfg.chunk_bytes, p.threads, opt.progress);
  } else {
    // -u: where a slice's records land depends on the duplicates of every slice before
    // it, so the slices go out in order.
    pipeline::Stages out_st;
    out_st.read = [&](pipeline::Chunk& c) { resident.unload(c.data, c.offset / rs, c.bytes / rs); };
    written = 0;
    std::vector<unsigned char> last;
    bool have_last = false;
    out_st.write = [&](pipeline::Chunk& c) {
      const size_t keep = unique_carry(f, c.data, c.bytes / rs, last, have_last) * rs;
      dst->put(c.data, written, keep);  // final: its writeback starts now
      written += keep;
    };
    cfg.phase = "write";
    pipeline::run_chunks(cfg, slots, out_st, opt.progress);
  }
  dst.reset();
  if (written < bytes) out.file().truncate(written);
  st.phases.push_back({"read and copy in", t_read, bytes, 0});
  st.phases.push_back({"sort on the device", t_sort, 0, bytes});
  st.phases.push_back({"copy out and write", since(t2), 0, bytes});
  return written;
}

// The input's cached pages are mapped and sorted straight into the mapped output: no
// buffer holds a copy of the data, so the sort touches little fresh memory
// (io/mapped_file.hpp says why that matters). Returns the output bytes.
uint64_t sort_mapped(Prepared& p, const io::File& in, const EngineOptions& opt, io::Output& out,
                     BackgroundUnmap& input_unmap, RunStats& st) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = p.plan.input_bytes;
  auto t0 = Clock::now();
  const size_t n = size_t(p.plan.records);
  io::MappedFile src = io::MappedFile::map_read(in, n * rs, 0, false);
  io::MappedFile dst = io::MappedFile::map_write(out.file(), n * rs, p.threads);
  if (opt.progress) opt.progress({"read", bytes, bytes});
  const double t_map = since(t0);
  auto t1 = Clock::now();
  // Finished ranges start their writeback while the rest sorts, unmapped first (no
  // shootdowns as it cleans them; measured 3-4% off the sort). Not with -u: the
  // unique pass below still moves records.
  Backend::SortedRecords written;
  if (!opt.unique)
    written = [&](size_t first, size_t count) {
      dst.release(first * rs, count * rs);
      out.file().written_elsewhere(first * rs, count * rs);
    };
  throw_if_cancelled(opt.cancel);
  sort_mapped_input(*p.backend, f, in, src.data(), dst.data(), n, written);
  throw_if_cancelled(opt.cancel);
  const size_t kept = opt.unique ? unique_in_place(f, dst.data(), n) : n;
  input_unmap.start(std::move(src));
  dst.unmap();
  if (kept < n) out.file().truncate(kept * rs);
  if (opt.progress) opt.progress({"write", bytes, bytes});
  st.phases.push_back({"map input and output", t_map, bytes, 0});
  st.phases.push_back({"sort into the output", since(t1), 0, bytes});
  return kept * rs;
}

}  // namespace gxsort
