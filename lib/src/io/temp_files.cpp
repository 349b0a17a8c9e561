#include "io/temp_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "gxsort/error.hpp"
#include "gxsort/signals.hpp"
#include "gxsort/timeline.hpp"
#include "io/debris.hpp"
#include "io/safe_dir.hpp"
#include "io/space.hpp"

namespace gxsort {

// The directories noted (as given, and real paths) and the list of them in
// default_clean_dir, created at the first one.
struct DebrisList {
  std::mutex mu;
  std::set<std::string> seen;
  io::TempFile list;
};

std::shared_ptr<DebrisList> new_debris_list() { return std::make_shared<DebrisList>(); }

}  // namespace gxsort

namespace gxsort::io {
namespace {

constexpr int kSlots = 8192;
// Each slot holds a heap copy of a live temp file's path, or null. The copies are never
// freed: a signal handler on another thread may be unlinking one at any moment (a few
// hundred bytes per temp file of a run is the price).
// process-wide: remove_all_temps_now (async-signal-safe) unlinks every call's temp files.
std::atomic<char*> g_paths[kSlots];

int register_path(const std::string& path) {
  char* copy = ::strdup(path.c_str());
  for (int i = 0; i < kSlots; ++i) {
    char* expected = nullptr;
    if (g_paths[i].compare_exchange_strong(expected, copy)) return i;
  }
  std::free(copy);
  throw Error(ExitCode::io, "too many temporary files open at once (" + std::to_string(kSlots) + ")");
}

void unregister_slot(int slot) {
  if (slot >= 0) g_paths[slot].store(nullptr);
}

// Creating a temp file (registering its path, then creating the file) and the sweep of
// remove_all_temps_now (a front end's fatal-signal path) exclude each other. The sweep
// runs on one thread while the others go on: without this, a run writer could create its
// next run after the sweep and before the process dies, and leave it behind (seen once
// the sort got fast enough to create runs back to back). The sweep takes the lock for
// good, so nothing is created after it; in a handler on a thread interrupted while holding
// it, it does not wait: that thread never resumes, and its path, registered before the
// file was created, is swept.
// process-wide: the lock of the signal-safe sweep above, and whether this thread holds it.
std::atomic<bool> g_creating{false};
thread_local bool t_creating = false;

class CreationLock {
 public:
  CreationLock() {
    while (g_creating.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    t_creating = true;
  }
  ~CreationLock() {
    t_creating = false;
    g_creating.store(false, std::memory_order_release);
  }
  CreationLock(const CreationLock&) = delete;
  CreationLock& operator=(const CreationLock&) = delete;
};

std::atomic<bool> g_swept{false};  // process-wide: the lock is held for good: nothing is created any more

void unlink_all() {
  if (!t_creating && !g_swept.load())
    while (g_creating.exchange(true, std::memory_order_acquire)) {}
  g_swept.store(true);
  for (int i = 0; i < kSlots; ++i) {
    char* p = g_paths[i].load();
    if (p) ::unlink(p);
  }
}

// ProcessExitHeld and begin_process_exit: 0 free, 1 an in-place rewrite runs (the
// process must not end), 2 the process is ending (no rewrite may start).
enum : int { kExitFree = 0, kExitHeld = 1, kExitBegun = 2 };
// process-wide: the process's exit (a signal's handler) waits on a rewrite, and prints its note.
std::atomic<int> g_exit_state{kExitFree};
char g_held_note[2048];
std::atomic<bool> g_held_note_ready{false};

// This host's name up to its first dot, in letters, digits, '-' and '_' only: temp
// names stay parseable, and `gxsort clean` on a shared scratch directory judges only
// the files of its own host's processes.
std::string host_label() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  std::string h;
  for (const char* c = buf; *c && *c != '.' && h.size() < 32; ++c)
    h += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '_') ? *c : '_';
  return h.empty() ? "host" : h;
}

// The last part of a temp name: random, so that another user of a shared directory
// cannot plant the names this process will use (with a counter, names planted ahead
// for the next pids made every create fail: exit 3). 11 decimal digits at most:
// parse_temp_name (io/debris.cpp) takes fewer than 12.
unsigned long random_part() {
  uint64_t r = 0;
  ssize_t got;
  while ((got = ::getrandom(&r, sizeof r, 0)) < 0 && errno == EINTR) {}
  if (got != ssize_t(sizeof r)) {
    std::random_device device;  // no getrandom (an old kernel): /dev/urandom
    r = (uint64_t(device()) << 32) ^ device();
  }
  return static_cast<unsigned long>(r % 100000000000ULL);
}

}  // namespace

