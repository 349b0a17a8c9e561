#include "engine/merge.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <optional>

#include "backend/backend.hpp"
#include "engine/engine.hpp"
#include "gxsort/error.hpp"
#include "io/checksum.hpp"
#include "io/mapped_file.hpp"
#include "parallel/background_tasks.hpp"
#include "parallel/parallel_for.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "kernels/unique.hpp"

namespace gxsort {
namespace {

// The fewest records whose bytes are a whole number of 4 KiB blocks (direct output is
// flushed at offsets that are multiples of io::kDirectBlock).
size_t direct_block_records(size_t rs) { return io::kDirectBlock / std::gcd(rs, io::kDirectBlock); }

// The records of a block of a resumable merge's output sums (MergeSetup::output_sums):
// about 4 MiB, whole records and whole 4 KiB blocks.
uint64_t output_sum_records(size_t rs) {
  const uint64_t align = direct_block_records(rs);
  return std::max<uint64_t>(align, (uint64_t(4) << 20) / rs / align * align);
}

// Hashes one merge thread's output as it is flushed (MergeSetup::sums): the XXH3-64 of
// each job.sum_block bytes from job.sum_base. The thread's range starts on a block, and
// every range but the last ends on one: each block is hashed by one thread, from the
// buffer it was just merged into (in cache), not read back from the file.
class OutputHasher {
 public:
  explicit OutputHasher(const MergeSetup& job) : job_(job) {}
  void add(const unsigned char* p, size_t n, uint64_t at) {
    if (!job_.sums) return;
    while (n) {
      const uint64_t rel = at - job_.sum_base, in_block = rel % job_.sum_block;
      const size_t take = size_t(std::min<uint64_t>(n, job_.sum_block - in_block));
      h_.update(p, take);
      if (in_block + take == job_.sum_block) finish(rel / job_.sum_block);
      p += take, n -= take, at += take;
    }
  }
  void close(uint64_t at) {  // the range's end: a last, short block
    if (job_.sums && (at - job_.sum_base) % job_.sum_block) finish((at - job_.sum_base) / job_.sum_block);
  }

