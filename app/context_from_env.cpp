#include "context_from_env.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "gxsort/error.hpp"
#include "gxsort/options.hpp"

namespace gxsort::cli {
namespace {

// The variable's value; "" when it is not set.
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
bool env_set(const char* name) { return std::getenv(name) != nullptr; }
// A size in bytes, as the size options take it ("512M"); a value that is none (or a
// percentage) is said on stderr and ignored: the context is made before main's handlers.
std::optional<uint64_t> env_bytes(const char* name) {
  if (!env_set(name)) return std::nullopt;
  try {
    const SizeOption s = parse_size_option(env(name), name);
    if (s.percent <= 0) return s.bytes;
  } catch (const Error&) {
  }
  std::fprintf(stderr, "gxsort: %s=%s is not a size in bytes (\"512M\"); ignored\n", name, env(name).c_str());
  return std::nullopt;
}
// A count ("2"); anything else is said on stderr and ignored, as env_bytes does.
std::optional<size_t> env_count(const char* name) {
  if (!env_set(name)) return std::nullopt;
  const std::string v = env(name);
  if (!v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos) return size_t(std::stoul(v));
  std::fprintf(stderr, "gxsort: %s=%s is not a count (\"2\"); ignored\n", name, v.c_str());
  return std::nullopt;
}
// Set, not empty and not "0".
bool env_on(const char* name) {
  const std::string v = env(name);
  return !v.empty() && v != "0";
}

// GXSORT_TEST_STOP_AT=POINT: the process stops itself (SIGSTOP) at POINT, the first time
// only unless the point asks every time (io/temp_files.hpp: test_stop_at).
std::function<void(const std::string&, bool)> stop_at_hook(const std::string& want) {
  auto stopped = std::make_shared<std::atomic<bool>>(false);
  return [want, stopped](const std::string& point, bool every_time) {
    if (point == want && (every_time || !stopped->exchange(true))) ::kill(::getpid(), SIGSTOP);
  };
}

// GXSORT_TEST_BETWEEN_PASSES=PREFIX: PREFIX.paused is created, then PREFIX.go awaited
// (polled, 120 s at most: a loaded machine's test may take long to rewrite the input).
std::function<void()> between_passes_hook(const std::string& prefix) {
  return [prefix] {
    const int fd = ::open((prefix + ".paused").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) ::close(fd);
    for (int i = 0; i < 120000 && ::access((prefix + ".go").c_str(), F_OK) != 0; ++i) ::usleep(1000);
  };
}

TestHooks test_hooks() {
  TestHooks t;
  if (!env("GXSORT_TEST_STOP_AT").empty()) t.stop_at = stop_at_hook(env("GXSORT_TEST_STOP_AT"));
  if (!env("GXSORT_TEST_BETWEEN_PASSES").empty()) t.between_passes = between_passes_hook(env("GXSORT_TEST_BETWEEN_PASSES"));
  const std::string rank = env("GXSORT_TEST_NO_PEER_FILES_RANK");
  if (!rank.empty()) t.no_peer_files_rank = long(std::strtoull(rank.c_str(), nullptr, 10));
  t.skip_space_check = env("GXSORT_SKIP_SPACE_CHECK") == "1";
  t.cgroup_dir = env("GXSORT_TEST_CGROUP_DIR");
  t.no_journal = env_on("GXSORT_BENCH_NO_JOURNAL");
  t.fail_runs_dir_sync = env_on("GXSORT_TEST_FAIL_RUNS_DIR_SYNC");
  return t;
}

// The BFS knobs of tools/bench/bfs_bench.sh (docs/graph.md); the out-of-core sort of lines'.
Tuning tuning() {
  Tuning t;
  if (env_set("GXSORT_BFS_ALPHA")) t.bfs_alpha = std::max(1e-9, std::atof(env("GXSORT_BFS_ALPHA").c_str()));
  if (env_set("GXSORT_BFS_BETA")) t.bfs_beta = std::max(1e-9, std::atof(env("GXSORT_BFS_BETA").c_str()));
  if (env_set("GXSORT_BFS_MINBU")) t.bfs_min_bottom_up = std::strtoull(env("GXSORT_BFS_MINBU").c_str(), nullptr, 10);
  if (env_set("GXSORT_BFS_BU")) t.bfs_bitmap = env("GXSORT_BFS_BU") != "lev";
  if (env_set("GXSORT_BFS_STREAM")) t.bfs_copy_partitions = env("GXSORT_BFS_STREAM") == "copy";
  const std::string profile = env("GXSORT_BFS_PROFILE");
  t.bfs_profile = !profile.empty() && profile[0] != '0';
  if (env_set("GXSORT_LINES_KEEP_LAST")) t.lines_keep_last = env_on("GXSORT_LINES_KEEP_LAST");
  t.runs_early_writeback = env_bytes("GXSORT_RUNS_EARLY_WRITEBACK");
  t.output_backlog = env_bytes("GXSORT_OUTPUT_BACKLOG");
  t.sort_held_runs = env_count("GXSORT_SORT_HELD_RUNS");
  t.sort_run_files = env_count("GXSORT_SORT_RUN_FILES");
  if (env_set("GXSORT_LINES_RUN_WRITERS"))
    t.lines_run_writers = unsigned(std::max(1ul, std::strtoul(env("GXSORT_LINES_RUN_WRITERS").c_str(), nullptr, 10)));
  return t;
}

}  // namespace

Context context_from_environment() {
  Context c;
  c.temp_dir = env("TMPDIR");
  c.timeline = env_on("GXSORT_TIMELINE");
  c.rank = env("OMPI_COMM_WORLD_RANK");
  c.trace = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  c.tuning = tuning();
  c.test = test_hooks();
  c.debris_list = new_debris_list();  // one for the process: `gxsort clean` finds its directories
  return c;
}

unsigned signal_grace_ms(unsigned standard) {
  const std::string given = env("GXSORT_TEST_SIGNAL_GRACE_MS");
  return given.empty() ? standard : unsigned(std::strtoul(given.c_str(), nullptr, 10));
}

}  // namespace gxsort::cli
