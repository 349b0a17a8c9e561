#include "io/safe_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "gxsort/error.hpp"

namespace gxsort::io {

std::string user_name(uid_t uid) {
  struct passwd pw, *found = nullptr;
  std::vector<char> buf(4096);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return found->pw_name;
  return "uid " + std::to_string(uid);
}

std::string not_own_private_dir(const struct stat& st, const std::string& path) {
  if (!S_ISDIR(st.st_mode)) return path + ": is not a directory";
  if (st.st_uid != ::geteuid()) return path + ": is not this user's own directory (owned by " + user_name(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return path + ": is writable by other users";
  return "";
}

int open_dir_at(int parent, const std::string& name) {
  return ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

namespace {

// What the entry `name` in `parent` is, for a refusal: "a symbolic link", "a file owned by bob".
std::string entry_text(int parent, const std::string& name) {
  struct stat st;
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "gone";
  const char* what = S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" : S_ISREG(st.st_mode) ? "a file" : "a special file";
  return std::string(what) + " owned by " + user_name(st.st_uid);
}

// The directory `name` in `parent` opened and checked as the caller's own private one
// (Error(io) otherwise); empty when there is none. `made`: made now by this process,
// so its mode (mkdirat's went through the umask) is set to 0700 first.
UniqueFd checked_private_dir(int parent, const std::string& name, const std::string& path, bool made) {
  UniqueFd fd(open_dir_at(parent, name));
  if (!fd) {
    const int err = errno;
    if (err == ENOENT) return fd;
    if (err == ENOTDIR || err == ELOOP)
      throw Error(ExitCode::io, path + ": is " + entry_text(parent, name) + ", not this user's own directory; it is left as it is");
    fail_errno(path, "cannot open the directory", err);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) fail_errno(path, "cannot stat the directory", errno);
  if (made && st.st_uid == ::geteuid()) {
    if (::fchmod(fd.get(), 0700) != 0) fail_errno(path, "cannot set the mode", errno);
    if (::fstat(fd.get(), &st) != 0) fail_errno(path, "cannot stat the directory", errno);
  }
  const std::string why = not_own_private_dir(st, path);
  if (!why.empty()) throw Error(ExitCode::io, why + "; it is left as it is");
  return fd;
}

}  // namespace

UniqueFd make_private_dir(int parent, const std::string& name, const std::string& path, bool* created) {
  const bool made = ::mkdirat(parent, name.c_str(), 0700) == 0;
  if (!made && errno != EEXIST) fail_errno(path, "cannot create the directory", errno);
  UniqueFd fd = checked_private_dir(parent, name, path, made);
  if (!fd) fail_errno(path, "cannot open the directory", ENOENT);  // removed meanwhile
  if (created) *created = made;
  return fd;
}

UniqueFd open_private_dir(int parent, const std::string& name, const std::string& path) {
  return checked_private_dir(parent, name, path, false);
}

int open_own_file_at(int dir, const std::string& name, int flags) {
  const int fd = ::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st;
  int err = 0;
  if (::fstat(fd, &st) != 0) err = errno;
  else if (!S_ISREG(st.st_mode)) err = EINVAL;
  else if (st.st_uid != ::geteuid()) err = EACCES;
  else if ((flags & O_CREAT) && (flags & O_EXCL) && ::fchmod(fd, 0600) != 0) err = errno;
  else if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) err = errno;
  if (err) {
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

bool entry_names(int dir, std::vector<std::string>& names) {
  names.clear();
  // A descriptor of its own for the listing: closedir closes it, `dir` stays open.
  const int list_fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0) return false;
  DIR* d = ::fdopendir(list_fd);
  if (!d) {
    ::close(list_fd);
    return false;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return true;
}

namespace {

bool removable(const struct stat& st, bool any_owner) { return any_owner || st.st_uid == ::geteuid(); }

// Deeper trees than gxsort makes (a job directory holds the job directories of a staged
// command's sorts: two levels) are not its: left as they are, and no descriptor or stack
// is spent on a tree another user nested.
constexpr int kMaxDepth = 8;

size_t remove_entries_at(int dir, const std::string& keep, bool any_owner, int depth);

bool remove_tree_at(int parent, const std::string& name, bool any_owner, int depth) {
  if (depth > kMaxDepth) return false;
  UniqueFd fd(open_dir_at(parent, name));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !removable(st, any_owner)) return false;
  if (remove_entries_at(fd.get(), "", any_owner, depth + 1) != 0) return false;
  return ::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT;
}

size_t remove_entries_at(int dir, const std::string& keep, bool any_owner, int depth) {
  std::vector<std::string> names;
  if (!entry_names(dir, names)) return 1;
  size_t left = 0;  // `keep`, when it is there
  const auto kept = std::find(names.begin(), names.end(), keep);
  if (kept != names.end()) {
    names.erase(kept);
    ++left;
  }
  for (const std::string& n : names) {
    struct stat st;
    if (::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    if (S_ISDIR(st.st_mode)) left += !remove_tree_at(dir, n, any_owner, depth);
    else if (!removable(st, any_owner) || (::unlinkat(dir, n.c_str(), 0) != 0 && errno != ENOENT)) ++left;
  }
  return left;
}

}  // namespace

size_t remove_own_entries(int dir, const std::string& keep, bool any_owner) {
  return remove_entries_at(dir, keep, any_owner, 0);
}

bool remove_own_tree(int parent, const std::string& name, bool any_owner) {
  return remove_tree_at(parent, name, any_owner, 0);
}

std::string own_file_refusal(int dir, const std::string& name, const std::string& path, const std::string& what, int err) {
  if (err == ELOOP || err == EACCES || err == EINVAL)
    return path + ": is " + entry_text(dir, name) + ", not this user's own file; it is left as it is";
  return path + ": " + what + ": " + std::strerror(err);
}

std::string entries_not_safe_in(const struct stat& st, const std::string& path) {
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    return path + ": belongs to " + user_name(st.st_uid) + ", who may rename or remove what is in it";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    return path + ": other users may rename or remove what is in it (writable by them, without the sticky bit)";
  return "";
}

}  // namespace gxsort::io