ProcessExitHeld::ProcessExitHeld(const std::string& note) {
  for (;;) {
    int state = kExitFree;
    if (g_exit_state.compare_exchange_strong(state, kExitHeld)) break;
    if (state == kExitBegun)  // the process is ending (its temp files are going): no rewrite starts
      for (;;) ::pause();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // another call's rewrite: one at a time
  }
  const std::string line = "gxsort: " + note + "\n";
  const size_t n = std::min(line.size(), sizeof g_held_note - 1);
  std::memcpy(g_held_note, line.data(), n);
  g_held_note[n] = '\0';
  g_held_note_ready.store(true);
}

ProcessExitHeld::~ProcessExitHeld() {
  g_held_note_ready.store(false);
  g_exit_state.store(kExitFree);
}

const std::string& this_host_label() {
  static const std::string label = host_label();
  return label;
}

std::string temp_name(const std::string& kind, long pid, unsigned long n) {
  return std::string(kTempPrefix) + this_host_label() + "." + std::to_string(pid) + "." + kind + "." + std::to_string(n) +
         kTempSuffix;
}

bool is_temp_file(const std::string& path) {
  for (int i = 0; i < kSlots; ++i) {
    const char* p = g_paths[i].load();
    if (p && path == p) return true;
  }
  return false;
}

TempFile TempFile::beside(const Context& context, const std::string& target, const std::string& kind) {
  TempFile t = create(context, directory_of(target), kind);
  t.file_.set_label(target);
  return t;
}

std::string default_clean_dir(const Context& context) { return context.temp_dir_or_tmp(); }

void note_debris_dir(const Context& context, const std::string& dir) {
  if (!context.debris_list) return;  // the front end keeps no list
  std::set<std::string>& seen = context.debris_list->seen;
  TempFile& list = context.debris_list->list;
  std::lock_guard<std::mutex> lock(context.debris_list->mu);
  if (!seen.insert(dir.empty() ? "." : dir).second) return;
  char* real = ::realpath(dir.empty() ? "." : dir.c_str(), nullptr);
  if (!real) return;
  std::string path = real;
  std::free(real);
  // A job directory's files are found with it: the directory that holds it is listed.
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && path.compare(slash + 1, std::strlen(kJobPrefix), kJobPrefix) == 0)
    path = slash ? path.substr(0, slash) : "/";
  char* home = ::realpath(default_clean_dir(context).c_str(), nullptr);
  const bool at_home = home && path == home;
  std::free(home);
  if (at_home || !seen.insert("real:" + path).second) return;
  try {
    if (!list.file().is_open()) list = TempFile::create_unlisted(default_clean_dir(context), kDirsKind);
    // NUL-terminated: a directory's name may hold a newline, never a NUL
    // (io::parse_dirs_list reads it).
    const std::string entry = path + '\0';
    list.file().write_at(entry.data(), entry.size(), list.file().size());
  } catch (const Error&) {
    // Not writable: clean finds these directories with -T only.
  }
}

void test_stop_at(const Context& context, const std::string& point, bool every_time) {
  if (context.test.stop_at) context.test.stop_at(point, every_time);
}

TempFile TempFile::create(const Context& context, const std::string& dir, const std::string& kind) {
  note_debris_dir(context, dir);
  TempFile t = create_unlisted(dir, kind);
  test_stop_at(context, kind);  // out of create_unlisted's CreationLock: a signal's sweep needs it
  return t;
}

TempFile TempFile::create_unlisted(const std::string& dir, const std::string& kind) {
  // A name that exists (planted by someone, or a one in 10^11 chance) is never ours:
  // another random name is tried, so many times that only a directory refusing every
  // name ends it.
  for (int attempt = 0;; ++attempt) {
    std::string path = (dir.empty() ? std::string(".") : dir) + "/" + temp_name(kind, long(::getpid()), random_part());
    TempFile t;
    CreationLock lock;
    // Register first, so a signal arriving between create and register cannot leak the file.
    t.slot_ = register_path(path);
    t.path_ = path;
    try {
      t.file_ = File::create_new(path);
      return t;
    } catch (const Error&) {
      const int err = errno;
      t.unregister();
      t.path_.clear();  // not ours: the destructor must not unlink what another process made
      if (err == EEXIST && attempt < 10000) continue;
      throw;
    }
  }
}

