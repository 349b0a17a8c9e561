#include "engine/run_formation.hpp"

#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "engine/job.hpp"
#include "engine/run_parts.hpp"
#include "io/checksum.hpp"
#include "io/early_writeback.hpp"
#include "resume/journal.hpp"
#include "parallel/background_tasks.hpp"
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
  const RunParts& parts = src.parts;
  std::vector<size_t> todo;
  if (!src.job) return todo;  // empty: every chunk, in order
  const std::vector<bool> form = src.job->runs_to_form();
  rf.runs.resize(parts.first_input(form.size()));
  rf.checksums.resize(rf.runs.size());
  for (size_t i = 0; i < form.size(); ++i) {
    if (form[i]) todo.push_back(i);
    else
      for (size_t j = 0, x = parts.first_input(i); j < parts.parts(i); ++j, ++x)
        rf.runs[x] = src.job->reuse_run(i, j), rf.checksums[x] = src.job->run_checksum(i);
  }
  return todo;
}

// Held runs keep their chunk buffers to the end (Chunk::held): only the last `slots` runs
// may be held, so that the reader always has a buffer that is not held. (A stream's runs
// are never held: its count is unknown, and this refuses it.)
void check_held_buffers(const RunSource& src, const RunBuffers& buffers) {
  const size_t hold_from = src.parts.hold_from;
  if (hold_from == SIZE_MAX) return;
  const uint64_t runs = src.total_bytes == pipeline::kUntilEnd ? UINT64_MAX
                                                               : (src.total_bytes + buffers.run_bytes - 1) / buffers.run_bytes;
  if (runs - std::min<uint64_t>(runs, hold_from) > buffers.slots.size())
    throw std::logic_error("run formation: more runs held in memory than it has chunk buffers");
}

// Merge input x in its place (input order: ties keep it), with its checksum.
void place_run(RunFormation& rf, size_t x, TreeInput run, uint64_t checksum) {
  if (rf.runs.size() <= x) rf.runs.resize(x + 1);
  rf.checksums.resize(rf.runs.size());
  rf.runs[x] = std::move(run);
  rf.checksums[x] = checksum;
}

// Run r stays in its chunk buffer: the buffer leaves `buffers` with it, and the scheduler
// reads no later chunk into it (Chunk::held).
void hold_in_memory(RunBuffers& buffers, pipeline::Chunk& c, size_t rs, RunFormation& rf, size_t x) {
  TreeInput run;
  c.held = true;
  run.held = std::make_shared<const HostBuffer>(std::move(buffers.slots.at(c.slot)));
  run.mem = c.data;
  run.records = c.bytes / rs;
  place_run(rf, x, std::move(run), 0);
  rf.held_bytes += c.bytes;
}

// The write stage of run formation, on `writers` threads: each sorted run to its file,
// or to its parts' files at once (RunSource::parts: one file's buffered writes do not get
// faster with threads, separate files do), each part on a thread of its own.
class RunWriter {
 public:
  RunWriter(Prepared& p, const RunSource& src, const Format& f, RunFormation& rf, unsigned writers)
      : p_(p), src_(src), rs_(f.record_size), rf_(rf), early_(src.early_writeback),
        part_writers_(unsigned(writers * (src.parts.files - 1))) {}
  uint64_t written_back_early() const { return early_.started(); }

  // Run r, sorted in c: held in its buffer (RunParts::hold_from), or written.
  void stage(RunBuffers& buffers, pipeline::Chunk& c, size_t r) {
    if (r < src_.parts.hold_from) return write(c, r);
    std::lock_guard<std::mutex> l(m_);
    hold_in_memory(buffers, c, rs_, rf_, src_.parts.first_input(r));
    if (src_.job) src_.job->keep_held_run(r, c.bytes / rs_);
  }