 private:
  void finish(uint64_t block) {
    (*job_.sums)[size_t(block)] = h_.digest();
    h_.reset();
  }
  const MergeSetup& job_;
  io::Xxh3 h_;
};

// Whether the record of cursor c is smaller than `prev`, the one the merge took from it
// just before, whose key prefix is `prefix`: the cursor's input is not sorted. As
// compare_keys(c.record(), prev) < 0, from the prefixes already at hand.
bool before_previous(const Format& f, const RunCursor& c, uint64_t prefix, const unsigned char* prev) {
  if (c.prefix() != prefix) return c.prefix() < prefix;
  return compare_key_tail(f, c.record(), prev) < 0;
}

// Where a merge writes: the file `file`, or the memory at `mem` (merge_runs_to_memory),
// whose records then go in place, without an output buffer.
struct MergeSink {
  const io::File* file = nullptr;
  unsigned char* mem = nullptr;
};

// Merges records [begin[i], end[i]) of each run into out from byte out_offset, file runs
// read ahead on `reads`. kRs: the record size when it is known at compile time (the
// per-record copy is then a move of a word, not a call to memcpy), else 0.
template <size_t kRs>
uint64_t merge_range(const MergeSetup& job, const std::vector<RunRef>& runs, const std::vector<uint64_t>& begin,
                     const std::vector<uint64_t>& end, const MergeSink& out, uint64_t out_offset,
                     parallel::BackgroundTasks* reads) {
  const Format& f = *job.format;
  const size_t rs = kRs ? kRs : f.record_size;
  std::vector<RunCursor> cursors;
  cursors.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) cursors.emplace_back(f, runs[i], begin[i], end[i], job.buffer_bytes, reads);
  LoserTree tree(f, cursors);
  uint64_t range = 0;
  for (size_t i = 0; i < runs.size(); ++i) range += end[i] - begin[i];
  // Output buffer. Direct writes need it aligned and a multiple of both the record
  // size and the 4 KiB block, so that every flush but the last starts on a block; a
  // record size whose block exceeds the buffer budget writes through the page cache.
  const size_t block = direct_block_records(rs) * rs;
  const bool direct = job.direct_output && !out.mem && block <= job.buffer_bytes && range * rs >= block;
  size_t obuf_bytes = size_t(std::max<uint64_t>(std::min<uint64_t>(job.buffer_bytes / rs, range), 1)) * rs;
  if (direct) obuf_bytes = std::max<size_t>(block, std::min<uint64_t>(job.buffer_bytes, range * rs) / block * block);
  // Memory: the "buffer" is the output itself, moved on at each flush (which then polls
  // the token and reports progress only).
  const io::AlignedBuffer obuf_storage = out.mem ? io::AlignedBuffer() : io::AlignedBuffer(obuf_bytes);
  unsigned char* obuf = out.mem ? out.mem + out_offset : obuf_storage.data();
  size_t used = 0;
  // Progress counts the records merged, not written: with --unique a merge writes fewer
  // than it reads, and its progress would end short of its total.
  uint64_t taken = 0;
  OutputHasher hasher(job);
  auto flush = [&] {
    throw_if_cancelled(job.cancel);
    if (used) hasher.add(obuf, used, out_offset);
    if (out.mem) obuf += used;
    else if (used && direct) out.file->write_direct_at(obuf, used, out_offset, 1);
    else if (used) out.file->write_at(obuf, used, out_offset);
    out_offset += used;
    if (job.done_bytes) {
      uint64_t d = job.done_bytes->fetch_add(taken * rs) + taken * rs;
      if (job.progress) job.progress({job.phase, d, job.total_bytes, job.level, job.levels});
    }
    used = 0;
    taken = 0;
  };
  uint64_t count = 0;
  // The last record written, for --unique. At least 16 bytes: with kRs = 4 the compiler
  // cannot see that the key of a 4-byte record is at most 4 bytes and warns about the
  // wider key loads it will never run.
  std::vector<unsigned char> last(std::max<size_t>(rs, 16));
  bool have_last = job.unique_after != nullptr;  // one range only with --unique: this is it
  if (have_last) std::memcpy(last.data(), job.unique_after, rs);
  while (!tree.done()) {
    RunCursor& c = tree.top();
    const size_t src = tree.top_index();
    const uint64_t prefix = c.prefix();
    unsigned char* written = obuf + used;
    if (job.unique && have_last && compare_keys(f, last.data(), c.record()) == 0) {
      // A later record of a group already written: dropped. Check the order against
      // the kept copy, as the output buffer does not hold it.
      std::memcpy(last.data(), c.record(), rs);
      written = last.data();
    } else {
      std::memcpy(written, c.record(), rs);
      used += rs;
      ++count;
      if (job.unique) { std::memcpy(last.data(), written, rs); have_last = true; }
    }
    tree.pop();
    ++taken;
    if (job.verify_sorted && !cursors[src].done() && before_previous(f, cursors[src], prefix, written))
      throw Error(ExitCode::usage, runs[src].name + ": input is not sorted: record " +
                                       std::to_string(cursors[src].position()) + " is smaller than the one before it");
    if (used == obuf_bytes) flush();
  }
  if (used || taken) flush();
  hasher.close(out_offset);
  return count;
}

// A user's input: each run's slice [cut[i], next[i]), gathered at starts[i], must be
// sorted, also across the window boundary (against the record before the cut).
void check_slices_sorted(const Format& f, const std::vector<RunRef>& runs, const std::vector<uint64_t>& cut,
                         const std::vector<uint64_t>& next, const std::vector<unsigned char*>& starts) {
  const size_t rs = f.record_size;
  std::vector<unsigned char> before(rs);
  for (size_t i = 0; i < runs.size(); ++i) {
    const uint64_t n = next[i] - cut[i];
    const unsigned char* prev = nullptr;
    if (n && cut[i] > 0) {
      read_records(runs[i], rs, cut[i] - 1, 1, before.data());
      prev = before.data();
    }
    for (uint64_t j = 0; j < n; ++j) {
      const unsigned char* rec = starts[i] + j * rs;
      if (prev && compare_keys(f, prev, rec) > 0)
        throw Error(ExitCode::usage, runs[i].name + ": input is not sorted: record " + std::to_string(cut[i] + j) +
                                         " is smaller than the one before it");
      prev = rec;
    }
  }
}

// What our own temp runs gave to a window ([cut[i], next[i])) is never read again: it is
// dropped, so that their dirty pages are not written back to the disk the output needs.
void discard_merged(const std::vector<RunRef>& runs, size_t rs, const std::vector<uint64_t>& cut,
                    const std::vector<uint64_t>& next) {
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].discardable && runs[i].file && next[i] > cut[i]) {
      // From the page holding the old cut: its records before the cut went earlier.
      const uint64_t from = std::max(runs[i].offset, (runs[i].offset + cut[i] * rs) / 4096 * 4096);
      runs[i].file->discard(from, runs[i].offset + next[i] * rs - from);
    }
}

