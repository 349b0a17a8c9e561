#include "engine/run_formation.hpp"

#include <memory>
#include <mutex>
#include <stdexcept>

#include "engine/job.hpp"
#include "io/checksum.hpp"
#include "io/early_writeback.hpp"
#include "resume/journal.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "kernels/unique.hpp"

namespace gxsort {

RunBuffers::RunBuffers(Backend& b, const Format& f, size_t run_records, size_t n_slots)
    : run_bytes(run_records * f.record_size) {
  for (size_t s = 0; s < n_slots; ++s) slots.push_back(b.allocate_host(run_bytes));
  scratch = b.allocate_host(b.sort_scratch_bytes(f, run_records));
}

namespace {

// The runs to form, by index: all of them, or those a job has not kept (the rest are
// reused, or covered by a kept merge output and left out).
std::vector<size_t> runs_to_form(const RunSource& src, RunFormation& rf) {
  std::vector<size_t> todo;
  if (!src.job) return todo;  // empty: every chunk, in order
  const std::vector<bool> form = src.job->runs_to_form();
  rf.runs.resize(form.size());
  rf.checksums.resize(form.size());
  for (size_t i = 0; i < form.size(); ++i) {
    if (form[i]) todo.push_back(i);
    else rf.runs[i] = src.job->reuse_run(i), rf.checksums[i] = src.job->run_checksum(i);
  }
  return todo;
}

// Held runs keep their chunk buffers to the end (Chunk::held): only the last `slots` runs
// may be held, so that the reader always has a buffer that is not held. (A stream's runs
// are never held: its count is unknown, and this refuses it.)
void check_held_buffers(const RunSource& src, const RunBuffers& buffers) {
  if (src.hold_from == SIZE_MAX) return;
  const uint64_t runs = src.total_bytes == pipeline::kUntilEnd ? UINT64_MAX
                                                               : (src.total_bytes + buffers.run_bytes - 1) / buffers.run_bytes;
  if (runs - std::min<uint64_t>(runs, src.hold_from) > buffers.slots.size())
    throw std::logic_error("run formation: more runs held in memory than it has chunk buffers");
}

// Run r in its place (run order is input order: ties keep it), with its checksum.
void place_run(RunFormation& rf, size_t r, TreeInput run, uint64_t checksum) {
  if (rf.runs.size() <= r) rf.runs.resize(r + 1);
  rf.checksums.resize(rf.runs.size());
  rf.runs[r] = std::move(run);
  rf.checksums[r] = checksum;
}

// Run r stays in its chunk buffer: the buffer leaves `buffers` with it, and the scheduler
// reads no later chunk into it (Chunk::held).
void hold_in_memory(RunBuffers& buffers, pipeline::Chunk& c, size_t rs, RunFormation& rf, size_t r) {
  TreeInput run;
  c.held = true;
  run.held = std::make_shared<const HostBuffer>(std::move(buffers.slots.at(c.slot)));
  run.mem = c.data;
  run.records = c.bytes / rs;
  place_run(rf, r, std::move(run), 0);
  rf.held_bytes += c.bytes;
}

}  // namespace

RunFormation form_run_files(Prepared& p, RunBuffers& buffers, const RunSource& src, const io::File& in,
                            const Format& f, const ProgressFn& progress) {
  RunFormation rf;
  auto t0 = Clock::now();
  const size_t rs = f.record_size;
  const bool keep = !src.keep_dir.empty();
  const std::vector<size_t> todo = runs_to_form(src, rf);
  // Chunk c of the stream is run todo[c] of the input (all runs, in order, without a job).
  auto run_of = [&](size_t chunk) { return todo.empty() ? chunk : todo[chunk]; };
  std::vector<unsigned char*> slot_ptrs;
  for (auto& b : buffers.slots) slot_ptrs.push_back(b.data());
  check_held_buffers(src, buffers);
  io::EarlyWriteback early(src.early_writeback);  // stops when the runs are formed
  std::mutex m;  // two writers fill rf at once
  uint64_t read_bytes = 0;
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) {
    if (src.job) {  // run todo[c.index] of the input
      c.offset = uint64_t(run_of(c.index)) * buffers.run_bytes;
      c.bytes = size_t(std::min<uint64_t>(buffers.run_bytes, src.total_bytes - c.offset));
    }
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
    const size_t r = run_of(c.index);
    if (r >= src.hold_from) {
      std::lock_guard<std::mutex> l(m);
      hold_in_memory(buffers, c, rs, rf, r);
      if (src.job) src.job->keep_held_run(r, c.bytes / rs);
      return;
    }
    TreeInput run;
    const std::string dir = keep ? src.keep_dir : p.tmp_dirs[r % p.tmp_dirs.size()];
    char kind[32];
    std::snprintf(kind, sizeof kind, "run-%06zu", r);
    io::TempFile t = src.job ? src.job->create_run(r) : io::TempFile::create(p.context, dir, keep ? std::string(kind) : "run");
    run.direct = src.direct_io ? t.file().write_direct_at(c.data, c.bytes, 0, p.threads)
                               : (t.file().write_at_parallel(c.data, c.bytes, 0, p.threads), false);
    if (!run.direct) early.add(t.file(), c.bytes);
    run.records = c.bytes / rs;
    const uint64_t sum = keep ? io::xxh3_64(c.data, c.bytes) : 0;
    std::vector<uint64_t> sums;
    if (src.job) sums = io::block_sums(c.data, c.bytes, resume::piece_block_bytes(c.bytes), p.threads);
    std::lock_guard<std::mutex> l(m);
    if (src.job) run = src.job->keep_run(r, std::move(t), run.records, std::move(sums), run.direct, sum);
    else run.temp = std::make_shared<io::TempFile>(std::move(t));
    place_run(rf, r, std::move(run), sum);
  };
  pipeline::Config cfg;
  cfg.total_bytes = src.total_bytes;
  if (src.job) {  // the bytes of the runs to form
    cfg.total_bytes = 0;
    for (size_t r : todo) cfg.total_bytes += std::min<uint64_t>(buffers.run_bytes, src.total_bytes - uint64_t(r) * buffers.run_bytes);
  }
  cfg.chunk_bytes = buffers.run_bytes;
  cfg.phase = "sort runs";
  // Two runs are written at once, to two files: one writer is the bottleneck (the
  // reads use every core and the sort is on the device or overlapped).
  cfg.write_threads = buffers.slots.size() >= 3 ? 2 : 1;
  cfg.busy = &rf.busy;
  cfg.cancel = p.cancel;
  if (cfg.total_bytes) pipeline::run_chunks(cfg, slot_ptrs, st, progress);
  if (!keep) rf.checksums.clear();
  rf.input_bytes = src.job ? src.total_bytes : read_bytes;
  rf.written_back_early = early.started();
  rf.seconds = since(t0);
  return rf;
}

std::vector<PhaseStat> run_stages(double allocate_seconds, const RunFormation& rf) {
  return {{"allocate buffers", allocate_seconds, 0, 0},
          {"read", rf.busy.read, 0, 0},
          {"sort", rf.busy.compute, 0, 0},
          {"write runs", rf.busy.write, 0, 0},
          {"runs written back early", 0, 0, rf.written_back_early},
          {"runs held in memory", 0, 0, rf.held_bytes}};
}

}  // namespace gxsort
