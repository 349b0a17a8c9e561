// The last merge of sort's runs split over threads (lines/merge_split.hpp): the same
// bytes as the one-thread merge (merge_lines_into) and as a stable sort of the runs'
// lines, whatever the lines: ties across runs, heavy duplicates, one value for all,
// empty lines, long (unsampled) lines, NUL terminators, keys, -r and -u.
#include <stdlib.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../common/line_orders.hpp"
#include "../common/test_files.hpp"
#include "gxsort/lines.hpp"
#include "io/temp_files.hpp"
#include "lines/merge_split.hpp"
#include "lines/write_lines.hpp"

using namespace gxsort;
using namespace gxsort::lines;
using gxsort_test::gnu_line_order;

namespace {

struct SplitDir : gxsort_test::TempDir {
  SplitDir() : TempDir("gxsort-unit-split") { REQUIRE(!path.empty()); }
};

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void stable_sort_lines(std::vector<std::string>& lines, const LineOrder& order) {
  std::stable_sort(lines.begin(), lines.end(),
                   [&](const std::string& a, const std::string& b) { return compare_lines(order, a, b) < 0; });
}

// `lines` sorted into a new run in `dir`, sampled into `index` (written on 4 threads:
// each part's first line is sampled too, so that small runs have several samples).
io::TempFile write_run(const SplitDir& dir, std::vector<std::string> lines, const LineOrder& order,
                       RunIndex& index) {
  stable_sort_lines(lines, order);
  LineRefs refs;
  for (const std::string& l : lines) refs.push_back({l.data(), l.size()});
  Permutation perm(refs.size());
  std::iota(perm.begin(), perm.end(), 0);
  io::TempFile run = io::TempFile::create_unlisted(dir.path, "run");
  index.budget = 1 << 20;
  write_sorted(run.file(), 0, refs, perm, {}, order.terminator, 4, 4096, &index);
  return run;
}

// A run sorted in memory as a sort's last chunk: its lines one after another in one
// text (in their order), their refs, and the stable sort's permutation and -u's flags.
struct MemoryRun {
  std::string text;
  LineRefs lines;
  Permutation perm;
  KeepFlags keep;
  MemoryRun(const std::vector<std::string>& run, const LineOrder& order) {
    for (const std::string& l : run) text += l + order.terminator;
    size_t at = 0;
    for (const std::string& l : run) {
      lines.push_back({text.data() + at, l.size()});
      at += l.size() + 1;
    }
    perm.resize(lines.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](uint64_t a, uint64_t b) {
      return compare_lines(order, lines[a].view(), lines[b].view()) < 0;
    });
    if (order.unique)
      for (size_t i = 0; i < perm.size(); ++i)
        keep.push_back(i == 0 || compare_line_keys(order, lines[perm[i - 1]].view(), lines[perm[i]].view()) != 0);
  }
  SortedLines sorted() const { return {text.data(), &lines, &perm, &keep}; }
};