// One merge pass on a device (merge_runs_on_device), window after window: where each
// run was cut, the slices of each slot's window, and what the output got. Its read and
// write are the chunk scheduler's stages; the device merges between them.
class DeviceWindowMerge {
 public:
  // `w`: the window's records; hash_windows: the output's block sums are taken from the
  // windows (MergeSetup::output_sums).
  DeviceWindowMerge(const MergeSetup& job, const std::vector<RunRef>& runs, const std::vector<uint64_t>& from,
                    uint64_t total, uint64_t w, bool hash_windows, const io::File& out, uint64_t out_offset)
      : job_(job), f_(*job.format), rs_(f_.record_size), runs_(runs), total_(total), w_(w),
        hash_windows_(hash_windows), sum_records_(output_sum_records(rs_)), out_(out), out_offset_(out_offset),
        slices_(kWindowSlots, std::vector<uint64_t>(runs.size())), window_ends_(kWindowSlots), cut_(from),
        first_rank_(std::accumulate(from.begin(), from.end(), uint64_t(0))), last_(rs_) {
    for (const auto& r : runs) ends_.push_back(r.records);
    // The output range reserved and mapped once (a full disk fails here, before the merge),
    // not pre-faulted: its windows fill it in order. With a mapping a window (reserve, map,
    // pre-fault on every thread, unmap) the out-of-core sort of 16 GiB on an H200 host spent
    // 6.2-7.4 s writing windows; with one, 3.4-3.9 s. -u windows shrink by an amount known
    // only as each is written, and the range's reservation would grow the file past them:
    // a mapping each there.
    if (!job.unique) range_.emplace(out, out_offset, total * rs_, job.threads, false);
    have_last_ = job.unique_after != nullptr;
    if (have_last_) std::memcpy(last_.data(), job.unique_after, rs_);
  }

  // The read stage: the co-rank cuts of window c.index, its slices gathered back to back
  // into c.data.
  void read(pipeline::Chunk& c) {
    const size_t k = runs_.size();
    const uint64_t end_rank = std::min<uint64_t>(total_, uint64_t(c.index + 1) * w_);
    // Starting from the last cut, the co-rank never probes a consumed (discarded) record.
    std::vector<uint64_t> next = end_rank == total_ ? ends_ : multiway_corank(f_, runs_, first_rank_ + end_rank, &cut_);
    struct Piece { size_t run; uint64_t first, count; unsigned char* dst; };
    std::vector<Piece> pieces;
    std::vector<unsigned char*> starts(k);
    unsigned char* dst = c.data;
    for (size_t i = 0; i < k; ++i) {
      const uint64_t n = next[i] - cut_[i];
      starts[i] = dst;
      for (uint64_t o = 0; o < n; o += piece_records_)
        pieces.push_back({i, cut_[i] + o, std::min(piece_records_, n - o), dst + o * rs_});
      slices_[c.slot][i] = n;
      dst += n * rs_;
    }
    parallel::parallel_for(pieces.size(), job_.threads, [&](size_t t) {
      read_records(runs_[pieces[t].run], rs_, pieces[t].first, pieces[t].count, pieces[t].dst);
    });
    if (job_.verify_sorted) check_slices_sorted(f_, runs_, cut_, next, starts);
    // A resumable merge keeps its inputs until its checkpoint is kept.
    if (!job_.checkpoint) discard_merged(runs_, rs_, cut_, next);
    window_ends_[c.slot] = next;
    cut_.swap(next);
  }

