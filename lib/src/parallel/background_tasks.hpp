// A few background threads of their own that run submitted tasks in submission order,
// each with a future: work that goes on beside the caller's (the merge's read-ahead, so
// that the next block of every run is read while the merge walks the current one; the
// partition sort's stage writer; the next run read while one sorts). Not on the
// parallel_for pool: these tasks block on the disk, and their futures are awaited from
// inside parallel_for tasks, which must never wait for a task no thread has started.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace gxsort::parallel {

class BackgroundTasks {
 public:
  explicit BackgroundTasks(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { loop(); });
  }
  // Runs every task already submitted, then stops.
  ~BackgroundTasks() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  BackgroundTasks(const BackgroundTasks&) = delete;
  BackgroundTasks& operator=(const BackgroundTasks&) = delete;

  // The future holds the task's exception, if it throws.
  std::future<void> submit(std::function<void()> task) {
    std::packaged_task<void()> p(std::move(task));
    std::future<void> done = p.get_future();
    { std::lock_guard<std::mutex> l(m_); queue_.push_back(std::move(p)); }
    cv_.notify_one();
    return done;
  }

 private:
  void loop() {
    while (true) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;  // last: started once the members above exist
};

// Waits for every one of `tasks` (none still runs on what the caller frees next), then
// rethrows the first exception they held.
inline void wait_all(std::vector<std::future<void>>& tasks) {
  std::exception_ptr first;
  for (auto& t : tasks) {
    try {
      if (t.valid()) t.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace gxsort::parallel
