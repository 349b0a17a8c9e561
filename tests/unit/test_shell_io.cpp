// The io pieces behind "files a shell hands gxsort": streams (pipes read to their end,
// the scheduler's kUntilEnd), the SIGBUS guard of mapped inputs, outputs (streamed,
// symlinks, modes), temp names and the runs manifest.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "../common/test_files.hpp"
#include "gxsort/error.hpp"
#include "gxsort/signals.hpp"
#include "io/checksum.hpp"
#include "io/debris.hpp"
#include "io/file.hpp"
#include "io/mapped_file.hpp"
#include "io/mapping_guard.hpp"
#include "io/output.hpp"
#include "io/temp_files.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "plan/plan.hpp"
#include "engine/runs_manifest.hpp"

using namespace gxsort;
using gxsort_test::Bytes;
using gxsort_test::TempDir;

namespace {
// A pipe whose write end is fed `data` in pieces of `piece` bytes by a thread.
struct FedPipe {
  int rd = -1;
  std::thread writer;
  FedPipe(const Bytes& data, size_t piece) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    rd = fds[0];
    writer = std::thread([w = fds[1], &data, piece] {
      for (size_t o = 0; o < data.size(); o += piece) {
        const size_t n = std::min(piece, data.size() - o);
        if (::write(w, data.data() + o, n) != ssize_t(n)) break;
      }
      ::close(w);
    });
  }
  ~FedPipe() { writer.join(); }
};
}  // namespace

TEST_CASE("a pipe is a stream: read_chunk gives whole chunks until its end, whatever the writes") {
  for (size_t total : {0, 1, 999, 1000, 4096 * 3 + 17}) {
    Bytes data(total);
    for (size_t i = 0; i < total; ++i) data[i] = uint8_t(i * 7 + 1);
    FedPipe p(data, 333);  // writes that do not line up with the chunks
    const std::string path = "/proc/self/fd/" + std::to_string(p.rd);
    io::File f = io::File::open_input(path);
    CHECK(f.is_stream());
    std::vector<std::vector<unsigned char>> bufs(3, std::vector<unsigned char>(1000));
    std::vector<unsigned char*> slots;
    for (auto& b : bufs) slots.push_back(b.data());
    Bytes got;
    size_t chunks = 0;
    pipeline::Stages st;
    st.read = [&](pipeline::Chunk& c) { c.bytes = f.read_chunk(c.data, c.bytes, c.offset, 2); };
    st.write = [&](pipeline::Chunk& c) {
      CHECK(c.bytes > 0);  // an empty last chunk is dropped
      got.insert(got.end(), c.data, c.data + c.bytes);
      ++chunks;
    };
    pipeline::Config cfg;
    cfg.total_bytes = pipeline::kUntilEnd;
    cfg.chunk_bytes = 1000;
    pipeline::run_chunks(cfg, slots, st, {});
    CHECK(got == data);
    CHECK(chunks == (total + 999) / 1000);
    CHECK(f.stream_bytes() == total);
    ::close(p.rd);
  }
}

TEST_CASE("open_input: regular files are sized (empty ones too), /proc files and devices are streams") {
  TempDir d;
  gxsort_test::write_file(d.file("a"), Bytes(100, 1));
  gxsort_test::write_file(d.file("empty"), Bytes());
  CHECK_FALSE(io::File::open_input(d.file("a")).is_stream());
  CHECK_FALSE(io::File::open_input(d.file("empty")).is_stream());
  CHECK(io::File::open_input("/proc/self/status").is_stream());
  CHECK(io::File::open_input("/dev/null").is_stream());
}

TEST_CASE("a mapped input truncated under its mapping reads zeros, and check_unchanged fails (no SIGBUS)") {
  gxsort::install_mapping_guard();  // as a front end does at its start (gxsort/signals.hpp)
  TempDir d;
  const size_t n = 1 << 20;
  gxsort_test::write_file(d.file("in"), Bytes(n, 0xab));
  io::File f = io::File::open_input(d.file("in"));
  io::MappedFile m = io::MappedFile::map_read(f, n, 0, false);
  CHECK(m.data()[10] == 0xab);
  REQUIRE(::truncate(d.file("in").c_str(), 4096) == 0);
  unsigned sum = 0;
  for (size_t i = 8192; i < n; i += 4096) sum += m.data()[i];  // past the end: would be SIGBUS
  CHECK(sum == 0);
  CHECK(m.data()[10] == 0xab);  // before the new end: the file's bytes
  CHECK_THROWS_AS(f.check_unchanged(), Error);
  try {
    f.check_unchanged();
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::io);
    CHECK(std::string(e.what()).find("changed") != std::string::npos);
  }
  // Another file's check is not affected by this one's fault; no output commits meanwhile.
  gxsort_test::write_file(d.file("other"), Bytes(64, 1));
  io::File g = io::File::open_input(d.file("other"));
  CHECK_NOTHROW(g.check_unchanged());
  CHECK(io::any_mapping_fault());
  {
    io::Output o = io::Output::open({}, d.file("out"), d.path);
    CHECK_THROWS_AS(o.commit(false), Error);
  }
  // Opened anew, the file's old fault is forgotten (a new file may reuse its inode).
  m.unmap();
  io::File again = io::File::open_input(d.file("in"));
  CHECK_FALSE(io::any_mapping_fault());
}