  // The records of each run in the window of slot `slot` (Backend::merge_window).
  const std::vector<uint64_t>& slices(size_t slot) const { return slices_[slot]; }

  // The write stage: the merged window put in place (-u: its duplicates dropped), its
  // checkpoint taken when due, its progress reported.
  void write(pipeline::Chunk& c) {
    const size_t keep = job_.unique ? unique_carry(f_, c.data, c.bytes / rs_, last_, have_last_) * rs_ : c.bytes;
    if (range_) range_->put(c.data, written_ * rs_, keep);
    else io::write_mapped(out_, out_offset_ + written_ * rs_, c.data, keep, job_.threads);
    written_ += keep / rs_;
    unkept_ += c.bytes;
    if (hash_windows_) {
      const std::vector<uint64_t> s = io::block_sums(c.data, keep, sum_records_ * rs_, job_.threads);
      sums_.insert(sums_.end(), s.begin(), s.end());
    }
    if (job_.checkpoint && (unkept_ >= job_.checkpoint_bytes || done_ + c.bytes == total_ * rs_)) {
      if (hash_windows_) {
        job_.output_sums->block = sum_records_ * rs_;
        job_.output_sums->sums.swap(sums_);
        sums_.clear();
      }
      job_.checkpoint(window_ends_[c.slot], written_);
      unkept_ = 0;
    }
    done_ += c.bytes;
    if (job_.done_bytes) {
      uint64_t d = job_.done_bytes->fetch_add(c.bytes) + c.bytes;
      if (job_.progress) job_.progress({job_.phase, d, job_.total_bytes, job_.level, job_.levels});
    }
  }

  // Unmaps the output range (after the last window).
  void release_output() { range_.reset(); }
  uint64_t written() const { return written_; }

 private:
  const MergeSetup& job_;
  const Format& f_;
  const size_t rs_;
  const std::vector<RunRef>& runs_;
  const uint64_t total_, w_;
  const bool hash_windows_;
  const uint64_t sum_records_;
  const io::File& out_;
  const uint64_t out_offset_;
  // Slices are read in pieces of this size by up to job.threads threads: one thread
  // reads the page cache at a fraction of what the copies to and from the device move.
  const uint64_t piece_records_ = std::max<uint64_t>(1, (uint64_t(16) << 20) / rs_);
  std::vector<std::vector<uint64_t>> slices_;
  std::vector<std::vector<uint64_t>> window_ends_;  // the cuts after each slot's window
  std::vector<uint64_t> cut_, ends_;
  const uint64_t first_rank_;
  std::vector<unsigned char> last_;
  bool have_last_ = false;
  uint64_t done_ = 0;
  std::optional<io::MappedRange> range_;
  uint64_t written_ = 0;  // records written so far
  uint64_t unkept_ = 0;  // input bytes merged since the last checkpoint
  std::vector<uint64_t> sums_;  // of the output since the last checkpoint
};

