#include "io/space.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <map>

#include "gxsort/error.hpp"
#include "platform/sizes.hpp"

namespace gxsort::io {

uint64_t free_bytes(const std::string& dir) {
  struct statvfs s;
  if (::statvfs(dir.c_str(), &s) != 0) fail_errno(dir, "cannot read free space", errno);
  return uint64_t(s.f_bavail) * uint64_t(s.f_frsize);
}

uint64_t device_id(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) fail_errno(dir, "cannot stat directory", errno);
  return uint64_t(st.st_dev);
}

void check_space(const Context& context, const std::vector<SpaceNeed>& needs) {
  if (context.test.skip_space_check) return;
  struct Fs { uint64_t need = 0; std::string dir, what; };
  std::map<uint64_t, Fs> per_fs;
  for (const auto& n : needs) {
    if (n.bytes == 0) continue;
    Fs& fs = per_fs[device_id(n.dir)];
    fs.need += n.bytes;
    if (fs.dir.empty()) { fs.dir = n.dir; fs.what = n.what; }
    else if (fs.what.find(n.what) == std::string::npos) fs.what += " and " + n.what;
  }
  for (const auto& [dev, fs] : per_fs) {
    uint64_t have = free_bytes(fs.dir);
    if (fs.need > have)
      throw Error(ExitCode::io, "not enough free space in " + fs.dir + " for " + fs.what + ": need " +
                                    format_bytes(fs.need) + ", free " + format_bytes(have));
  }
}

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void require_writable_dir(const std::string& dir, const std::string& role) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) fail_errno(dir, role + " directory does not exist", errno);
  if (!S_ISDIR(st.st_mode)) throw Error(ExitCode::usage, dir + ": " + role + " directory is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail_errno(dir, role + " directory is not writable", errno);
}

}  // namespace gxsort::io
