// Early writeback of temp files: starts the writeback (sync_file_range WRITE) of whole
// files on one background thread, in the order they were added, up to a byte budget,
// and stops when its owner ends. For run formation whose runs are more than the page
// cache keeps dirty before the kernel's flusher starts (dirty_background_*): the disk,
// idle while runs form, writes the first of them then, so that the flusher does not write
// them later while the disk is busy with the synced output (docs/out-of-core.md).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

#include "io/file.hpp"
#include "io/unique_fd.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort::io {

class EarlyWriteback {
 public:
  explicit EarlyWriteback(uint64_t budget);
  // Stops: what is not handed to the disk yet stays dirty; waits for the current call.
  ~EarlyWriteback();
  EarlyWriteback(const EarlyWriteback&) = delete;
  EarlyWriteback& operator=(const EarlyWriteback&) = delete;
  // The first `bytes` of f (written): queued while the budget lasts. Returns the bytes
  // queued (the budget left, at most; 0 after it is spent, without a descriptor, or while
  // 8 files wait: the rest is the flusher's).
  uint64_t add(const File& f, uint64_t bytes);
  uint64_t started() const;  // bytes handed to the disk so far

 private:
  void loop();
  struct Item {
    UniqueFd fd;  // a descriptor of its own: the file may be closed meanwhile
    uint64_t bytes;
  };
  uint64_t budget_;  // bytes not queued yet
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  uint64_t started_ = 0;
  bool stop_ = false;
  parallel::OwnThread thread_;  // last: started once the rest is built
};

}  // namespace gxsort::io