// While an in-place rewrite runs, a front end's fatal path must wait (begin_process_exit
// false) and can tell the user why. (Its true path cannot run here: once the process is
// ending, no rewrite may start in it.)
TEST_CASE("an in-place rewrite holds a front end's process exit") {
  CHECK(gxsort::process_exit_held_note() == nullptr);
  {
    const io::ProcessExitHeld held("F: a signal came while it is rewritten");
    CHECK_FALSE(gxsort::begin_process_exit());
    REQUIRE(gxsort::process_exit_held_note() != nullptr);
    CHECK(std::string(gxsort::process_exit_held_note()) == "gxsort: F: a signal came while it is rewritten\n");
  }
  CHECK(gxsort::process_exit_held_note() == nullptr);
}

TEST_CASE("check_unchanged: a grown or rewritten input fails, an untouched one passes") {
  TempDir d;
  gxsort_test::write_file(d.file("in"), Bytes(64, 1));
  io::File f = io::File::open_input(d.file("in"));
  CHECK_NOTHROW(f.check_unchanged());
  ::usleep(20000);
  gxsort_test::write_file(d.file("in"), Bytes(128, 1));
  CHECK_THROWS_AS(f.check_unchanged(), Error);
}

TEST_CASE("outputs: regular files keep their mode, devices are written through, symlinks followed") {
  TempDir d;
  gxsort_test::write_file(d.file("old"), Bytes(10, 1));
  ::chmod(d.file("old").c_str(), 0640);
  {
    io::Output o = io::Output::open({}, d.file("old"), d.path);
    CHECK_FALSE(o.streamed());
    o.file().write_at("abc", 3, 0);
    o.commit(false);
  }
  struct stat st;
  REQUIRE(::stat(d.file("old").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(gxsort_test::read_file(d.file("old")) == Bytes{'a', 'b', 'c'});
  const mode_t old_mask = ::umask(027);  // a new output: 0600 until its commit, then a new file's mode
  CHECK(io::new_file_mode() == 0640);
  {
    io::Output o = io::Output::open({}, d.file("new"), d.path);
    REQUIRE(::lstat(o.temp_path().c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    o.commit(false);
  }
  ::umask(old_mask);
  REQUIRE(::stat(d.file("new").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  {
    io::Output o = io::Output::open({}, "/dev/null", d.path);
    CHECK(o.streamed());
    o.file().write_at("abc", 3, 0);
    o.commit(false);
  }
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  REQUIRE(::symlink("sub/t", d.file("link").c_str()) == 0);
  REQUIRE(::mkdir(d.file("sub").c_str(), 0755) == 0);
  CHECK(io::resolve_symlinks(d.file("link")) == d.path + "/sub/t");
  REQUIRE(::symlink("loop", d.file("loop").c_str()) == 0);
  CHECK_THROWS_AS(io::resolve_symlinks(d.file("loop")), Error);
  CHECK_THROWS_AS(io::Output::open({}, d.path, d.path), Error);  // a directory
  CHECK_THROWS_AS(io::Output::open({}, "", d.path), Error);
}

TEST_CASE("temp names: this build's and earlier ones parse, others do not") {
  std::string host;
  long pid = 0;
  CHECK(io::parse_temp_name(io::temp_name("run", 1234, 7), host, pid));
  CHECK(pid == 1234);
  CHECK(host == io::this_host_label());
  CHECK(io::parse_temp_name(".gxsort.h.99.bucket.0.tmp", host, pid));
  CHECK(io::parse_temp_name("gxsort-run.42.3.tmp", host, pid));
  CHECK(pid == 42);
  CHECK(host.empty());
  CHECK(io::parse_temp_name(".gxsort-out.42.3.tmp", host, pid));
  CHECK(io::parse_temp_name("run-000001.42.3.tmp", host, pid));
  CHECK_FALSE(io::parse_temp_name("notes.tmp", host, pid));
  CHECK_FALSE(io::parse_temp_name(".gxsort.h.x.run.0.tmp", host, pid));
  CHECK_FALSE(io::parse_temp_name(".gxsort.h.1.run.0", host, pid));
  CHECK_FALSE(io::parse_temp_name("run-000001.bin", host, pid));
}

TEST_CASE("temp files: 0600 whatever the umask, random names that parse, a planted name is never opened") {
  TempDir d;
  std::vector<io::TempFile> files;
  const mode_t old_mask = ::umask(0);
  for (int i = 0; i < 1000; ++i) files.push_back(io::TempFile::create_unlisted(d.path, "run"));
  ::umask(old_mask);
  std::set<unsigned long long> parts;
  for (const io::TempFile& t : files) {
    const std::string name = t.path().substr(t.path().find_last_of('/') + 1);
    std::string host, kind;
    long pid = 0;
    CHECK(io::parse_temp_name(name, host, pid, &kind));
    CHECK(pid == long(::getpid()));
    CHECK(kind == "run");
    const std::string stem = name.substr(0, name.size() - 4);  // less ".tmp"
    parts.insert(std::stoull(stem.substr(stem.find_last_of('.') + 1)));
    struct stat st;
    REQUIRE(::lstat(t.path().c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
  }
  // All differ, and spread over their range: not a counter another user could run ahead of.
  CHECK(parts.size() == 1000);
  CHECK(*parts.rbegin() - *parts.begin() > 1000000000ULL);
  // A planted symlink is never opened, whatever its name.
  REQUIRE(::symlink(d.file("victim").c_str(), d.file("planted").c_str()) == 0);
  CHECK_THROWS_AS(io::File::create_new(d.file("planted")), Error);
  CHECK(::access(d.file("victim").c_str(), F_OK) != 0);
}

TEST_CASE("runs manifest: written and read back; any edit of its text is refused") {
  TempDir d;
  Format f = Format::typed(KeyType::u32);
  std::vector<ManifestRun> runs;
  for (size_t i = 0; i < 3; ++i) {
    Bytes b(4 * (i + 1), uint8_t(i));
    gxsort_test::write_file(d.file(run_file_name(i)), b);
    runs.push_back({"", i + 1, b.size(), io::xxh3_64(b.data(), b.size())});
  }
  const std::string text = runs_manifest_text(f, runs);
  gxsort_test::write_file(d.file("manifest.txt"), Bytes(text.begin(), text.end()));
  auto back = read_runs_manifest(d.path, f);
  REQUIRE(back.size() == 3);
  CHECK(back[2].records == 3);
  CHECK(back[2].checksum == runs[2].checksum);
  CHECK(back[1].path == d.file("run-000001.bin"));
  // Another format: refused.
  CHECK_THROWS_AS(read_runs_manifest(d.path, Format::typed(KeyType::u64)), Error);
  // Every one-byte change of the text is caught (its end checksum, or its shape).
  for (size_t i = 0; i < text.size(); ++i) {
    std::string t = text;
    t[i] = t[i] == '1' ? '2' : '1';
    gxsort_test::write_file(d.file("manifest.txt"), Bytes(t.begin(), t.end()));
    CHECK_THROWS_AS(read_runs_manifest(d.path, f), Error);
  }
}

TEST_CASE("plan_merge_tree: the external plan's merge, for any list of runs") {
  PlanInput in;
  in.record_size = 8;
  in.sort_bytes_per_record = 16;
  in.memory = 4 << 20;
  in.input_bytes = uint64_t(1) << 24;
  in.ooc = OocMethod::merge;
  in.fan_in = 4;
  const Plan p = make_plan(in);
  REQUIRE(p.mode == PlanMode::external);
  Plan q;
  q.run_sizes = p.run_sizes;
  plan_merge_tree(in, q);
  CHECK(q.runs == p.runs);
  CHECK(q.fan_in == p.fan_in);
  CHECK(q.merge_threads == p.merge_threads);
  CHECK(q.merge_buffer_bytes == p.merge_buffer_bytes);
  CHECK(q.levels.size() == p.levels.size());
  CHECK(q.temp_bytes == p.temp_bytes);
  CHECK(external_run_records(in) == p.run_records);
}
