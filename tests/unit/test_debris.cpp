// io/debris: what killed runs left, judged and removed in a directory other users
// write to (and io/safe_dir's entry_names, which lists it): no link followed, no FIFO opened to block, another user's entries (made by
// chown, as root) only listed, and the dirs list read whatever bytes a name holds.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/debris.hpp"
#include "io/safe_dir.hpp"
#include "io/temp_files.hpp"

using namespace gxsort;

namespace {

struct Scratch {
  std::string path;
  Scratch() {
    std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/gxsort-debris.XXXXXX";
    path = ::mkdtemp(tmpl.data());
  }
  ~Scratch() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string at(const std::string& name) const { return path + "/" + name; }
  void file(const std::string& name, const std::string& text = "x") const {
    const int fd = ::open(at(name).c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, text.data(), text.size()) == ssize_t(text.size()));
    ::close(fd);
  }
  bool exists(const std::string& name) const {
    struct stat st;
    return ::lstat(at(name).c_str(), &st) == 0;
  }
};

// A process id that no process has now: a child's, once reaped.
long dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return long(pid);
}

std::string temp_of(long pid, const std::string& kind) { return io::temp_name(kind, pid, 0); }

const io::TempEntry* entry_named(const std::vector<io::TempEntry>& found, const std::string& name) {
  for (const io::TempEntry& t : found)
    if (t.name == name) return &t;
  return nullptr;
}

constexpr uid_t kOther = 65534;  // nobody

}  // namespace

TEST_CASE("entry_names lists a directory through its descriptor, which stays usable") {
  Scratch s;
  s.file("a");
  REQUIRE(::mkdir(s.at("b").c_str(), 0700) == 0);
  REQUIRE(::symlink("/nonexistent", s.at("c\nd").c_str()) == 0);
  const io::UniqueFd dir(::open(s.path.c_str(), O_RDONLY | O_DIRECTORY));
  std::vector<std::string> names;
  REQUIRE(io::entry_names(dir.get(), names));
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a", "b", "c\nd"});
  REQUIRE(io::entry_names(dir.get(), names));  // again: the listing had its own descriptor
  CHECK(names.size() == 3);
  CHECK(!io::entry_names(-1, names));
}

TEST_CASE("parse_dirs_list: NUL-terminated names hold any other byte; an earlier list is one a line") {
  using V = std::vector<std::string>;
  CHECK(io::parse_dirs_list(std::string("/a\nb\0/c\0", 8)) == V{"/a\nb", "/c"});
  CHECK(io::parse_dirs_list(std::string("/a\0rel\0/a\0/cut", 14)) == V{"/a"});  // relative, twice, cut short
  CHECK(io::parse_dirs_list("/old\n/list\n") == V{"/old", "/list"});
  CHECK(io::parse_dirs_list("").empty());
}

TEST_CASE("find_temp_files: links, FIFOs and devices named like gxsort's are not opened nor listed") {
  Scratch s;
  const long dead = dead_pid();
  s.file(temp_of(dead, "run"));
  REQUIRE(::mkfifo(s.at(temp_of(dead, "out")).c_str(), 0600) == 0);
  REQUIRE(::mkdir(s.at("victim").c_str(), 0700) == 0);
  s.file("victim/" + temp_of(dead, "bucket"));
  REQUIRE(::symlink("victim", s.at(std::string(io::kJobPrefix) + "0000000000000001").c_str()) == 0);
  REQUIRE(::symlink(s.at("victim/" + temp_of(dead, "bucket")).c_str(), s.at(temp_of(dead, "merge")).c_str()) == 0);
  // A dead job's directory whose lock, output and journal are FIFOs: judged without
  // opening them (a blocking open would hang here).
  const std::string job = std::string(io::kJobPrefix) + "0000000000000002";
  REQUIRE(::mkdir(s.at(job).c_str(), 0700) == 0);
  for (const char* f : {"lock", "output", "journal"}) REQUIRE(::mkfifo(s.at(job + "/" + f).c_str(), 0600) == 0);
  const auto found = io::find_temp_files({s.path});
  REQUIRE(found.size() == 2);
  const io::TempEntry* run = entry_named(found, temp_of(dead, "run"));
  REQUIRE(run);
  CHECK(run->stale);
  CHECK(run->own());
  CHECK(run->uid == ::geteuid());
  const io::TempEntry* j = entry_named(found, job);
  REQUIRE(j);
  CHECK(j->job_dir);
  CHECK(j->stale);  // a FIFO is no lock a job holds
  CHECK(io::file_is_unlocked(s.at(job + "/lock")));
  CHECK(io::job_output_of(s.at(job)).empty());
  CHECK(io::remove_temp_entry(*j, false).empty());
  CHECK(!s.exists(job));
  CHECK(s.exists("victim/" + temp_of(dead, "bucket")));
}