// The out-of-core merge pass on a device. The output is cut into windows of W records;
// for each window the multiway co-rank finds the slice of every run that lands in it;
// the reader gathers the slices back to back into a pinned slot buffer, the backend
// merges them on the device, and the writer puts the window in place, while the
// scheduler overlaps reading window i+1, merging window i and writing window i-1.
uint64_t merge_runs_on_device(const MergeSetup& job, const std::vector<RunRef>& runs, const std::vector<uint64_t>& from,
                              uint64_t total, const io::File& out, uint64_t out_offset) {
  const Format& f = *job.format;
  const size_t rs = f.record_size;
  constexpr size_t kSlots = kWindowSlots;
  uint64_t w = job.window_records;  // the plan's (device_window_records)
  // A resumable merge's checkpoints: the output's block sums taken from each window as
  // it is written (in memory) instead of read back from the file; windows of whole
  // blocks, so that every checkpoint starts on one. -u windows shrink: read back.
  const uint64_t sum_records = output_sum_records(rs);
  const bool hash_windows = job.output_sums && !job.unique && w >= sum_records;
  if (hash_windows) w = w / sum_records * sum_records;
  w = std::max<uint64_t>(1, std::min<uint64_t>(w, total));
  MergeSetup::StageSeconds* secs = job.stage_seconds;
  const auto t_setup = std::chrono::steady_clock::now();
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (size_t s = 0; s < kSlots; ++s) {
    buffers.push_back(job.backend->allocate_host(size_t(w) * rs));
    slots.push_back(buffers.back().data());
  }
  DeviceWindowMerge windows(job, runs, from, total, w, hash_windows, out, out_offset);
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) { windows.read(c); };
  st.compute = [&](pipeline::Chunk& c) {
    job.backend->merge_window(f, c.data, windows.slices(c.slot), job.merge_kernel);
  };
  st.write = [&](pipeline::Chunk& c) { windows.write(c); };
  if (secs) secs->setup += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();
  pipeline::Busy busy;
  pipeline::Config cfg;
  cfg.total_bytes = total * rs;
  cfg.chunk_bytes = size_t(w) * rs;
  cfg.phase = job.phase;
  cfg.busy = &busy;
  cfg.cancel = job.cancel;
  const auto t0 = std::chrono::steady_clock::now();
  pipeline::run_chunks(cfg, slots, st, nullptr);
  const auto t1 = std::chrono::steady_clock::now();
  windows.release_output();
  buffers.clear();
  if (secs) {
    secs->read += busy.read;
    secs->device += busy.compute;
    secs->write += busy.write;
    secs->pipeline += std::chrono::duration<double>(t1 - t0).count();
    secs->teardown += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }
  return windows.written();
}

// A user's input must be sorted across the cuts that start the threads' ranges too (the
// first one: where a segment of a resumable merge starts): each thread checks only the
// records of its own range (merge_range).
void check_cuts_sorted(const Format& f, const std::vector<RunRef>& runs, const std::vector<std::vector<uint64_t>>& cuts) {
  std::vector<unsigned char> before(f.record_size), at(f.record_size);
  for (size_t t = 0; t + 1 < cuts.size(); ++t)
    for (size_t i = 0; i < runs.size(); ++i) {
      const uint64_t c = cuts[t][i];
      if (c == 0 || c >= runs[i].records) continue;
      read_records(runs[i], f.record_size, c - 1, 1, before.data());
      read_records(runs[i], f.record_size, c, 1, at.data());
      if (compare_keys(f, before.data(), at.data()) > 0)
        throw Error(ExitCode::usage, runs[i].name + ": input is not sorted: record " + std::to_string(c) +
                                         " is smaller than the one before it");
    }
}

