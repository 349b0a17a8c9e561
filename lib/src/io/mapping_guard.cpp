#include "io/mapping_guard.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "gxsort/error.hpp"
#include "gxsort/signals.hpp"

namespace gxsort::io {
namespace {

// A fixed table a signal handler can read: begin is claimed first (0 = free), end set
// after (0 = not ready).
constexpr int kSlots = 256;
// process-wide: the SIGBUS handler (the process's) reads it: fixed slots, no lock.
std::atomic<uintptr_t> g_begin[kSlots];
std::atomic<uintptr_t> g_end[kSlots];
std::atomic<uint64_t> g_dev[kSlots], g_ino[kSlots];
// Files whose mappings faulted (dev, ino + 1; 0 = free).
constexpr int kFaults = 64;
// process-wide: the SIGBUS handler writes it; each mapping's owner reads and clears its own.
std::atomic<uint64_t> g_fault_dev[kFaults], g_fault_ino[kFaults];
std::atomic<bool> g_any_fault{false};

void record_fault(uint64_t dev, uint64_t ino) {
  g_any_fault.store(true);
  for (int i = 0; i < kFaults; ++i) {
    uint64_t expected = 0;
    if (g_fault_ino[i].load() == ino + 1 && g_fault_dev[i].load() == dev) return;
    if (g_fault_ino[i].compare_exchange_strong(expected, ino + 1)) {
      g_fault_dev[i].store(dev);
      return;
    }
  }
}

// The handler that was there before install_mapping_guard: what a SIGBUS the guard
// does not explain goes to.
// process-wide: a signal's action is the process's.
struct sigaction g_previous;

// Passes a SIGBUS on to the previous handler; under the default action (or none), the
// guard steps aside: a fault's load then faults again and takes it, a sent signal is
// sent again.
void pass_on(int sig, siginfo_t* info, void* context) {
  const bool with_info = g_previous.sa_flags & SA_SIGINFO;
  if (with_info && g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, context);
  if (!with_info && g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) return g_previous.sa_handler(sig);
  ::sigaction(SIGBUS, &g_previous, nullptr);
  if (info->si_code <= 0) ::raise(sig);
}

extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0; info->si_code > 0 && i < kSlots; ++i) {  // a fault (si_code > 0), not kill -BUS
    // begin read again after end: a slot freed and taken again in between is skipped.
    const uintptr_t b = g_begin[i].load(), e = g_end[i].load();
    if (b == 0 || e == 0 || a < b || a >= e || g_begin[i].load() != b) continue;
    // The rest of the mapping from the faulting page reads as zeros: one fault per
    // mapping, not one per page of a file truncated by gigabytes.
    const uintptr_t page = a & ~uintptr_t(4095);
    void* p = ::mmap(reinterpret_cast<void*>(page), e - page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) break;
    record_fault(g_dev[i].load(), g_ino[i].load());
    return;  // the faulting load runs again and reads a zero
  }
  pass_on(sig, info, context);
}

}  // namespace

void guard_mapping(const void* begin, size_t bytes, uint64_t dev, uint64_t ino) {
  if (!begin || bytes == 0) return;
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    if (g_begin[i].compare_exchange_strong(expected, b)) {
      g_dev[i].store(dev);
      g_ino[i].store(ino);
      g_end[i].store(b + bytes);
      return;
    }
  }
  throw Error(ExitCode::io, "internal: more than " + std::to_string(kSlots) + " input mappings at once");
}

void unguard_mapping(const void* begin) {
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  if (b == 0) return;
  for (int i = 0; i < kSlots; ++i)
    if (g_begin[i].load() == b && g_end[i].load() != 0) {
      g_end[i].store(0);
      g_begin[i].store(0);
      return;
    }
}

bool mapping_fault_seen(uint64_t dev, uint64_t ino) {
  for (int i = 0; i < kFaults; ++i)
    if (g_fault_ino[i].load() == ino + 1 && g_fault_dev[i].load() == dev) return true;
  return false;
}

bool any_mapping_fault() { return g_any_fault.load(); }

void forget_mapping_faults(uint64_t dev, uint64_t ino) {
  bool any = false;
  for (int i = 0; i < kFaults; ++i) {
    if (g_fault_ino[i].load() == ino + 1 && g_fault_dev[i].load() == dev) g_fault_ino[i].store(0);
    any = any || g_fault_ino[i].load() != 0;
  }
  g_any_fault.store(any);
}

}  // namespace gxsort::io

namespace gxsort {

void install_mapping_guard() {
  static std::once_flag once;  // process-wide: the SIGBUS handler is the process's, installed once
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = io::on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &io::g_previous);
  });
}

}  // namespace gxsort
