#include "parallel/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "platform/sizes.hpp"

namespace gxsort::parallel {
namespace {

// One parallel_for call: its tasks are claimed by index, by the caller and by the pool
// threads that answer its requests for help. It lives on the caller's stack; the pool
// touches it only between taking a request and leaving run_tasks (counted in
// `helping`), and the caller returns only once no request is queued and none is helping.
struct Split {
  Split(size_t tasks, const std::function<void(size_t)>& fn) : tasks(tasks), fn(fn) {}

  // Claims and runs tasks until none is left; the first exception stops the claiming.
  void run_tasks() {
    try {
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) fn(i);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
      next.store(tasks, std::memory_order_relaxed);  // the others stop after their current task
    }
  }

  const size_t tasks;
  const std::function<void(size_t)>& fn;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // the first, written by whoever set `failed`

  // Under the pool's mutex:
  unsigned wanted = 0;   // requests for help still queued
  unsigned helping = 0;  // pool threads inside run_tasks
  std::condition_variable helpers_left;
};

class Pool {
 public:
  // Started at first use and never destroyed: a pool thread may still be asleep in it
  // when exit() runs static destructors, and nothing needs joining at exit.
  static Pool& instance() {
    // process-wide: a cache of threads; a call's tasks are its own and leave nothing in it.
    static Pool* pool = new Pool(default_threads());
    return *pool;
  }

  // Runs the job on the caller and on up to `helpers` pool threads; returns when every
  // task has ended or been skipped.
  void run(Split& job, unsigned helpers) {
    {
      std::lock_guard<std::mutex> l(m_);
      job.wanted = helpers;
      queue_.push_back(&job);
    }
    if (helpers == 1) work_.notify_one();
    else work_.notify_all();
    job.run_tasks();
    // Every task is claimed: withdraw the requests no thread took, wait for the helpers
    // still running a task (a helper waits only for splits nested in its own task, never
    // for us, so this cannot deadlock).
    std::unique_lock<std::mutex> l(m_);
    if (job.wanted > 0) queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
    job.helpers_left.wait(l, [&] { return job.helping == 0; });
  }

 private:
  explicit Pool(unsigned threads) {
    try {
      for (unsigned t = 0; t < threads; ++t) std::thread([this] { serve(); }).detach();
    } catch (const std::system_error&) {
      // The system refused a thread: the ones started serve, the callers do the rest.
    }
  }

  // A pool thread: helps the oldest job that asks for help, forever.
  void serve() {
    std::unique_lock<std::mutex> l(m_);
    for (;;) {
      work_.wait(l, [&] { return !queue_.empty(); });
      Split& job = *queue_.front();
      if (--job.wanted == 0) queue_.pop_front();
      ++job.helping;
      l.unlock();
      job.run_tasks();
      l.lock();
      // Notified under the mutex: once it is released the caller may return and the
      // job (its condition variable included) is gone.
      if (--job.helping == 0) job.helpers_left.notify_one();
    }
  }

  std::mutex m_;
  std::condition_variable work_;
  std::deque<Split*> queue_;  // jobs that want help, oldest first
};

}  // namespace

void parallel_for(size_t tasks, unsigned threads, const std::function<void(size_t)>& fn) {
  threads = unsigned(std::min<size_t>(std::max(threads, 1u), tasks));
  if (threads <= 1) {
    for (size_t i = 0; i < tasks; ++i) fn(i);
    return;
  }
  Split job(tasks, fn);
  Pool::instance().run(job, threads - 1);
  if (job.error) std::rethrow_exception(job.error);
}

Range part_range(size_t n, unsigned parts, unsigned part) {
  parts = std::max(parts, 1u);
  const size_t base = n / parts, longer = n % parts;  // the first `longer` parts hold one more
  const size_t begin = part * base + std::min<size_t>(part, longer);
  return {begin, begin + base + (part < longer ? 1 : 0)};
}

void parallel_for_ranges(size_t n, unsigned parts, const std::function<void(size_t, size_t, unsigned)>& fn) {
  parts = std::max(parts, 1u);
  const unsigned threads = unsigned(std::min<size_t>(parts, std::max<size_t>(n, 1)));  // none for empty parts
  parallel_for(parts, threads, [&](size_t part) {
    const Range r = part_range(n, parts, unsigned(part));
    fn(r.begin, r.end, unsigned(part));
  });
}

}  // namespace gxsort::parallel
