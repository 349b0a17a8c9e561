#include "engine/run_formation.hpp"

#include <mutex>

#include "io/checksum.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "kernels/unique.hpp"

namespace gxsort {

RunBuffers::RunBuffers(Backend& b, const Format& f, size_t run_records, size_t n_slots)
    : run_bytes(run_records * f.record_size) {
  for (size_t s = 0; s < n_slots; ++s) slots.push_back(b.allocate_host(run_bytes));
  scratch = b.allocate_host(b.sort_scratch_bytes(f, run_records));
}

RunFormation form_run_files(Prepared& p, RunBuffers& buffers, const RunSource& src, const io::File& in,
                            const Format& f, const ProgressFn& progress) {
  RunFormation rf;
  auto t0 = Clock::now();
  const size_t rs = f.record_size;
  const bool keep = !src.keep_dir.empty();
  std::vector<unsigned char*> slot_ptrs;
  for (auto& b : buffers.slots) slot_ptrs.push_back(b.data());
  std::mutex m;  // two writers fill rf at once
  uint64_t read_bytes = 0;
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) {
    if (c.index == 0 && src.preloaded_bytes) c.bytes = src.preloaded_bytes;  // slot 0 holds it
    else c.bytes = in.read_chunk(c.data, c.bytes, c.offset, p.threads);
    read_bytes += c.bytes;
    // A stream's last chunk: a partial record means the input is not whole records.
    if (c.bytes % rs) checked_record_count(in.path(), c.offset + c.bytes, f);
  };
  st.compute = [&](pipeline::Chunk& c) {
    p.backend->sort_chunk(f, c.data, c.bytes / rs, buffers.scratch.data());
    if (src.unique) c.bytes = unique_in_place(f, c.data, c.bytes / rs) * rs;  // runs shrink early
  };
  st.write = [&](pipeline::Chunk& c) {
    TreeInput run;
    const std::string dir = keep ? src.keep_dir : p.tmp_dirs[c.index % p.tmp_dirs.size()];
    char kind[32];
    std::snprintf(kind, sizeof kind, "run-%06zu", c.index);
    run.temp = std::make_shared<io::TempFile>(io::TempFile::create(dir, keep ? std::string(kind) : "run"));
    if (src.direct_io) run.direct = run.temp->file().write_direct_at(c.data, c.bytes, 0, p.threads);
    else run.temp->file().write_at_parallel(c.data, c.bytes, 0, p.threads);
    run.records = c.bytes / rs;
    const uint64_t sum = keep ? io::xxh3_64(c.data, c.bytes) : 0;
    std::lock_guard<std::mutex> l(m);
    if (rf.runs.size() <= c.index) { rf.runs.resize(c.index + 1); rf.checksums.resize(c.index + 1); }
    rf.runs[c.index] = std::move(run);  // run order is input order: ties keep it
    rf.checksums[c.index] = sum;
  };
  pipeline::Config cfg;
  cfg.total_bytes = src.total_bytes;
  cfg.chunk_bytes = buffers.run_bytes;
  cfg.phase = "sort runs";
  // Two runs are written at once, to two files: one writer is the bottleneck (the
  // reads use every core and the sort is on the device or overlapped).
  cfg.write_threads = buffers.slots.size() >= 3 ? 2 : 1;
  pipeline::run_chunks(cfg, slot_ptrs, st, progress);
  if (!keep) rf.checksums.clear();
  rf.input_bytes = read_bytes;
  rf.seconds = since(t0);
  return rf;
}

}  // namespace gxsort
