// The job directory's journal (resume/journal.hpp): entries recorded in line and behind
// (fsync'd by the syncer thread) are all read back, in any mix; a line cut short or
// damaged is ignored; open without --resume empties a dead job; peek reads without
// taking the lock and sees a live holder; nothing planted at the job's name or inside
// it is followed or trusted.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "gxsort/error.hpp"
#include "io/file.hpp"
#include "resume/journal.hpp"

using namespace gxsort;
using gxsort_test::TempDir;

namespace {

resume::Piece run_piece(uint64_t i) {
  resume::Piece p;
  p.kind = "run";
  p.a = i;
  p.records = 1000 + i;
  p.bytes = 8 * (1000 + i);
  p.checksum = 0x1234567890abcdefULL ^ i;
  p.block = 4096;
  p.list = {i, i * 3, i * 7};
  return p;
}

void append(const std::string& path, const std::string& text) {
  std::ofstream o(path, std::ios::app | std::ios::binary);
  o << text;
}

}  // namespace

TEST_CASE("journal: entries recorded in line and behind are all read back") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal test", t.path});
  {
    resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, false, "out");
    for (uint64_t i = 0; i < 40; ++i) dir.record(run_piece(i), i % 3 != 0);  // two of three behind
    CHECK(dir.pieces().size() == 40);
  }  // the syncer joins before the journal closes
  const std::map<std::string, resume::Piece> read = resume::read_journal(t.path + "/.gxsort-job." + digest + "/journal");
  REQUIRE(read.size() == 40);
  for (uint64_t i = 0; i < 40; ++i) {
    const resume::Piece want = run_piece(i);
    const auto it = read.find(want.key());
    REQUIRE(it != read.end());
    CHECK(it->second.records == want.records);
    CHECK(it->second.bytes == want.bytes);
    CHECK(it->second.checksum == want.checksum);
    CHECK(it->second.block == want.block);
    CHECK(it->second.list == want.list);
  }
}

TEST_CASE("journal: a line cut short or damaged is ignored, the others kept") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal damage", t.path});
  const std::string journal = t.path + "/.gxsort-job." + digest + "/journal";
  {
    resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, false, "out");
    dir.record(run_piece(0));
    dir.record(run_piece(1), true);
  }
  std::ifstream in(journal);
  std::string first;
  std::getline(in, first);
  in.close();
  std::string damaged = first;
  damaged[damaged.find(' ') + 1] = '7';  // "run 0 ..." -> "run 7 ...": its checksum no longer matches
  append(journal, damaged + "\n");
  append(journal, first.substr(0, first.size() / 2));  // a kill while a line was written
  const auto read = resume::read_journal(journal);
  CHECK(read.size() == 2);
  CHECK(read.count(run_piece(0).key()) == 1);
  CHECK(read.count(run_piece(7).key()) == 0);
  // Opened again with --resume: the line cut short is ended, so the next entry stands.
  {
    resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, true, "out");
    CHECK(dir.pieces().size() == 2);
    dir.record(run_piece(2), true);
  }
  CHECK(resume::read_journal(journal).size() == 3);
}

TEST_CASE("journal: without --resume a dead job's entries go; peek sees a live holder") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal reopen", t.path});
  CHECK_FALSE(resume::JobDir::peek({t.path}, digest).active());
  {
    resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, false, "out");
    dir.record(run_piece(0), true);
    const resume::JobDir seen = resume::JobDir::peek({t.path}, digest);
    CHECK(seen.active());
    CHECK(seen.running());
    CHECK(seen.pieces().size() == 1);
  }
  const resume::JobDir dead = resume::JobDir::peek({t.path}, digest);
  CHECK_FALSE(dead.running());
  CHECK(dead.pieces().size() == 1);
  resume::JobDir fresh = resume::JobDir::open({}, {t.path}, digest, false, "out");
  CHECK(fresh.pieces().empty());
  CHECK(resume::read_journal(fresh.path() + "/journal").empty());
  fresh.remove();
  CHECK_FALSE(resume::JobDir::peek({t.path}, digest).active());
}

TEST_CASE("journal: an entry at the job's name that is not the caller's own directory is refused and left") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal planted", t.path});
  const std::string job = t.path + "/.gxsort-job." + digest;
  REQUIRE(::mkdir((t.path + "/victim").c_str(), 0700) == 0);
  append(t.path + "/victim/precious", "data");
  REQUIRE(::symlink((t.path + "/victim").c_str(), job.c_str()) == 0);
  for (bool resume : {false, true}) {
    CAPTURE(resume);
    try {
      resume::JobDir::open({}, {t.path}, digest, resume, "out");
      FAIL("a link at the job's name was taken");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::io);
      CHECK(std::string(e.what()).find(job + ": is a symbolic link owned by ") == 0);
    }
  }
  CHECK_THROWS_AS(resume::JobDir::peek({t.path}, digest), Error);
  struct stat st;
  CHECK(::stat((t.path + "/victim/precious").c_str(), &st) == 0);
  CHECK(::lstat(job.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
}

TEST_CASE("journal: no job directory where others may rename what is in it") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal open dir", t.path});
  REQUIRE(::chmod(t.path.c_str(), 0777) == 0);
  CHECK_THROWS_AS(resume::JobDir::open({}, {t.path}, digest, false, "out"), Error);
  REQUIRE(::chmod(t.path.c_str(), 01777) == 0);  // sticky, as /tmp: others cannot
  resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, false, "out");
  CHECK(dir.active());
  dir.remove();
}

TEST_CASE("journal: pieces are looked at, opened and removed through the directory, no link followed") {
  TempDir t;
  const std::string digest = resume::job_digest({"journal piece link", t.path});
  resume::JobDir dir = resume::JobDir::open({}, {t.path}, digest, false, "out");
  const resume::Piece p = run_piece(3);
  append(t.path + "/outside", "not a piece");
  REQUIRE(::symlink((t.path + "/outside").c_str(), dir.piece_path(p).c_str()) == 0);
  struct stat st;
  CHECK_FALSE(dir.piece_stat(p, st));
  CHECK_THROWS_AS(dir.open_piece(p), Error);
  CHECK_THROWS_AS(dir.adopt_piece(p), Error);
  dir.remove_piece(p);
  CHECK(::lstat(dir.piece_path(p).c_str(), &st) != 0);
  CHECK(::stat((t.path + "/outside").c_str(), &st) == 0);
  append(dir.piece_path(p), "piece");
  CHECK(dir.piece_stat(p, st));
  CHECK(dir.open_piece(p).size() == 5);
  dir.remove();
  CHECK(::stat((t.path + "/outside").c_str(), &st) == 0);
}
