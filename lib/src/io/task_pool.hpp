// A few background threads that run submitted tasks in submission order: the merge's
// read-ahead, so that the next block of every run is read (from the disk, or copied
// from the page cache) while the merge walks the current one.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace gxsort::io {

class TaskPool {
 public:
  explicit TaskPool(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { loop(); });
  }
  // Runs every task already submitted, then stops.
  ~TaskPool() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

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

}  // namespace gxsort::io
