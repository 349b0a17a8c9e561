#include "pipeline/chunk_scheduler.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>

#include "gxsort/error.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort::pipeline {
namespace {

// A closable FIFO hand-off between two stages.
template <class T>
class Channel {
 public:
  void push(T v) {
    { std::lock_guard<std::mutex> l(m_); q_.push_back(std::move(v)); }
    cv_.notify_one();
  }
  // Blocks until an item arrives; empty once the channel is closed and drained.
  std::optional<T> pop() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }
  void close() {
    { std::lock_guard<std::mutex> l(m_); closed_ = true; }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<T> q_;
  bool closed_ = false;
};

// Calls f(c) and adds the seconds it took to *sum (when given).
template <class F>
void timed(F&& f, Chunk& c, double* sum) {
  if (!sum) return f(c);
  const auto t0 = std::chrono::steady_clock::now();
  f(c);
  *sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One run of the stream: the channels between its stages, its first error and the
// write stage's progress. Each stage is a method run on a thread of its own (the
// writer's on the caller's and its helpers').
class ChunkRun {
 public:
  ChunkRun(const Config& cfg, const std::vector<unsigned char*>& slots, const Stages& stages,
           const ProgressFn& progress)
      : cfg_(cfg), stages_(stages), progress_(progress), until_end_(cfg.total_bytes == kUntilEnd),
        shown_total_(until_end_ ? 0 : cfg.total_bytes) {
    for (size_t s = 0; s < slots.size(); ++s) {
      Chunk c;
      c.data = slots[s];
      c.capacity = cfg.chunk_bytes;
      c.slot = s;
      free_slots_.push(c);
    }
  }

  // The read stage: chunks 0 .. chunks-1 (or to the stream's end), each into a slot the
  // writer released.
  void read(size_t chunks) {
    try {
      for (size_t i = 0; i < chunks && !stopped(); ++i) {
        auto c = free_slots_.pop();  // backpressure: wait for a slot the writer released
        if (!c) break;
        c->index = i;
        c->offset = uint64_t(i) * cfg_.chunk_bytes;
        c->bytes = size_t(std::min<uint64_t>(cfg_.chunk_bytes, cfg_.total_bytes - c->offset));
        if (stages_.read) timed(stages_.read, *c, cfg_.busy ? &cfg_.busy->read : nullptr);
        if (until_end_ && c->bytes == 0) break;  // the stream ended on a chunk boundary
        const bool last = until_end_ && c->bytes < cfg_.chunk_bytes;
        to_compute_.push(*c);
        if (last) break;
      }
    } catch (...) { fail(std::current_exception()); }
    to_compute_.close();
  }

  void compute() {
    try {
      while (auto c = to_compute_.pop()) {
        if (stopped()) break;
        if (stages_.compute) timed(stages_.compute, *c, cfg_.busy ? &cfg_.busy->compute : nullptr);
        to_write_.push(*c);
      }
    } catch (...) { fail(std::current_exception()); }
    to_write_.close();
  }

  // The write stage; several threads may run it at once (Config::write_threads).
  void write() {
    try {
      while (auto c = to_write_.pop()) {
        if (stopped()) break;
        double secs = 0;
        if (stages_.write) timed(stages_.write, *c, &secs);
        {
          std::lock_guard<std::mutex> l(progress_m_);
          if (cfg_.busy) cfg_.busy->write += secs;
          done_ += until_end_ ? c->bytes : std::min<uint64_t>(cfg_.chunk_bytes, cfg_.total_bytes - c->offset);
          if (progress_) progress_({cfg_.phase, done_, shown_total_});
        }
        if (!c->held) free_slots_.push(*c);
      }
    } catch (...) { fail(std::current_exception()); }
  }

  // Records the first error and stops every stage.
  void fail(std::exception_ptr e) {
    { std::lock_guard<std::mutex> l(err_m_); if (!first_error_) first_error_ = e; }
    failed_ = true;
    free_slots_.close();
    to_compute_.close();
    to_write_.close();
  }

  // After the writers: a reader waiting for a slot stops.
  void close_free_slots() { free_slots_.close(); }

  // After every stage ended: the first error, if any, thrown again.
  void rethrow_first_error() {
    if (first_error_) std::rethrow_exception(first_error_);
  }

 private:
  bool stopped() const { return failed_.load() || (cfg_.cancel && cfg_.cancel->cancelled()); }

  const Config& cfg_;
  const Stages& stages_;
  const ProgressFn& progress_;
  const bool until_end_;
  const uint64_t shown_total_;
  Channel<Chunk> free_slots_, to_compute_, to_write_;
  std::mutex err_m_;
  std::exception_ptr first_error_;
  std::atomic<bool> failed_{false};
  std::mutex progress_m_;
  uint64_t done_ = 0;
};

}  // namespace

void run_chunks(const Config& cfg, const std::vector<unsigned char*>& slots, const Stages& stages,
                const ProgressFn& progress) {
  if (slots.empty() || cfg.chunk_bytes == 0) throw Error(ExitCode::io, "internal: chunk scheduler needs slots");
  const bool until_end = cfg.total_bytes == kUntilEnd;
  const size_t chunks = until_end ? SIZE_MAX : size_t((cfg.total_bytes + cfg.chunk_bytes - 1) / cfg.chunk_bytes);
  if (chunks == 0) return;
  ChunkRun run(cfg, slots, stages, progress);
  parallel::OwnThread reader, computer;
  std::vector<parallel::OwnThread> helpers;
  try {
    reader = parallel::OwnThread([&] { run.read(chunks); });
    computer = parallel::OwnThread([&] { run.compute(); });
    // The writer runs on the calling thread, helped by write_threads - 1 more.
    for (unsigned t = 1; t < cfg.write_threads; ++t) helpers.emplace_back([&] { run.write(); });
  } catch (...) {
    run.fail(std::current_exception());  // a stage that could not start: the others stop
  }
  run.write();
  helpers.clear();  // joined
  run.close_free_slots();
  reader.join();
  computer.join();
  run.rethrow_first_error();
  throw_if_cancelled(cfg.cancel);
}

}  // namespace gxsort::pipeline