// Merges records [from[i], to[i]) of each run into out from byte out_offset, on up to
// job.threads threads, each merging the output range between two co-rank cuts.
uint64_t merge_on_cpu(const MergeSetup& job, const std::vector<RunRef>& runs, const std::vector<uint64_t>& from,
                      const std::vector<uint64_t>& to, const MergeSink& out, uint64_t out_offset) {
  const uint64_t first = std::accumulate(from.begin(), from.end(), uint64_t(0));
  const uint64_t total = std::accumulate(to.begin(), to.end(), uint64_t(0)) - first;
  unsigned threads = job.threads;
  // Small merges are not worth the co-rank searches and thread starts; with --unique
  // the output position of a range is only known once the ranges before it are done.
  if (total < (uint64_t(1) << 18) || runs.size() < 2 || job.unique) threads = 1;
  // Direct output: every range starts on a 4 KiB block (ranks rounded down to whole
  // blocks of records), so that all its flushes but the last can go direct. Hashed
  // output: on a block of the sums (a multiple of the 4 KiB one).
  const uint64_t align = job.sums ? job.sum_block / job.format->record_size
                                  : job.direct_output ? direct_block_records(job.format->record_size) : 1;
  // Each search starts from the cut before it: the same cuts for sorted runs, and cuts
  // that never go back for unsorted ones, so the threads' output ranges never overlap.
  std::vector<std::vector<uint64_t>> cuts{from};
  for (unsigned t = 1; t < threads; ++t)
    cuts.push_back(multiway_corank(*job.format, runs, first + total * t / threads / align * align, &cuts.back()));
  cuts.push_back(to);
  if (job.verify_sorted) check_cuts_sorted(*job.format, runs, cuts);

  // Runs written around the page cache are read from the disk: ahead, on two threads
  // per merge thread, so that a few reads are in flight while the merge works (2 GiB u64
  // --memory 256M --direct-io on, 2-core VM: merge 5.2-5.7 s -> 3.4-3.8 s). Cached runs
  // are read by the merge threads themselves: there the pool's threads only competed for
  // the cores (merge 3.4-3.6 s -> 5.5-5.9 s).
  const bool direct = std::any_of(runs.begin(), runs.end(), [](const RunRef& r) { return r.file && r.direct; });
  std::unique_ptr<parallel::BackgroundTasks> reads =
      direct ? std::make_unique<parallel::BackgroundTasks>(2 * threads) : nullptr;
  std::vector<uint64_t> counts(threads, 0);
  const size_t rs = job.format->record_size;
  parallel::parallel_for(threads, threads, [&](size_t t) {
    const uint64_t start = std::accumulate(cuts[t].begin(), cuts[t].end(), uint64_t(0)) - first;
    const uint64_t at = out_offset + start * rs;
    if (rs == 8) counts[t] = merge_range<8>(job, runs, cuts[t], cuts[t + 1], out, at, reads.get());
    else if (rs == 4) counts[t] = merge_range<4>(job, runs, cuts[t], cuts[t + 1], out, at, reads.get());
    else counts[t] = merge_range<0>(job, runs, cuts[t], cuts[t + 1], out, at, reads.get());
  });
  return std::accumulate(counts.begin(), counts.end(), uint64_t(0));
}

// A resumable CPU merge: one merge_on_cpu per checkpoint_bytes of input, each followed
// by job.checkpoint. Nothing read is dropped (the job punches behind its checkpoints).
uint64_t merge_on_cpu_with_checkpoints(const MergeSetup& job, const std::vector<RunRef>& runs, const std::vector<uint64_t>& from,
                                       const std::vector<uint64_t>& ends, const io::File& out, uint64_t out_offset) {
  const size_t rs = job.format->record_size;
  std::vector<RunRef> kept = runs;
  for (RunRef& r : kept) r.discardable = false;
  const uint64_t align = direct_block_records(rs);
  // Rounded up: every segment is checkpoint_bytes at least, so the job keeps each (its
  // sums start where the segment does).
  const uint64_t step = std::max<uint64_t>(align, (job.checkpoint_bytes / rs + align - 1) / align * align);
  const uint64_t sum_records = output_sum_records(rs);
  std::vector<uint64_t> sums;
  const uint64_t total = std::accumulate(ends.begin(), ends.end(), uint64_t(0));
  uint64_t rank = std::accumulate(from.begin(), from.end(), uint64_t(0)), written = 0;
  std::vector<uint64_t> cut = from;
  std::vector<unsigned char> last(rs);
  MergeSetup part = job;
  while (rank < total) {
    const uint64_t next_rank = std::min(total, (rank + step) / align * align);  // > rank: step >= align
    std::vector<uint64_t> next = next_rank == total ? ends : multiway_corank(*job.format, kept, next_rank, &cut);
    const uint64_t at = out_offset + written * rs;
    part.direct_output = job.direct_output && at % io::kDirectBlock == 0;
    if (job.unique && (written || job.unique_after)) {
      if (written) out.read_at(last.data(), rs, at - rs);
      else std::memcpy(last.data(), job.unique_after, rs);
      part.unique_after = last.data();
    }
    if (job.output_sums) {
      part.sum_base = at;
      part.sum_block = sum_records * rs;
      sums.assign(size_t((next_rank - rank + sum_records - 1) / sum_records), 0);
      part.sums = &sums;
    }
    const uint64_t seg = merge_on_cpu(part, kept, cut, next, {&out, nullptr}, at);
    written += seg;
    cut.swap(next);
    rank = next_rank;
    if (job.output_sums) {  // -u: the output may be shorter than the input
      sums.resize(size_t((seg + sum_records - 1) / sum_records));
      job.output_sums->block = sum_records * rs;
      job.output_sums->sums.swap(sums);
    }
    job.checkpoint(cut, written);
  }
  return written;
}

}  // namespace

