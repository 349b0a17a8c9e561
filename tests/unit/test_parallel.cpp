// The parallel layer: every task once, ranges that tile [0, n), exceptions rethrown
// after the started tasks end, nested calls that cannot deadlock, one pool reused.
// doctest's CHECK is not thread-safe: tasks only record, the test thread checks.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gxsort/error.hpp"
#include "parallel/background_tasks.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"

using namespace gxsort;

namespace {

// Threads that ran a task, as a set of ids (tasks sleep a little, so helpers join in).
struct ThreadsSeen {
  std::mutex m;
  std::set<std::thread::id> ids;
  void note() {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::lock_guard<std::mutex> l(m);
    ids.insert(std::this_thread::get_id());
  }
};

}  // namespace

TEST_CASE("parallel_for runs every task exactly once, for any count of tasks and threads") {
  for (unsigned threads : {0u, 1u, 2u, 3u, 5u, 8u, 64u}) {
    for (size_t tasks : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(7), size_t(100), size_t(5000)}) {
      std::vector<std::atomic<int>> runs(tasks);
      parallel::parallel_for(tasks, threads, [&](size_t i) { runs[i]++; });
      size_t once = 0;
      for (auto& r : runs) once += r.load() == 1;
      INFO("tasks=" << tasks << " threads=" << threads);
      CHECK(once == tasks);
    }
  }
}

TEST_CASE("parallel_for_ranges calls every part once with contiguous ranges that tile [0, n)") {
  for (unsigned parts : {0u, 1u, 2u, 3u, 7u, 16u}) {
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(5), size_t(7), size_t(100), size_t(1001), size_t(65537)}) {
      const unsigned want_parts = parts ? parts : 1;
      std::vector<parallel::Range> got(want_parts, parallel::Range{1, 0});  // empty-reversed: never called
      std::vector<std::atomic<int>> calls(want_parts), covered(n);
      parallel::parallel_for_ranges(n, parts, [&](size_t b, size_t e, unsigned part) {
        calls[part]++;
        got[part] = {b, e};
        for (size_t i = b; i < e; ++i) covered[i]++;
      });
      INFO("n=" << n << " parts=" << parts);
      size_t at = 0, smallest = n, largest = 0;
      for (unsigned p = 0; p < want_parts; ++p) {
        CHECK(calls[p].load() == 1);
        CHECK(got[p].begin == at);  // each part starts where the one before ended
        CHECK(got[p].end >= got[p].begin);
        at = got[p].end;
        smallest = std::min(smallest, got[p].end - got[p].begin);
        largest = std::max(largest, got[p].end - got[p].begin);
      }
      CHECK(at == n);
      CHECK(largest - smallest <= 1);
      for (auto& c : covered) REQUIRE(c.load() == 1);
    }
  }
}

TEST_CASE("an exception in one task is rethrown after the started tasks end, and the rest are skipped") {
  for (unsigned threads : {1u, 2u, 4u, 8u}) {
    for (size_t throwing : {size_t(0), size_t(5), size_t(63)}) {
      std::atomic<int> running{0}, ran{0}, running_at_throw{-1};
      const size_t tasks = 10000;
      try {
        parallel::parallel_for(tasks, threads, [&](size_t i) {
          ran++;
          if (i == throwing) throw Error(ExitCode::io, "task " + std::to_string(i));
          running++;
          std::this_thread::sleep_for(std::chrono::microseconds(100));
          running--;
        });
      } catch (const Error& e) {
        running_at_throw = running.load();
        CHECK(std::string(e.what()) == "task " + std::to_string(throwing));
      }
      INFO("threads=" << threads << " throwing task=" << throwing);
      CHECK(running_at_throw.load() == 0);  // rethrown, and only once nothing runs
      // The tasks after it were skipped: how many others began meanwhile depends on the
      // scheduler (a loaded machine may leave the throwing thread waiting), not all did.
      CHECK(ran.load() < int(tasks));
    }
  }
  // Every task throws: one of them is rethrown, the others are dropped.
  CHECK_THROWS_AS(parallel::parallel_for(100, 4, [](size_t) { throw std::runtime_error("each"); }), std::runtime_error);
}

TEST_CASE("nested parallel_for calls finish: 8 outer tasks each run inner ones, three deep, from several threads") {
  std::atomic<size_t> inner{0};
  auto nested = [&] {
    parallel::parallel_for(8, 8, [&](size_t) {
      parallel::parallel_for(4, 4, [&](size_t) {
        parallel::parallel_for_ranges(100, 4, [&](size_t b, size_t e, unsigned) { inner += e - b; });
      });
    });
  };
  nested();
  CHECK(inner.load() == 8 * 4 * 100);
  // Callers from outside the pool at the same time (scheduler stages do this), and a
  // background task that splits its own work.
  inner = 0;
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) callers.emplace_back([&] { for (int r = 0; r < 20; ++r) nested(); });
  parallel::BackgroundTasks background(1);
  std::future<void> done = background.submit(nested);
  for (auto& t : callers) t.join();
  done.get();
  CHECK(inner.load() == (4 * 20 + 1) * 8 * 4 * 100);
}

TEST_CASE("the pool is reused: no thread per call, one thread only for threads = 1") {
  ThreadsSeen all;
  for (int call = 0; call < 100; ++call) parallel::parallel_for(8, 4, [&](size_t) { all.note(); });
  CHECK(all.ids.size() <= default_threads() + 1);  // the pool's threads and the caller
  if (default_threads() > 1) {
    // Pool threads do help: two tasks that each wait for the other to begin (at most
    // 60 s, not a guess at the scheduler's speed) both begin only on two threads.
    ThreadsSeen pair;
    std::atomic<int> begun{0};
    parallel::parallel_for(2, 2, [&](size_t) {
      pair.note();
      ++begun;
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (begun.load() < 2 && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    CHECK(pair.ids.size() == 2);
  }

  ThreadsSeen inline_only;
  parallel::parallel_for(20, 1, [&](size_t) { inline_only.note(); });
  parallel::parallel_for_ranges(1000, 1, [&](size_t, size_t, unsigned) { inline_only.note(); });
  CHECK(inline_only.ids == std::set<std::thread::id>{std::this_thread::get_id()});
}
