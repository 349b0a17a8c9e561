// io/safe_dir: private directories and files in places other users write to. Entries
// "of another user" are made by chown (root); as another user the cases are skipped
// with a message.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gxsort/error.hpp"
#include "io/safe_dir.hpp"

using namespace gxsort;

namespace {

struct Scratch {
  std::string path;
  io::UniqueFd fd;
  Scratch() {
    std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/gxsort-safe-dir.XXXXXX";
    path = ::mkdtemp(tmpl.data());
    fd = io::UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY));
  }
  ~Scratch() { std::system(("rm -rf '" + path + "'").c_str()); }
  void file(const std::string& name) { ::close(::openat(fd.get(), name.c_str(), O_CREAT | O_WRONLY, 0644)); }
  bool exists(const std::string& name) const {
    struct stat st;
    return ::fstatat(fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  }
};

constexpr uid_t kOther = 65534;  // nobody

}  // namespace

TEST_CASE("make_private_dir creates 0700 whatever the umask, and reopens its own") {
  Scratch s;
  const mode_t old = ::umask(0);
  bool created = false;
  io::UniqueFd d = io::make_private_dir(s.fd.get(), "job", s.path + "/job", &created);
  ::umask(old);
  CHECK(created);
  struct stat st;
  REQUIRE(::fstat(d.get(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  io::UniqueFd again = io::make_private_dir(s.fd.get(), "job", s.path + "/job", &created);
  CHECK(!created);
  CHECK(again);
}

TEST_CASE("make_private_dir refuses a link, a file, a shared or another user's directory") {
  Scratch s;
  REQUIRE(::mkdirat(s.fd.get(), "target", 0700) == 0);
  REQUIRE(::symlinkat("target", s.fd.get(), "link") == 0);
  s.file("file");
  REQUIRE(::mkdirat(s.fd.get(), "open", 0777) == 0);
  REQUIRE(::fchmodat(s.fd.get(), "open", 0777, 0) == 0);
  for (const char* name : {"link", "file", "open"}) {
    CAPTURE(name);
    CHECK_THROWS_AS(io::make_private_dir(s.fd.get(), name, s.path + "/" + name), Error);
  }
  if (::geteuid() != 0) {
    MESSAGE("SKIP another user's directory: needs root to chown");
    return;
  }
  REQUIRE(::mkdirat(s.fd.get(), "theirs", 0700) == 0);
  REQUIRE(::fchownat(s.fd.get(), "theirs", kOther, kOther, 0) == 0);
  try {
    io::make_private_dir(s.fd.get(), "theirs", s.path + "/theirs");
    FAIL("another user's directory was taken");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("owned by") != std::string::npos);
    CHECK(e.code() == ExitCode::io);
  }
}

TEST_CASE("open_own_file_at: no link followed, no FIFO blocks, another user's file refused") {
  Scratch s;
  s.file("mine");
  REQUIRE(::symlinkat("mine", s.fd.get(), "link") == 0);
  REQUIRE(::mkfifoat(s.fd.get(), "fifo", 0600) == 0);
  int fd = io::open_own_file_at(s.fd.get(), "mine", O_RDWR);
  CHECK(fd >= 0);
  ::close(fd);
  CHECK(io::open_own_file_at(s.fd.get(), "link", O_RDWR) == -1);
  CHECK(errno == ELOOP);
  CHECK(io::open_own_file_at(s.fd.get(), "fifo", O_RDONLY) == -1);  // returns at once
  CHECK(errno == EINVAL);
  fd = io::open_own_file_at(s.fd.get(), "new", O_RDWR | O_CREAT | O_EXCL);
  REQUIRE(fd >= 0);
  struct stat st;
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  ::close(fd);
  if (::geteuid() != 0) {
    MESSAGE("SKIP another user's file: needs root to chown");
    return;
  }
  REQUIRE(::fchownat(s.fd.get(), "mine", kOther, kOther, 0) == 0);
  CHECK(io::open_own_file_at(s.fd.get(), "mine", O_RDWR) == -1);
  CHECK(errno == EACCES);
}

TEST_CASE("remove_own_tree removes the caller's entries, never follows a link, leaves another's") {
  Scratch s;
  REQUIRE(::mkdirat(s.fd.get(), "outside", 0700) == 0);
  {
    io::UniqueFd out(io::open_dir_at(s.fd.get(), "outside"));
    ::close(::openat(out.get(), "precious", O_CREAT | O_WRONLY, 0644));
  }
  io::UniqueFd job = io::make_private_dir(s.fd.get(), "job", s.path + "/job");
  ::close(::openat(job.get(), "piece", O_CREAT | O_WRONLY, 0600));
  REQUIRE(::symlinkat("../outside", job.get(), "dirlink") == 0);
  REQUIRE(::symlinkat("../outside/precious", job.get(), "filelink") == 0);
  REQUIRE(::mkdirat(job.get(), "inner", 0700) == 0);
  CHECK(io::remove_own_tree(s.fd.get(), "job"));
  CHECK(!s.exists("job"));
  CHECK(s.exists("outside/precious"));
  // Another user's entry stays, and so does the directory holding it.
  io::UniqueFd job2 = io::make_private_dir(s.fd.get(), "job2", s.path + "/job2");
  ::close(::openat(job2.get(), "mine", O_CREAT | O_WRONLY, 0600));
  ::close(::openat(job2.get(), "theirs", O_CREAT | O_WRONLY, 0600));
  if (::geteuid() != 0) {
    MESSAGE("SKIP another user's entry: needs root to chown");
    return;
  }
  REQUIRE(::fchownat(job2.get(), "theirs", kOther, kOther, 0) == 0);
  CHECK(!io::remove_own_tree(s.fd.get(), "job2"));
  CHECK(s.exists("job2/theirs"));
  CHECK(!s.exists("job2/mine"));
  CHECK(io::remove_own_tree(s.fd.get(), "job2", /*any_owner=*/true));
  CHECK(!s.exists("job2"));
}