uint64_t merge_runs(const MergeSetup& job, const std::vector<RunRef>& runs, const io::File& out, uint64_t out_offset) {
  std::vector<uint64_t> from = job.start ? *job.start : std::vector<uint64_t>(runs.size(), 0), ends;
  for (const auto& r : runs) ends.push_back(r.records);
  const uint64_t total = std::accumulate(ends.begin(), ends.end(), uint64_t(0)) -
                         std::accumulate(from.begin(), from.end(), uint64_t(0));
  if (job.backend && job.window_records > 0 && total > 0)
    return merge_runs_on_device(job, runs, from, total, out, out_offset);
  if (job.checkpoint) return merge_on_cpu_with_checkpoints(job, runs, from, ends, out, out_offset);
  return merge_on_cpu(job, runs, from, ends, {&out, nullptr}, out_offset);
}

uint64_t merge_runs_to_memory(const MergeSetup& job, const std::vector<RunRef>& runs, unsigned char* out) {
  std::vector<uint64_t> from(runs.size(), 0), ends;
  for (const auto& r : runs) ends.push_back(r.records);
  return merge_on_cpu(job, runs, from, ends, {nullptr, out}, 0);
}

std::vector<PhaseStat> window_stages(const MergeSetup::StageSeconds& s) {
  if (s.device <= 0) return {};
  return {{"pin windows, map the output", s.setup, 0, 0}, {"read slices", s.read, 0, 0},
          {"merge on the device", s.device, 0, 0}, {"write windows", s.write, 0, 0},
          {"window pipeline (wall)", s.pipeline, 0, 0}, {"unmap, unpin", s.teardown, 0, 0}};
}

RunRef TreeInput::ref() const {
  RunRef r;
  r.mem = mem;
  r.file = temp ? &temp->file() : file.get();
  r.records = records;
  r.offset = offset;
  // No file: a run held in memory, or a consumed piece (engine/job.hpp).
  r.name = temp ? temp->path() : file ? file->path() : mem ? "a run held in memory" : piece;
  r.discardable = bool(temp) || discardable;
  r.direct = direct;
  return r;
}

namespace {

// The levels merge_tree_to takes for n inputs: as plan/plan.cpp's merge_tree counts them.
size_t tree_levels(size_t n, size_t fan_in) {
  size_t levels = 1;
  for (; n > fan_in; ++levels) n = (n + fan_in - 1) / fan_in;
  return levels;
}

// The bytes a level merges: every group of more than one input (a lone one is carried
// over), all of them at the last level.
uint64_t level_bytes_to_merge(const std::vector<TreeInput>& inputs, size_t fan_in, size_t rs) {
  const bool last = inputs.size() <= fan_in;
  uint64_t bytes = 0;
  for (size_t b = 0; b < inputs.size(); b += fan_in)
    if (last || std::min(inputs.size(), b + fan_in) - b > 1)
      for (size_t i = b; i < std::min(inputs.size(), b + fan_in); ++i) bytes += inputs[i].records * rs;
  return bytes;
}

// Removes inputs [first, end) once merged, all at once. A removal frees the file's
// blocks, and where the file system discards freed blocks as it frees them (ext4
// mounted with `discard`, as on the GPU hosts) it waits for the disk's discards of the
// runs the flusher had written back: one file at a time, the 17 runs of a 16 GiB sort on
// an H200 host took 8.3 s to remove; all at once, 2.6 s.
void remove_inputs(std::vector<TreeInput>& inputs, size_t first, size_t end) {
  parallel::parallel_for(end - first, unsigned(end - first), [&](size_t i) { inputs[first + i] = TreeInput(); });
}

}  // namespace

