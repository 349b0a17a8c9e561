// A thread of its own, for work that runs beside the caller's and blocks (a journal's
// fsyncs, an input unmapped while the output syncs, runs hashed while they are merged, a
// pipeline stage): started by the constructor, joined by join() or the destructor.
// Every thread gxsort starts is started in this folder (tools/check-library.sh), here or
// by the pool of parallel_for.hpp and BackgroundTasks, so none escapes their rules: the
// work a split does runs on the pool, and blocking work on threads of its own.
#pragma once
#include <thread>
#include <utility>

namespace gxsort::parallel {

class OwnThread {
 public:
  OwnThread() = default;
  template <class Fn>
  explicit OwnThread(Fn&& fn) : thread_(std::forward<Fn>(fn)) {}
  ~OwnThread() { join(); }
  OwnThread(OwnThread&&) = default;
  OwnThread& operator=(OwnThread&& other) {
    join();
    thread_ = std::move(other.thread_);
    return *this;
  }
  bool running() const { return thread_.joinable(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

// Starts fn on a thread nobody joins: for work whose last call may block long after its
// owner is gone (a write-behind's writeback call while the disk's queue is full); fn
// must own everything it touches.
template <class Fn>
void start_detached(Fn&& fn) {
  std::thread(std::forward<Fn>(fn)).detach();
}

}  // namespace gxsort::parallel