// The runs merged split over `threads` and on one thread: both must be the stable
// sort of the runs' lines in run order (-u: the first of equal keys kept). With
// `last_in_memory`, the last run is a block of lines sorted in memory (a sort's last
// chunk), not a file. Returns the parts of the split merge.
size_t check_split(const std::vector<std::vector<std::string>>& run_lines, const LineOrder& order, unsigned threads,
                   bool last_in_memory = false) {
  SplitDir dir;
  std::vector<io::TempFile> runs;
  const size_t files = run_lines.size() - (last_in_memory ? 1 : 0);
  std::vector<RunIndex> indexes(files);
  std::vector<std::string> all;
  std::unique_ptr<MemoryRun> memory;
  for (size_t r = 0; r < run_lines.size(); ++r) {
    if (r < files) runs.push_back(write_run(dir, run_lines[r], order, indexes[r]));
    else memory = std::make_unique<MemoryRun>(run_lines[r], order);
    std::vector<std::string> sorted = run_lines[r];
    stable_sort_lines(sorted, order);
    all.insert(all.end(), sorted.begin(), sorted.end());
  }
  stable_sort_lines(all, order);
  std::string want;
  size_t kept = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (!order.unique || kept == 0 || compare_line_keys(order, all[i - 1], all[i]) != 0) {
      want += all[i] + order.terminator;
      ++kept;
    }
  MergeSetup setup;
  setup.order = &order;
  setup.buffer_bytes = 4096;
  setup.max_line = 1 << 20;
  setup.threads = threads;
  io::TempFile split = io::TempFile::create_unlisted(dir.path, "split");
  const SortedLines block = memory ? memory->sorted() : SortedLines{};
  const MergeCounts n = merge_split(runs, indexes, split.file(), setup, nullptr, memory ? &block : nullptr);
  std::vector<std::unique_ptr<LineReader>> readers;
  for (const io::TempFile& run : runs)
    readers.push_back(std::make_unique<LineReader>(run.file(), run.path(), order.terminator, 4096, 1 << 20));
  if (memory) readers.push_back(std::make_unique<LineReader>(block, "block", 0, block.size()));
  io::TempFile one = io::TempFile::create_unlisted(dir.path, "one");
  LineWriter w(one.file(), 0, order.terminator, 4096, nullptr);
  merge_lines_into(readers, w, setup);
  const std::string got = file_text(split.path());
  CHECK(got == file_text(one.path()));
  CHECK(got == want);
  CHECK(n.lines == kept);
  CHECK(n.bytes == want.size());
  return n.parts;
}

// Lines of a few kinds: short ones of a small alphabet (many ties), empty ones, ones
// with a shared prefix, numbers with fields, and a few longer than kMaxSampleLine.
std::vector<std::string> random_lines(uint64_t seed, size_t n, char t) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> lines(n);
  for (std::string& s : lines) {
    const unsigned kind = unsigned(rng() % 10);
    if (kind == 0) continue;
    if (kind <= 3) {
      for (size_t k = rng() % 4; k > 0; --k) s += char('a' + rng() % 3);
    } else if (kind <= 5) {
      s = "a-shared-prefix/" + std::to_string(rng() % 500);
    } else if (kind <= 8) {
      s = std::to_string(int64_t(rng() % 2000) - 1000) + " x" + std::to_string(rng() % 7) + " " + char('A' + rng() % 26);
    } else {
      s = std::string(rng() % 8 == 0 ? 1500 : 20, char('a' + rng() % 2));
      s += t == '\n' ? '\0' : '\n';  // the other terminator: a byte like any
    }
  }
  return lines;
}

std::vector<std::vector<std::string>> random_runs(uint64_t seed, size_t runs, size_t lines, char t) {
  std::vector<std::vector<std::string>> v;
  for (size_t r = 0; r < runs; ++r) v.push_back(random_lines(seed + r, lines + r * 500, t));
  return v;
}

}  // namespace

TEST_CASE("lines merge split: the same bytes as one merge and a stable sort, in several parts") {
  for (char t : {'\n', '\0'}) {
    const std::vector<LineOrder> orders = {
        gnu_line_order({}, "", "", false, false, t),          gnu_line_order({}, "r", "", false, false, t),
        gnu_line_order({"2,2n"}, "", " ", false, false, t),   gnu_line_order({"1,1f"}, "", "", true, false, t),
        gnu_line_order({"2"}, "r", "", false, false, t),      gnu_line_order({}, "n", "", false, false, t),
        gnu_line_order({}, "hr", "", false, false, t),        gnu_line_order({}, "", "", false, true, t),
        gnu_line_order({"3,3"}, "", " ", false, true, t), gnu_line_order({"1,1n"}, "r", " ", false, true, t)};
    for (const LineOrder& order : orders)
      for (unsigned threads : {2u, 4u}) {
        CAPTURE(threads);
        CAPTURE(int(t));
        CHECK(check_split(random_runs(threads + t, 4, 8000, t), order, threads) > 2);
      }
  }
}