size_t merge_tree_to(const MergeSetup& job, std::vector<TreeInput> inputs, size_t fan_in,
                     const std::vector<std::string>& tmp_dirs, const io::File& final_out, uint64_t final_offset,
                     const std::function<void(size_t, double, uint64_t)>& on_level, uint64_t* output_records,
                     MergePieces* pieces) {
  const size_t rs = job.format->record_size;
  MergeSetup temp_job = job;  // merges into temp levels
  temp_job.direct_output = job.direct_temp;
  MergeSetup last_job = job;  // the last merge, into final_out
  temp_job.levels = last_job.levels = tree_levels(inputs.size(), fan_in);
  size_t level = 0;
  size_t next_dir = 0;
  while (true) {
    ++level;
    auto t0 = std::chrono::steady_clock::now();
    uint64_t level_bytes = 0;
    temp_job.level = last_job.level = level;
    temp_job.total_bytes = last_job.total_bytes = level_bytes_to_merge(inputs, fan_in, rs);
    if (inputs.size() <= fan_in) {
      std::vector<RunRef> refs;
      for (const auto& in : inputs) { refs.push_back(in.ref()); level_bytes += in.records * rs; }
      const uint64_t written = pieces ? pieces->final_merge(last_job, inputs, final_out, final_offset)
                                      : merge_runs(last_job, refs, final_out, final_offset);
      if (output_records) *output_records = written;
      const auto t_release = std::chrono::steady_clock::now();
      remove_inputs(inputs, 0, inputs.size());  // inside the level's time
      if (job.stage_seconds)
        job.stage_seconds->release += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_release).count();
      if (on_level) on_level(level, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), level_bytes);
      return level;
    }
    std::vector<TreeInput> next;
    for (size_t b = 0, group = 0; b < inputs.size(); b += fan_in, ++group) {
      size_t e = std::min(inputs.size(), b + fan_in);
      if (e - b == 1) { next.push_back(std::move(inputs[b])); continue; }  // carried over
      throw_if_cancelled(job.cancel);
      TreeInput merged = pieces ? pieces->reuse(level, group) : TreeInput();
      if (merged.records == 0) {
        std::vector<RunRef> refs;
        uint64_t records = 0;
        for (size_t i = b; i < e; ++i) { refs.push_back(inputs[i].ref()); records += inputs[i].records; }
        level_bytes += records * rs;
        io::TempFile t = pieces ? pieces->create(level, group)
                                : io::TempFile::create(job.context, tmp_dirs[next_dir++ % tmp_dirs.size()], "merge");
        records = merge_runs(temp_job, refs, t.file(), 0);
        if (pieces) {
          merged = pieces->keep(level, group, std::move(t), records, temp_job.direct_output);
        } else {
          merged.temp = std::make_shared<io::TempFile>(std::move(t));
          merged.direct = temp_job.direct_output;
          merged.records = records;
        }
      }
      remove_inputs(inputs, b, e);  // the merged temp runs, now
      next.push_back(std::move(merged));
    }
    inputs.swap(next);
    if (on_level) on_level(level, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), level_bytes);
  }
}

MergeSetup merge_setup_of(const Prepared& p, const EngineOptions& opt, uint64_t window_records, size_t buffer_bytes) {
  MergeSetup job;
  job.format = &opt.format;
  job.buffer_bytes = std::max<size_t>(buffer_bytes, opt.format.record_size);
  job.threads = p.threads;
  job.progress = opt.progress;
  job.cancel = opt.cancel;
  job.backend = p.backend.get();
  job.merge_kernel = opt.merge_kernel;
  job.window_records = window_records;
  job.unique = opt.unique;
  job.context = p.context;
  return job;
}

}  // namespace gxsort
