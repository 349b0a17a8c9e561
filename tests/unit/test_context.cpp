// gxsort::Context: what the library knows of its process comes from the Context a
// front end gives it, never from the environment.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "engine/engine.hpp"
#include "gxsort/timeline.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "platform/sizes.hpp"

using namespace gxsort;
using gxsort_test::TempDir;

namespace {
// Sets an environment variable for one test case, and puts the old value back.
struct ScopedEnv {
  std::string name;
  bool had = false;
  std::string old;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* v = std::getenv(n)) { had = true; old = v; }
    ::setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (had) ::setenv(name.c_str(), old.c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};
}  // namespace

TEST_CASE("Context: temp directories and test hooks come from it, not from the environment") {
  TempDir d;
  const ScopedEnv tmpdir("TMPDIR", "/nonexistent-env-tmpdir");
  const ScopedEnv skip("GXSORT_SKIP_SPACE_CHECK", "1");
  EngineOptions opt;
  CHECK(temp_dirs(opt, d.path) == std::vector<std::string>{d.path});
  opt.context.temp_dir = "/ctx-tmp";
  CHECK(temp_dirs(opt, d.path) == std::vector<std::string>{"/ctx-tmp"});

  // The space check runs unless the context's hook skips it.
  const std::vector<io::SpaceNeed> too_much{{d.path, uint64_t(1) << 62, "the output"}};
  CHECK_THROWS_AS(io::check_space(Context(), too_much), Error);
  Context skipping;
  skipping.test.skip_space_check = true;
  CHECK_NOTHROW(io::check_space(skipping, too_much));

  // A temp file tells the stop hook its kind once it exists.
  Context stops;
  std::vector<std::string> points;
  stops.test.stop_at = [&](const std::string& point, bool) { points.push_back(point); };
  io::TempFile t = io::TempFile::create(stops, d.path, "run");
  CHECK(points == std::vector<std::string>{"run"});
}

TEST_CASE("Context: timeline lines go to its trace sink, with the rank; none when off") {
  std::vector<std::string> lines;
  Context c;
  c.trace = [&](const std::string& line) { lines.push_back(line); };
  timeline(c, "step one");
  CHECK(lines.empty());
  c.timeline = true;
  c.rank = "2";
  timeline(c, "step two");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("gxsort: timeline: rank 2 step two at ", 0) == 0);
}

TEST_CASE("Context: the memory limit's cgroup files come from its test hook") {
  TempDir d;
  std::system(("mkdir -p '" + d.file("root/jobs") + "'").c_str());
  gxsort_test::write_file(d.file("cgroup"), {'0', ':', ':', '/', 'j', 'o', 'b', 's', '\n'});
  gxsort_test::write_file(d.file("root/jobs/memory.max"), {'1', '0', '4', '8', '5', '7', '6', '\n'});
  Context c;
  c.test.cgroup_dir = d.path;
  CHECK(memory_limit(c).bytes == 1048576);
}