 private:
  // Its parts at once: part 0 on this thread, the others on part_writers_.
  void write(const pipeline::Chunk& c, size_t r) {
    const size_t k = src_.parts.parts(r);
    const uint64_t records = c.bytes / rs_;
    auto part = [&, k, records](size_t j) {
      const uint64_t b = RunParts::part_begin(records, k, j), e = RunParts::part_begin(records, k, j + 1);
      write_part(c.data + b * rs_, (e - b) * rs_, r, j, k == 1 ? p_.threads : 1);
    };
    std::packaged_task<void()> first([&part] { part(0); });  // its error is kept as the others' are
    std::vector<std::future<void>> parts;
    parts.push_back(first.get_future());
    for (size_t j = 1; j < k; ++j) parts.push_back(part_writers_.submit([&part, j] { part(j); }));
    first();
    parallel::wait_all(parts);
  }

  void write_part(const unsigned char* data, size_t bytes, size_t r, size_t j, unsigned threads) {
    const bool keep = !src_.keep_dir.empty();
    const size_t x = src_.parts.first_input(r) + j;
    TreeInput run;
    const std::string dir = keep ? src_.keep_dir : p_.tmp_dirs[x % p_.tmp_dirs.size()];
    char kind[32];
    std::snprintf(kind, sizeof kind, "run-%06zu", r);
    io::TempFile t = src_.job ? src_.job->create_run(r, j) : io::TempFile::create(p_.context, dir, keep ? std::string(kind) : "run");
    run.direct = src_.direct_io ? t.file().write_direct_at(data, bytes, 0, threads)
                                : (t.file().write_at_parallel(data, bytes, 0, threads), false);
    if (!run.direct) early_.add(t.file(), bytes);
    run.records = bytes / rs_;
    const uint64_t sum = keep ? io::xxh3_64(data, bytes) : 0;
    std::vector<uint64_t> sums;
    if (src_.job) sums = io::block_sums(data, bytes, resume::piece_block_bytes(bytes), threads);
    std::lock_guard<std::mutex> l(m_);
    if (src_.job) run = src_.job->keep_run(r, j, std::move(t), run.records, std::move(sums), run.direct, sum);
    else run.temp = std::make_shared<io::TempFile>(std::move(t));
    place_run(rf_, x, std::move(run), sum);
  }

  Prepared& p_;
  const RunSource& src_;
  const size_t rs_;
  RunFormation& rf_;
  std::mutex m_;  // two writers fill rf_ at once
  io::EarlyWriteback early_;  // stops when the runs are formed
  parallel::BackgroundTasks part_writers_;  // parts 1..k-1 of the runs written at once
};

}  // namespace

RunFormation form_run_files(Prepared& p, RunBuffers& buffers, const RunSource& src, const io::File& in,
                            const Format& f, const ProgressFn& progress) {
  RunFormation rf;
  auto t0 = Clock::now();
  const size_t rs = f.record_size;
  const bool keep = !src.keep_dir.empty();
  // Two runs are written at once, to two files: one writer is the bottleneck (the
  // reads use every core and the sort is on the device or overlapped).
  const unsigned writers = buffers.slots.size() >= 3 ? 2 : 1;
  RunWriter writer(p, src, f, rf, writers);
  const std::vector<size_t> todo = runs_to_form(src, rf);
  // Chunk c of the stream is run todo[c] of the input (all runs, in order, without a job).
  auto run_of = [&](size_t chunk) { return todo.empty() ? chunk : todo[chunk]; };
  std::vector<unsigned char*> slot_ptrs;
  for (auto& b : buffers.slots) slot_ptrs.push_back(b.data());
  check_held_buffers(src, buffers);
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
  st.write = [&](pipeline::Chunk& c) { writer.stage(buffers, c, run_of(c.index)); };
  pipeline::Config cfg;
  cfg.total_bytes = src.total_bytes;
  if (src.job) {  // the bytes of the runs to form
    cfg.total_bytes = 0;
    for (size_t r : todo) cfg.total_bytes += std::min<uint64_t>(buffers.run_bytes, src.total_bytes - uint64_t(r) * buffers.run_bytes);
  }
  cfg.chunk_bytes = buffers.run_bytes;
  cfg.phase = "sort runs";
  cfg.write_threads = writers;
  cfg.busy = &rf.busy;
  cfg.cancel = p.cancel;
  if (cfg.total_bytes) pipeline::run_chunks(cfg, slot_ptrs, st, progress);
  if (!keep) rf.checksums.clear();
  rf.input_bytes = src.job ? src.total_bytes : read_bytes;
  rf.written_back_early = writer.written_back_early();
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
