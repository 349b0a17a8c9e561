#include "io/debris.hpp"

#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "io/output.hpp"
#include "io/safe_dir.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"

namespace gxsort::io {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 12 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t e; (e = s.find('.', b)) != std::string::npos; b = e + 1) parts.push_back(s.substr(b, e - b));
  parts.push_back(s.substr(b));
  return parts;
}

}  // namespace

bool parse_temp_name(const std::string& name, std::string& host, long& pid, std::string* kind) {
  const std::string suffix = kTempSuffix;
  if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  const std::string stem = name.substr(0, name.size() - suffix.size());
  const std::string prefix = kTempPrefix;
  if (stem.compare(0, prefix.size(), prefix) == 0) {
    // .gxsort.<host>.<pid>.<kind>.<n>
    const auto p = split_dots(stem.substr(prefix.size()));
    if (p.size() != 4 || p[0].empty() || !all_digits(p[1]) || p[2].empty() || !all_digits(p[3])) return false;
    host = p[0];
    pid = std::stol(p[1]);
    if (kind) *kind = p[2];
    return true;
  }
  // Earlier gxsort: [.]gxsort-<kind>.<pid>.<n>, and run-NNNNNN.<pid>.<n> in a runs directory.
  const auto p = split_dots(stem[0] == '.' ? stem.substr(1) : stem);
  if (p.size() != 3 || !all_digits(p[1]) || !all_digits(p[2])) return false;
  if (p[0].rfind("gxsort-", 0) != 0 && !(p[0].rfind("run-", 0) == 0 && all_digits(p[0].substr(4)))) return false;
  host.clear();
  pid = std::stol(p[1]);
  return true;
}

bool TempEntry::own() const { return uid == ::geteuid(); }

bool process_alive(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }

namespace {

// A directory the caller named (a -T directory, one in the caller's own list): links
// are followed there, as the caller asked; nothing below it is reached through a link.
UniqueFd open_named_dir(const std::string& dir) {
  return UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC));
}

// The directory of `path` (opened as open_named_dir does), and its last component in `name`.
UniqueFd open_parent(const std::string& path, std::string& name) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  name = p.substr(p.find_last_of('/') + 1);  // npos + 1 == 0: a bare name
  if (name.empty() || name == "." || name == "..") {
    errno = EINVAL;
    return UniqueFd();
  }
  return open_named_dir(directory_of(p));
}

enum class LockState { free, held, unknown };