TempFile::TempFile(TempFile&& o) noexcept
    : file_(std::move(o.file_)), path_(std::move(o.path_)), slot_(o.slot_), kept_if_cancelled_(o.kept_if_cancelled_) {
  o.slot_ = -1;
  o.path_.clear();
}

TempFile& TempFile::operator=(TempFile&& o) noexcept {
  if (this != &o) {
    try { remove(); } catch (...) {}
    file_ = std::move(o.file_);
    path_ = std::move(o.path_);
    slot_ = o.slot_;
    kept_if_cancelled_ = o.kept_if_cancelled_;
    o.slot_ = -1;
    o.path_.clear();
  }
  return *this;
}

TempFile::~TempFile() {
  if (kept_if_cancelled_ && kept_if_cancelled_->cancelled()) path_.clear();  // a job's piece, left for --resume
  try { remove(); } catch (...) {}
}

void TempFile::unregister() {
  unregister_slot(slot_);
  slot_ = -1;
}

void TempFile::remove() {
  if (slot_ < 0 && path_.empty()) return;
  if (file_.is_open()) {
    try { file_.close(); } catch (...) {}
  }
  if (!path_.empty()) ::unlink(path_.c_str());
  unregister();
  path_.clear();
}

void TempFile::commit_rename(const std::string& target, bool sync, const Context& context) {
  timeline(context, "output's rename begins");
  if (sync) file_.sync();
  file_.close();
  timeline(context, "output closed");
  // An existing target is swapped with this file, and its old content (now under this
  // file's name) unlinked: a rename over an existing file makes ext4 (auto_da_alloc)
  // start the writeback of all of this file's dirty pages inside the rename, which an
  // unsynced output (--no-fsync) was asked not to wait for (1 GiB on the 2-core VM:
  // rename 1.3-2.6 s, exchange under 1 ms; the unlink of the old content costs the
  // same either way). Either name always holds a whole file. Only a regular file is
  // swapped (a directory put at the target meanwhile must make the rename fail, not move
  // away). Where the file system cannot exchange, or there is no target, a plain rename.
  struct stat st;
  const bool regular = ::lstat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (regular && ::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    ::unlink(path_.c_str());  // should it fail, a temp file `gxsort clean` removes
  } else if (::rename(path_.c_str(), target.c_str()) != 0) {
    int err = errno;
    remove();
    fail_errno(target, "cannot rename the finished output into place", err);
  }
  unregister();
  path_.clear();
}

void TempFile::move_to(const std::string& target) {
  if (::rename(path_.c_str(), target.c_str()) != 0) fail_errno(target, "cannot rename into place", errno);
  // The slot now names the target (the handler unlinks whichever it reads: the old
  // name is gone, so unlinking it would be harmless).
  if (slot_ >= 0) g_paths[slot_].store(::strdup(target.c_str()));
  path_ = target;
}

void TempFile::keep_on_signals(const CancelToken* cancel) {
  unregister();
  kept_if_cancelled_ = cancel;
}

TempFile TempFile::adopt(int dir, const std::string& name, const std::string& path) {
  const int fd = open_own_file_at(dir, name, O_RDWR);
  if (fd < 0) throw Error(ExitCode::io, own_file_refusal(dir, name, path, "cannot open for writing", errno));
  TempFile t;
  t.file_ = File::adopt_fd(fd, path);
  t.path_ = path;
  return t;
}

std::string TempFile::release() {
  file_.close();
  unregister();
  std::string p = path_;
  path_.clear();
  return p;
}

}  // namespace gxsort::io

namespace gxsort {

void remove_all_temps_now() noexcept { io::unlink_all(); }

bool begin_process_exit() noexcept {
  int free_state = io::kExitFree;
  return io::g_exit_state.compare_exchange_strong(free_state, io::kExitBegun) || free_state == io::kExitBegun;
}

const char* process_exit_held_note() noexcept {
  return io::g_held_note_ready.load() ? io::g_held_note : nullptr;
}

}  // namespace gxsort
