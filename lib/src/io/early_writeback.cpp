#include "io/early_writeback.hpp"

#include <fcntl.h>

#include <algorithm>

namespace gxsort::io {

namespace {
// Handed to the disk this much at a time, so that a stop waits for one call at most.
constexpr uint64_t kStep = uint64_t(64) << 20;
// Files waiting at most (each holds a descriptor of its own): past it, a file is left to
// the flusher, so that a disk far behind a sort of many small runs does not double the
// descriptors the runs hold.
constexpr size_t kMaxQueued = 8;
}  // namespace

EarlyWriteback::EarlyWriteback(uint64_t budget) : budget_(budget) {
  if (budget_) thread_ = parallel::OwnThread([this] { loop(); });
}

EarlyWriteback::~EarlyWriteback() {
  { std::lock_guard<std::mutex> l(m_); stop_ = true; }
  cv_.notify_all();
  thread_.join();
}

uint64_t EarlyWriteback::add(const File& f, uint64_t bytes) {
  std::lock_guard<std::mutex> l(m_);
  bytes = std::min(bytes, budget_);
  if (!bytes || stop_ || !f.is_open() || queue_.size() >= kMaxQueued) return 0;
  UniqueFd fd(::fcntl(f.fd(), F_DUPFD_CLOEXEC, 3));
  if (!fd) return 0;  // no descriptor left: the flusher writes it, as without this
  budget_ -= bytes;
  queue_.push_back({std::move(fd), bytes});
  cv_.notify_one();
  return bytes;
}

uint64_t EarlyWriteback::started() const {
  std::lock_guard<std::mutex> l(m_);
  return started_;
}

void EarlyWriteback::loop() {
  std::unique_lock<std::mutex> l(m_);
  while (true) {
    cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    for (uint64_t b = 0; b < item.bytes && !stop_; b += kStep) {
      const uint64_t n = std::min(kStep, item.bytes - b);
      l.unlock();
      // Blocks while the disk's queue is full; errors are the flusher's and the
      // merge's to meet (a run is read back from the page cache either way).
      const bool handed = ::sync_file_range(item.fd.get(), off_t(b), off_t(n), SYNC_FILE_RANGE_WRITE) == 0;
      l.lock();
      if (handed) started_ += n;
    }
  }
}

}  // namespace gxsort::io