// Whether a process holds the flock of `name` in `dir`. Only a regular file is opened
// (no link followed, never blocking): gxsort locks nothing else, so a link, a FIFO or a
// device of that name holds no lock of a job. `taken`, when given, keeps the lock taken
// (and `st` says which file holds it).
LockState lock_state_at(int dir, const std::string& name, UniqueFd* taken = nullptr, struct stat* st = nullptr) {
  struct stat s;
  if (::fstatat(dir, name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? LockState::free : LockState::unknown;
  if (!S_ISREG(s.st_mode)) return LockState::free;
  UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return errno == ENOENT || errno == ELOOP ? LockState::free : LockState::unknown;
  if (::fstat(fd.get(), &s) != 0) return LockState::unknown;
  if (!S_ISREG(s.st_mode)) return LockState::free;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return errno == EWOULDBLOCK ? LockState::held : LockState::unknown;
  if (st) *st = s;
  if (taken) *taken = std::move(fd);
  return LockState::free;
}

// Reads the regular file `name` in `dir` (no link followed; a FIFO or a device is never
// opened) when it is the caller's (anyone's when `any_owner`) and holds at most `max`
// bytes. `st`: the file read.
bool read_file_at(int dir, const std::string& name, bool any_owner, size_t max, std::string& text, struct stat& st) {
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return false;
  const UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || (!any_owner && st.st_uid != ::geteuid()))
    return false;
  text.clear();
  char buf[4096];
  for (ssize_t n; (n = ::read(fd.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    text.append(buf, size_t(n));
    if (text.size() > max) return false;
  }
  return true;
}

// Deeper trees than gxsort makes (a staged command's job directory holds its sorts'
// job directories) are not measured further.
constexpr int kMaxTreeDepth = 8;

// What a directory's files take on the disk; links not followed.
uint64_t tree_bytes(int dir, int depth = 0) {
  uint64_t bytes = 0;
  std::vector<std::string> names;
  if (depth > kMaxTreeDepth || !entry_names(dir, names)) return 0;
  for (const std::string& n : names) {
    struct stat st;
    if (::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISREG(st.st_mode)) bytes += uint64_t(st.st_blocks) * 512;
    if (!S_ISDIR(st.st_mode)) continue;
    const UniqueFd sub(open_dir_at(dir, n));
    if (sub) bytes += tree_bytes(sub.get(), depth + 1);
  }
  return bytes;
}

// The job directory `name` in `parent`'s output beside its target, from its `output`
// file (the output's key, io::output_key): only when both are the caller's.
std::string job_output_at(int parent, const std::string& name) {
  const UniqueFd dir(open_dir_at(parent, name));
  struct stat st;
  std::string key;
  if (!dir || ::fstat(dir.get(), &st) != 0 || st.st_uid != ::geteuid() ||
      !read_file_at(dir.get(), "output", false, 64 << 10, key, st) || key.empty() || key[0] != '/')
    return "";
  return directory_of(key) + "/" + name + ".out";
}

std::string cannot_remove(int err) { return std::string("cannot remove: ") + std::strerror(err); }

// Removes the job directory `name` in `parent` through its descriptor: its lock taken
// first (never a live job's), then its entries, then the directory. `judged`: the entry
// as find_temp_files saw it, to be the one removed. "" when it is gone, else why not.
std::string remove_job_dir_at(int parent, const std::string& name, bool any_owner, const TempEntry* judged) {
  const UniqueFd dir(open_dir_at(parent, name));
  struct stat st;
  if (!dir) return errno == ENOENT ? "" : errno == ELOOP || errno == ENOTDIR ? "not a directory now" : cannot_remove(errno);
  if (::fstat(dir.get(), &st) != 0) return cannot_remove(errno);
  if (judged && (st.st_dev != judged->dev || st.st_ino != judged->ino)) return "another entry of that name now";
  if (!any_owner && st.st_uid != ::geteuid()) return "owned by " + user_name(st.st_uid);
  UniqueFd lock;
  const LockState state = lock_state_at(dir.get(), "lock", &lock);
  if (state == LockState::held) return "a running job's";
  if (state == LockState::unknown) return "its lock cannot be read";
  if (const size_t left = remove_own_entries(dir.get(), "", any_owner))
    return std::to_string(left) + " of its entries could not be removed (another user's, or not writable)";
  // rmdir removes an empty directory only, but the name must still be the one emptied.
  struct stat now;
  if (::fstatat(parent, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? "" : cannot_remove(errno);
  if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) return "another entry of that name now";
  if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) return cannot_remove(errno);
  return "";
}

}  // namespace

bool file_is_unlocked(const std::string& path) {
  std::string name;
  const UniqueFd parent = open_parent(path, name);
  return !parent || lock_state_at(parent.get(), name) != LockState::held;
}

bool job_dir_is_stale(const std::string& dir) {
  std::string name;
  const UniqueFd parent = open_parent(dir, name);
  const UniqueFd job(parent ? open_dir_at(parent.get(), name) : -1);
  return !job || lock_state_at(job.get(), "lock") != LockState::held;
}

bool remove_job_dir(const std::string& dir) {
  std::string name;
  const UniqueFd parent = open_parent(dir, name);
  return parent && remove_job_dir_at(parent.get(), name, false, nullptr).empty();
}

void remove_dir_files(const std::string& dir, const std::string& keep, bool and_dir) {
  std::string name;
  const UniqueFd parent = open_parent(dir, name);
  const UniqueFd d(parent ? open_dir_at(parent.get(), name) : -1);
  if (!d) return;
  // A job's directory holds files, and the job directories of the sorts a staged
  // command runs inside it (resume/staged_job.hpp): those go with it.
  const size_t left = remove_own_entries(d.get(), keep);
  if (and_dir && left == 0) ::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR);  // a link there: ENOTDIR
}

std::string job_output_of(const std::string& job_dir) {
  std::string name;
  const UniqueFd parent = open_parent(job_dir, name);
  return parent ? job_output_at(parent.get(), name) : "";
}

std::vector<std::string> parse_dirs_list(const std::string& text) {
  // A list of an earlier gxsort holds no NUL: one path a line.
  const char sep = text.find('\0') == std::string::npos ? '\n' : '\0';
  std::vector<std::string> dirs;
  size_t b = 0;
  for (size_t e; (e = text.find(sep, b)) != std::string::npos; b = e + 1) {
    const std::string d = text.substr(b, e - b);  // an entry without its end was cut short: left out
    if (!d.empty() && d[0] == '/' && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  return dirs;
}

std::vector<std::string> listed_debris_dirs(const std::vector<TempEntry>& entries, bool any_owner) {
  std::vector<std::string> dirs;
  for (const TempEntry& t : entries) {
    if (!t.stale || t.kind != kDirsKind || !t.dir || !(any_owner || t.own())) continue;
    std::string text;
    struct stat st;
    if (!read_file_at(t.dir->get(), t.name, any_owner, 16 << 20, text, st) || st.st_dev != t.dev || st.st_ino != t.ino)
      continue;  // not the list judged: a list that changes is a live process's
    for (const std::string& d : parse_dirs_list(text))
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  return dirs;
}

std::string remove_temp_entry(const TempEntry& t, bool any_owner) {
  if (!t.kept_target.empty()) return "the complete output of an in-place rewrite: never removed";
  if (!any_owner && !t.own()) return "owned by " + user_name(t.uid);
  if (!t.dir) return "not found";
  const int dir = t.dir->get();
  if (t.job_dir) return remove_job_dir_at(dir, t.name, any_owner, &t);
  struct stat st;
  if (::fstatat(dir, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? "" : cannot_remove(errno);
  if (st.st_dev != t.dev || st.st_ino != t.ino) return "another entry of that name now";
  UniqueFd lock;  // a job's output is locked while its job runs: held while it goes
  if (t.job_output) {
    const LockState state = lock_state_at(dir, t.name, &lock, &st);
    if (state != LockState::free) return state == LockState::held ? "a running job's" : "its lock cannot be read";
    if (!lock || st.st_dev != t.dev || st.st_ino != t.ino) return "another entry of that name now";
  }
  if (::unlinkat(dir, t.name.c_str(), 0) != 0 && errno != ENOENT) return cannot_remove(errno);
  return "";
}

namespace {

// One entry of a searched directory, if it is gxsort's: false when it is not. Its name
// decides first; then what it is (no link followed): a regular file, or a directory for a
// job's. Nothing else is opened, and that without blocking.
bool debris_entry(const std::shared_ptr<const UniqueFd>& dir, const std::string& dir_path, const std::string& name,
                  TempEntry& t) {
  t.path = (dir_path == "/" ? "" : dir_path) + "/" + name;
  const bool job = name.rfind(kJobPrefix, 0) == 0;
  t.kept_target = job ? "" : kept_output_target(t.path);
  if (!job && t.kept_target.empty() && !parse_temp_name(name, t.host, t.pid, &t.kind)) return false;
  struct stat st;
  if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  t.job_dir = job && S_ISDIR(st.st_mode);
  if (!S_ISREG(st.st_mode) && !t.job_dir) return false;  // a link, a FIFO, a device: not gxsort's
  t.name = name;
  t.dir = dir;
  t.dev = st.st_dev;
  t.ino = st.st_ino;
  t.uid = st.st_uid;
  t.bytes = uint64_t(st.st_blocks) * 512;  // what it holds on the disk (runs are punched as read)
  t.job_output = job && !t.job_dir;
  if (t.job_dir) {
    // Measured and probed through its own descriptor: the entry judged, not a link.
    const UniqueFd fd(open_dir_at(dir->get(), name));
    if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_dev != t.dev || st.st_ino != t.ino) return false;
    t.bytes = tree_bytes(fd.get());
    t.stale = lock_state_at(fd.get(), "lock") != LockState::held;
  } else if (job || !t.kept_target.empty()) {
    t.stale = lock_state_at(dir->get(), name) != LockState::held;  // locked while its job or rewrite runs
  } else {
    t.stale = (t.host.empty() || t.host == this_host_label()) && !process_alive(t.pid);
  }
  return true;
}

void search_dir(const std::string& dir, std::set<std::pair<dev_t, ino_t>>& seen, std::vector<TempEntry>& found) {
  auto fd = std::make_shared<const UniqueFd>(open_named_dir(dir));
  struct stat ds;
  std::vector<std::string> names;
  if (!*fd || ::fstat(fd->get(), &ds) != 0 || !seen.insert({ds.st_dev, ds.st_ino}).second || !entry_names(fd->get(), names))
    return;  // missing, or named twice: listed once
  for (const std::string& n : names) {
    TempEntry t;
    if (debris_entry(fd, dir, n, t)) found.push_back(std::move(t));
  }
}

// A job's output lies beside its target, maybe in a directory not searched: found
// through the caller's job directories.
void add_job_outputs(std::vector<TempEntry>& found) {
  std::set<std::pair<dev_t, ino_t>> listed;
  for (const TempEntry& t : found) listed.insert({t.dev, t.ino});
  const size_t searched = found.size();
  for (size_t i = 0; i < searched; ++i) {
    if (!found[i].job_dir || !found[i].own()) continue;
    const std::string out = job_output_at(found[i].dir->get(), found[i].name);
    std::string name;
    if (out.empty()) continue;
    const auto fd = std::make_shared<const UniqueFd>(open_parent(out, name));
    TempEntry t;
    if (*fd && debris_entry(fd, directory_of(out), name, t) && listed.insert({t.dev, t.ino}).second) found.push_back(std::move(t));
  }
}

}  // namespace

std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs) {
  std::vector<TempEntry> found;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const std::string& dir : dirs) search_dir(dir, seen, found);
  add_job_outputs(found);
  std::sort(found.begin(), found.end(), [](const TempEntry& a, const TempEntry& b) { return a.path < b.path; });
  return found;
}

}  // namespace gxsort::io
