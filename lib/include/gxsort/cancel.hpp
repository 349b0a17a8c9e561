// Cancellation of a running library call by a front end: the CLI's signal handler, a
// Python KeyboardInterrupt, another thread. The caller owns the token and passes its
// address (EngineOptions::cancel, MemoryOptions::cancel); the engine looks at it at
// chunk, run, window and phase boundaries (never per record) and throws Cancelled.
#pragma once
#include <atomic>

#include "gxsort/error.hpp"

namespace gxsort {

class CancelToken {
 public:
  // A lock-free store: safe in a signal handler (C++17 [support.signal]).
  void cancel() noexcept { flag_.store(true, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return flag_.load(std::memory_order_relaxed); }
  // For a token reused by the next call (a front end's, after it handled the last one).
  void reset() noexcept { flag_.store(false, std::memory_order_relaxed); }

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler must be able to set the token");
  std::atomic<bool> flag_{false};
};

// The engine's poll: one relaxed load; throws Cancelled when the token is set.
inline void throw_if_cancelled(const CancelToken* token) {
  if (token && token->cancelled()) throw Cancelled();
}

}  // namespace gxsort
