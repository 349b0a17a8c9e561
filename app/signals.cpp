#include "signals.hpp"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "gxsort/signals.hpp"

namespace gxsort::cli {
namespace {

constexpr int kCancelling[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};

// What the handlers touch: lock-free atomics and a semaphore (sem_post is
// async-signal-safe), nothing else.
CancelToken g_token;
std::atomic<int> g_signal{0};  // the first signal that came (0: none)
std::atomic<bool> g_at_once{false};
std::atomic<unsigned> g_linger_ms{0};
std::atomic<bool> g_note_written{false};
std::atomic<bool> g_ending{false};
std::atomic<bool> g_watchdog{false};  // running: it ends the process the old way
std::atomic<int> g_count{0};          // the signals that came
unsigned g_grace_ms = kSignalGraceMs;
sem_t g_signals_came;  // one post per signal: the watchdog counts them

// An in-place rewrite holds the end: the user is told why, once.
void note_held_end() {
  const char* note = process_exit_held_note();
  if (note && !g_note_written.exchange(true) && ::write(STDERR_FILENO, note, std::strlen(note)) < 0) {}
}

// Every temp file removed, a linger if asked, then dead of `sig` under its default
// action (async-signal-safe; begin_process_exit() was true).
void die_now(int sig) {
  remove_all_temps_now();
  if (const unsigned ms = g_linger_ms.load()) {
    struct timespec t{time_t(ms / 1000), long(ms % 1000) * 1000000L};
    while (::nanosleep(&t, &t) != 0 && errno == EINTR) {}
  }
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(sig);
}

// The old way: waits while an in-place rewrite runs, then dies of `sig`. One thread does
// it; another that gets here waits for the end.
[[noreturn]] void end_process(int sig) {
  if (g_ending.exchange(true))
    for (;;) ::pause();
  while (!begin_process_exit()) {
    note_held_end();
    struct timespec t{0, 10 * 1000000L};
    ::nanosleep(&t, nullptr);
  }
  die_now(sig);
  ::_exit(128 + sig);  // not reached: the default action of each of these signals ends the process
}

extern "C" void on_cancelling_signal(int sig) {
  const int saved_errno = errno;
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  if (!g_at_once.load()) g_token.cancel();
  note_held_end();
  const int count = g_count.fetch_add(1) + 1;
  if (g_watchdog.load()) {
    ::sem_post(&g_signals_came);
  } else if ((g_at_once.load() || count > 1) && !g_ending.exchange(true)) {
    // No watchdog (no thread could be made): a second signal ends the process from
    // here, unless a rewrite in place runs (then main ends it once the command returns).
    if (begin_process_exit()) die_now(sig);
    g_ending.store(false);
  }
  errno = saved_errno;
}

// Waits for the first signal, then for a second one or the grace, whichever comes first:
// a command still running then ends the old way.
void* watchdog(void*) {
  while (::sem_wait(&g_signals_came) != 0) {}
  if (!g_at_once.load()) {
    struct timespec deadline;
    ::clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += time_t(g_grace_ms / 1000);
    deadline.tv_nsec += long(g_grace_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec += 1, deadline.tv_nsec -= 1000000000L;
    while (::sem_clockwait(&g_signals_came, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {}
  }
  end_process(g_signal.load());
  return nullptr;
}

// A SIGBUS the mapping guard passed on (not a guarded mapping's fault, or kill -BUS): the
// temp files go, then the default action (a fault's load faults again; a sent signal is
// sent again).
extern "C" void on_unexplained_sigbus(int sig, siginfo_t* info, void*) {
  remove_all_temps_now();
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &dfl, nullptr);
  if (info->si_code <= 0) ::raise(sig);
}

void install(int sig, struct sigaction& sa) {
  struct sigaction old;
  // A signal ignored at start (nohup, a background job's SIGINT) stays ignored.
  if (::sigaction(sig, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) return;
  ::sigaction(sig, &sa, nullptr);
}

}  // namespace

const CancelToken* install_signal_handlers(unsigned grace_ms) {
  g_grace_ms = grace_ms;
  ::sem_init(&g_signals_came, 0, 0);
  pthread_t thread;
  if (::pthread_create(&thread, nullptr, watchdog, nullptr) == 0) {  // none: out of threads (on_cancelling_signal)
    ::pthread_detach(thread);
    g_watchdog.store(true);
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a signal does not turn a system call the library is in into a failure;
  // the token is how the command learns of it.
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_cancelling_signal;
  for (int sig : kCancelling) install(sig, sa);
  sa.sa_flags = SA_SIGINFO;
  sa.sa_sigaction = on_unexplained_sigbus;
  install(SIGBUS, sa);
  install_mapping_guard();  // after ours: what it does not explain comes to on_unexplained_sigbus
  return &g_token;
}

void end_at_once_on_signals(unsigned linger_ms) {
  g_linger_ms.store(linger_ms);
  g_at_once.store(true);
}

int signal_received() { return g_signal.load(); }

void end_if_signalled() {
  if (const int sig = g_signal.load()) end_process(sig);
}

}  // namespace gxsort::cli