TEST_CASE("lines merge split: skewed, all equal, empty lines, one run") {
  const LineOrder order;
  std::vector<std::vector<std::string>> skewed = random_runs(7, 4, 20000, '\n');
  for (auto& run : skewed)
    for (size_t i = 0; i < run.size(); ++i)
      if (i % 10) run[i] = "m";  // most lines in one splitter's range
  CHECK(check_split(skewed, order, 4) > 1);
  CHECK(check_split({std::vector<std::string>(30000, "same"), std::vector<std::string>(20000, "same")}, order, 4) <= 2);
  CHECK(check_split({std::vector<std::string>(30000, ""), std::vector<std::string>(9000, "")}, order, 2) <= 2);
  std::vector<std::vector<std::string>> empties = random_runs(9, 3, 20000, '\n');
  for (auto& run : empties)
    for (size_t i = 0; i < run.size(); i += 2) run[i].clear();
  CHECK(check_split(empties, order, 4) > 1);
  CHECK(check_split(random_runs(5, 1, 30000, '\n'), order, 2) > 1);
  // Numbers that tie under -n with different bytes: ties go to the lower run.
  const LineOrder n = gnu_line_order({}, "n", "", false, false, '\n');
  std::vector<std::vector<std::string>> ties(3);
  for (size_t r = 0; r < 3; ++r)
    for (size_t i = 0; i < 20000; ++i) ties[r].push_back(std::to_string(i % 50) + (r ? " run" + std::to_string(r) : ""));
  CHECK(check_split(ties, gnu_line_order({"1,1n"}, "", " ", true, false, '\n'), 4) > 1);
  CHECK(check_split(ties, n, 4) > 1);
  CHECK(check_split(ties, gnu_line_order({"1,1n"}, "", " ", false, true, '\n'), 4) > 1);  // -u: the first of each key
  CHECK(check_split(skewed, gnu_line_order({}, "", "", false, true, '\n'), 2) > 1);
}

TEST_CASE("lines merge split: the last run a block sorted in memory (a sort's last chunk)") {
  for (const LineOrder& order : {gnu_line_order({}, "", "", false, false, '\n'),
                                 gnu_line_order({"2,2n"}, "", " ", false, false, '\n'),
                                 gnu_line_order({"1,1f"}, "", "", true, false, '\n'),
                                 gnu_line_order({}, "", "", false, true, '\n'),
                                 gnu_line_order({"1,1n"}, "r", " ", false, true, '\n'),
                                 gnu_line_order({"2"}, "", "", false, true, '\0')}) {
    const char t = order.terminator;
    for (unsigned threads : {2u, 4u}) {
      CAPTURE(threads);
      CHECK(check_split(random_runs(threads, 4, 8000, t), order, threads, true) > 2);
      // The block of one line, and a block of lines that all tie with the runs' first.
      std::vector<std::vector<std::string>> one = random_runs(threads + 1, 3, 5000, t);
      one.push_back({"a-shared-prefix/7"});
      CHECK(check_split(one, order, threads, true) > 1);
      one.back() = std::vector<std::string>(3000, one[0][0]);
      CHECK(check_split(one, order, threads, true) >= 1);
    }
  }
  // Only the block, beside one file run; skewed: the block's lines all after the runs'.
  const LineOrder plain;
  CHECK(check_split({random_lines(3, 9000, '\n'), random_lines(4, 200, '\n')}, plain, 4, true) > 1);
  std::vector<std::vector<std::string>> skewed = random_runs(11, 3, 6000, '\n');
  skewed.push_back(std::vector<std::string>(8000, "zzz"));
  for (size_t i = 0; i < skewed.back().size(); ++i) skewed.back()[i] += std::to_string(i);
  CHECK(check_split(skewed, plain, 4, true) > 2);
}
