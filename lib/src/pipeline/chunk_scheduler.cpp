#include "pipeline/chunk_scheduler.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "gxsort/error.hpp"

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

}  // namespace

void run_chunks(const Config& cfg, const std::vector<unsigned char*>& slots, const Stages& stages,
                const ProgressFn& progress) {
  if (slots.empty() || cfg.chunk_bytes == 0) throw Error(ExitCode::io, "internal: chunk scheduler needs slots");
  const bool until_end = cfg.total_bytes == kUntilEnd;
  const size_t chunks = until_end ? SIZE_MAX : size_t((cfg.total_bytes + cfg.chunk_bytes - 1) / cfg.chunk_bytes);
  if (chunks == 0) return;
  const uint64_t shown_total = until_end ? 0 : cfg.total_bytes;

  Channel<Chunk> free_slots, to_compute, to_write;
  for (size_t s = 0; s < slots.size(); ++s) {
    Chunk c;
    c.data = slots[s];
    c.capacity = cfg.chunk_bytes;
    c.slot = s;
    free_slots.push(c);
  }

  std::mutex err_m;
  std::exception_ptr first_error;
  std::atomic<bool> failed{false};
  auto stopped = [&] { return failed.load() || (cfg.cancel && cfg.cancel->cancelled()); };
  auto fail = [&](std::exception_ptr e) {
    { std::lock_guard<std::mutex> l(err_m); if (!first_error) first_error = e; }
    failed = true;
    free_slots.close();
    to_compute.close();
    to_write.close();
  };

  std::thread reader([&] {
    try {
      for (size_t i = 0; i < chunks && !stopped(); ++i) {
        auto c = free_slots.pop();  // backpressure: wait for a slot the writer released
        if (!c) break;
        c->index = i;
        c->offset = uint64_t(i) * cfg.chunk_bytes;
        c->bytes = size_t(std::min<uint64_t>(cfg.chunk_bytes, cfg.total_bytes - c->offset));
        if (stages.read) timed(stages.read, *c, cfg.busy ? &cfg.busy->read : nullptr);
        if (until_end && c->bytes == 0) break;  // the stream ended on a chunk boundary
        const bool last = until_end && c->bytes < cfg.chunk_bytes;
        to_compute.push(*c);
        if (last) break;
      }
    } catch (...) { fail(std::current_exception()); }
    to_compute.close();
  });
  std::thread computer([&] {
    try {
      while (auto c = to_compute.pop()) {
        if (stopped()) break;
        if (stages.compute) timed(stages.compute, *c, cfg.busy ? &cfg.busy->compute : nullptr);
        to_write.push(*c);
      }
    } catch (...) { fail(std::current_exception()); }
    to_write.close();
  });
  // The writer runs on the calling thread, helped by write_threads - 1 more.
  std::mutex progress_m;
  uint64_t done = 0;
  auto writer = [&] {
    try {
      while (auto c = to_write.pop()) {
        if (stopped()) break;
        double secs = 0;
        if (stages.write) timed(stages.write, *c, &secs);
        {
          std::lock_guard<std::mutex> l(progress_m);
          if (cfg.busy) cfg.busy->write += secs;
          done += until_end ? c->bytes : std::min<uint64_t>(cfg.chunk_bytes, cfg.total_bytes - c->offset);
          if (progress) progress({cfg.phase, done, shown_total});
        }
        free_slots.push(*c);
      }
    } catch (...) { fail(std::current_exception()); }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < cfg.write_threads; ++t) helpers.emplace_back(writer);
  writer();
  for (auto& h : helpers) h.join();
  free_slots.close();
  reader.join();
  computer.join();
  if (first_error) std::rethrow_exception(first_error);
  throw_if_cancelled(cfg.cancel);
}

}  // namespace gxsort::pipeline
