// The pieces of a resumed sort of lines (lines/runs_job.hpp): the source sought to the
// text byte a kept run ends at (only a line's start, terminators owed counted), and the
// index of a reused run read back as write_sorted sampled it.
#include <stdlib.h>

#include <doctest/doctest.h>

#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "io/temp_files.hpp"
#include "lines/line_source.hpp"
#include "lines/runs_job.hpp"
#include "lines/write_lines.hpp"

using namespace gxsort;
using namespace gxsort::lines;

namespace {

struct ResumeDir : gxsort_test::TempDir {
  ResumeDir() : TempDir("gxsort-unit-lresume") { REQUIRE(!path.empty()); }
  std::string put(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary).write(text.data(), std::streamsize(text.size()));
    return path + "/" + name;
  }
};

// What the source reads from text byte `at` on ("<refused>" when it refuses the seek).
std::string text_from(const std::vector<std::string>& inputs, uint64_t at) {
  LineSource src(inputs, '\n');
  if (!src.seek_text(at)) return "<refused>";
  std::string text;
  char buf[3];
  while (const size_t n = src.read(buf, sizeof buf, 1)) text.append(buf, n);
  return text;
}

}  // namespace

TEST_CASE("lines resume: the source sought to a line's start of the text") {
  ResumeDir dir;
  // The text: "ab\ncd" "\n"(owed) "" "ef\n" = "ab\ncd\nef\n" (9 bytes).
  const std::vector<std::string> in{dir.put("a", "ab\ncd"), dir.put("b", ""), dir.put("c", "ef\n")};
  CHECK(text_from(in, 0) == "ab\ncd\nef\n");
  CHECK(text_from(in, 3) == "cd\nef\n");
  CHECK(text_from(in, 6) == "ef\n");  // after the terminator the first input was owed
  CHECK(text_from(in, 9) == "");      // the end
  CHECK(text_from(in, 1) == "<refused>");   // within a line
  CHECK(text_from(in, 5) == "<refused>");   // before the owed terminator
  CHECK(text_from(in, 7) == "<refused>");
  CHECK(text_from(in, 10) == "<refused>");  // past the end
  // The last input owes its terminator: the end is after it.
  const std::vector<std::string> owed{dir.put("d", "x\n"), dir.put("e", "yz")};
  CHECK(text_from(owed, 2) == "yz\n");
  CHECK(text_from(owed, 5) == "");
  CHECK(text_from(owed, 4) == "<refused>");
}

TEST_CASE("lines resume: a reused run's index is the one written with it") {
  ResumeDir dir;
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) lines.push_back(std::to_string(100000 + i * 7) + (i % 5 ? "" : std::string(2000, 'x')));
  LineRefs refs;
  for (const std::string& l : lines) refs.push_back({l.data(), l.size()});
  Permutation perm(refs.size());
  std::iota(perm.begin(), perm.end(), 0);  // already in order
  LinesJob job;
  job.memory = 64 << 20;
  job.merge_buffer = 4096;
  RunIndex written;
  written.budget = 8192;
  io::TempFile run = io::TempFile::create_unlisted(dir.path, "run");
  write_sorted(run.file(), 0, refs, perm, {}, '\n', 1, 4096, &written);
  const RunIndex read = index_of_run(run.file(), lines.size(), written.budget, job);
  REQUIRE(read.size() > 1);
  CHECK(read.bytes == written.bytes);
  REQUIRE(read.size() == written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    CHECK(read.offsets[i] == written.offsets[i]);
    CHECK(read.line(i) == written.line(i));
  }
}