TEST_CASE("remove_job_dir: a link is not followed; links inside are removed, not followed") {
  Scratch s;
  REQUIRE(::mkdir(s.at("victim").c_str(), 0700) == 0);
  s.file("victim/precious");
  s.file("victim/output", "/etc/passwd");
  const std::string link = std::string(io::kJobPrefix) + "0000000000000003";
  REQUIRE(::symlink(s.at("victim").c_str(), s.at(link).c_str()) == 0);
  CHECK(!io::remove_job_dir(s.at(link)));
  CHECK(io::job_output_of(s.at(link)).empty());
  io::remove_dir_files(s.at(link), "", true);
  const std::string job = std::string(io::kJobPrefix) + "0000000000000004";
  REQUIRE(::mkdir(s.at(job).c_str(), 0700) == 0);
  REQUIRE(::symlink(s.at("victim").c_str(), s.at(job + "/inner").c_str()) == 0);
  REQUIRE(::symlink(s.at("victim/output").c_str(), s.at(job + "/output").c_str()) == 0);
  REQUIRE(::symlink(s.at("victim/precious").c_str(), s.at(job + "/lock").c_str()) == 0);
  CHECK(io::job_output_of(s.at(job)).empty());  // a link named output is not read
  CHECK(io::remove_job_dir(s.at(job)));
  CHECK(!s.exists(job));
  CHECK(s.exists("victim/precious"));
  CHECK(s.exists("victim/output"));
  CHECK(s.exists(link));
}

TEST_CASE("job_output_of reads the caller's own output file, whole") {
  Scratch s;
  const std::string job = std::string(io::kJobPrefix) + "0000000000000005";
  REQUIRE(::mkdir(s.at(job).c_str(), 0700) == 0);
  s.file(job + "/output", "/data/a\nb/out.bin");
  CHECK(io::job_output_of(s.at(job)) == "/data/a\nb/" + job + ".out");
  if (::geteuid() != 0) {
    MESSAGE("SKIP another user's output file: needs root to chown");
    return;
  }
  REQUIRE(::chown(s.at(job + "/output").c_str(), kOther, kOther) == 0);
  CHECK(io::job_output_of(s.at(job)).empty());
}

TEST_CASE("another user's leftovers: listed with their owner, removed only for any owner; their lists not followed") {
  if (::geteuid() != 0) {
    MESSAGE("SKIP another user's entries: needs root to chown");
    return;
  }
  Scratch s;
  const long dead = dead_pid();
  const std::string run = temp_of(dead, "run"), list = temp_of(dead, io::kDirsKind);
  const std::string job = std::string(io::kJobPrefix) + "0000000000000006";
  s.file(run);
  s.file(list, std::string("/victim\0", 8));
  REQUIRE(::mkdir(s.at(job).c_str(), 0700) == 0);
  s.file(job + "/run-000000.bin");
  for (const std::string& n : {run, list, job, job + "/run-000000.bin"})
    REQUIRE(::lchown(s.at(n).c_str(), kOther, kOther) == 0);
  auto found = io::find_temp_files({s.path});
  REQUIRE(found.size() == 3);
  for (const io::TempEntry& t : found) {
    CHECK(t.uid == kOther);
    CHECK(!t.own());
    CHECK(t.stale);
    CHECK(io::remove_temp_entry(t, false) == "owned by " + io::user_name(kOther));
  }
  CHECK(io::listed_debris_dirs(found).empty());
  CHECK(io::listed_debris_dirs(found, true) == std::vector<std::string>{"/victim"});
  CHECK(!io::remove_job_dir(s.at(job)));  // the caller's own only
  CHECK(s.exists(job + "/run-000000.bin"));
  for (const io::TempEntry& t : found) CHECK(io::remove_temp_entry(t, true).empty());
  CHECK(!s.exists(run));
  CHECK(!s.exists(job));
}

TEST_CASE("remove_temp_entry: an entry replaced since it was judged stays") {
  Scratch s;
  const long dead = dead_pid();
  const std::string run = temp_of(dead, "run");
  s.file(run);
  const auto found = io::find_temp_files({s.path});
  REQUIRE(found.size() == 1);
  REQUIRE(::rename(s.at(run).c_str(), s.at("moved").c_str()) == 0);
  s.file(run, "new");
  CHECK(io::remove_temp_entry(found[0], false) == "another entry of that name now");
  CHECK(s.exists(run));
}
