#include "io/debris.hpp"

#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "io/output.hpp"
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

bool file_is_unlocked(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // gone, or no lock file: a job that never started
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free;
}

bool job_dir_is_stale(const std::string& dir) { return file_is_unlocked(dir + "/lock"); }

bool remove_job_dir(const std::string& dir) {
  const int fd = ::open((dir + "/lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return false;  // a process took the job meanwhile
  }
  remove_dir_files(dir);
  if (fd >= 0) ::close(fd);
  return ::rmdir(dir.c_str()) == 0;
}

void remove_dir_files(const std::string& dir, const std::string& keep, bool and_dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name, path = dir + "/" + n;
      if (n == "." || n == ".." || n == keep) continue;
      // A job's directory holds files, and the job directories of the sorts a staged
      // command runs inside it (resume/staged_job.hpp): those go with it.
      struct stat st;
      if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) remove_dir_files(path, "", true);
      else ::unlink(path.c_str());
    }
    ::closedir(d);
  }
  if (and_dir) ::rmdir(dir.c_str());
}

bool process_alive(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }

namespace {

// A job directory's files, on the disk.
uint64_t tree_bytes(const std::string& dir) {
  uint64_t bytes = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      struct stat st;
      if (n == "." || n == ".." || ::lstat((dir + "/" + n).c_str(), &st) != 0) continue;
      if (S_ISREG(st.st_mode)) bytes += uint64_t(st.st_blocks) * 512;
      if (S_ISDIR(st.st_mode)) bytes += tree_bytes(dir + "/" + n);  // a staged job's inner jobs
    }
    ::closedir(d);
  }
  return bytes;
}

}  // namespace

std::string job_output_of(const std::string& job_dir) {
  std::ifstream f(job_dir + "/output");
  std::string output;
  if (!std::getline(f, output) || output.empty() || output[0] != '/') return "";
  const size_t slash = job_dir.find_last_of('/');
  const std::string name = slash == std::string::npos ? job_dir : job_dir.substr(slash + 1);
  return directory_of(output) + "/" + name + ".out";
}

std::vector<std::string> listed_debris_dirs(const std::vector<TempEntry>& entries) {
  std::vector<std::string> dirs;
  for (const TempEntry& t : entries) {
    if (!t.stale || t.kind != kDirsKind) continue;
    std::ifstream f(t.path);
    for (std::string line; std::getline(f, line);)
      if (!line.empty() && std::find(dirs.begin(), dirs.end(), line) == dirs.end()) dirs.push_back(line);
  }
  return dirs;
}

namespace {

// One entry of a directory, if it is gxsort's: false when it is not.
bool debris_entry(const std::string& dir, const std::string& name, TempEntry& t) {
  t.path = (dir == "/" ? "" : dir) + "/" + name;
  struct stat st;
  if (name.rfind(kJobPrefix, 0) == 0) {
    // A job's directory, or its output beside a target (Output::keep_for_job): both
    // locked while their process lives.
    if (::lstat(t.path.c_str(), &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) return false;
    t.job_dir = S_ISDIR(st.st_mode);
    t.job_output = !t.job_dir;
    t.bytes = t.job_dir ? tree_bytes(t.path) : uint64_t(st.st_blocks) * 512;
    t.stale = t.job_dir ? job_dir_is_stale(t.path) : file_is_unlocked(t.path);
    return true;
  }
  t.kept_target = kept_output_target(t.path);
  if (!t.kept_target.empty()) {
    if (::lstat(t.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    t.bytes = uint64_t(st.st_blocks) * 512;
    t.stale = file_is_unlocked(t.path);  // locked while its rewrite runs
    return true;
  }
  if (!parse_temp_name(name, t.host, t.pid, &t.kind)) return false;
  if (::lstat(t.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  t.bytes = uint64_t(st.st_blocks) * 512;  // what it holds on the disk (runs are punched as read)
  t.stale = (t.host.empty() || t.host == this_host_label()) && !process_alive(t.pid);
  return true;
}

}  // namespace

std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs) {
  std::vector<TempEntry> found;
  std::set<std::pair<dev_t, ino_t>> seen;  // a directory named twice is listed once
  for (const std::string& dir : dirs) {
    struct stat ds;
    if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode) || !seen.insert({ds.st_dev, ds.st_ino}).second) continue;
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (const dirent* e = ::readdir(d)) {
      TempEntry t;
      if (debris_entry(dir, e->d_name, t)) found.push_back(t);
    }
    ::closedir(d);
  }
  // A job's output lies beside its target, maybe in a directory not searched: found
  // through its job directory.
  std::set<std::pair<dev_t, ino_t>> listed;
  for (const TempEntry& t : found) {
    struct stat st;
    if (::stat(t.path.c_str(), &st) == 0) listed.insert({st.st_dev, st.st_ino});
  }
  const size_t searched = found.size();
  for (size_t i = 0; i < searched; ++i) {
    const std::string out = found[i].job_dir ? job_output_of(found[i].path) : "";
    struct stat st;
    TempEntry t;
    if (out.empty() || ::stat(out.c_str(), &st) != 0 || !listed.insert({st.st_dev, st.st_ino}).second) continue;
    if (debris_entry(directory_of(out), out.substr(out.find_last_of('/') + 1), t)) found.push_back(t);
  }
  std::sort(found.begin(), found.end(), [](const TempEntry& a, const TempEntry& b) { return a.path < b.path; });
  return found;
}

}  // namespace gxsort::io
