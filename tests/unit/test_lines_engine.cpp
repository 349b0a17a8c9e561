// The lines engine (gxsort/lines.hpp: sort_lines, merge_lines, check_lines) against
// std::stable_sort by compare_lines (then -u's filter) on random text: in memory and
// through runs with a multi-pass merge (a tiny budget), files and streams (a FIFO),
// several inputs, NUL terminators, lines without a final terminator, long lines; merge
// of sorted inputs and its refusal of one out of order; check; and that the temp
// directory is empty after success, failure and cancellation.
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../common/line_orders.hpp"
#include "../common/test_files.hpp"
#include "gxsort/gxsort.hpp"
#include "gxsort/lines.hpp"

using namespace gxsort;
using gxsort_test::gnu_line_order;
using gxsort_test::read_text;

namespace {

struct LinesDir : gxsort_test::TempDir {
  LinesDir() : TempDir("gxsort-unit-lines") { REQUIRE(!path.empty()); }
  std::string at(const std::string& name) const { return file(name); }
  // The names in it, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    DIR* d = opendir(path.c_str());
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) v.push_back(e->d_name);
    closedir(d);
    std::sort(v.begin(), v.end());
    return v;
  }
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary).write(text.data(), std::streamsize(text.size()));
}

std::vector<std::string> split_lines(const std::string& text, char t) {
  std::vector<std::string> lines;
  size_t s = 0;
  while (s < text.size()) {
    size_t e = text.find(t, s);
    if (e == std::string::npos) e = text.size();
    lines.push_back(text.substr(s, e - s));
    s = e + 1;
  }
  return lines;
}

// What sort_lines must write: the inputs' lines stably sorted by compare_lines, -u
// keeping the first of each run of equal keys.
std::string expected_sort(const std::vector<std::string>& texts, const LineOrder& order) {
  std::vector<std::string> lines;
  for (const std::string& t : texts)
    for (std::string& l : split_lines(t, order.terminator)) lines.push_back(std::move(l));
  std::stable_sort(lines.begin(), lines.end(),
                   [&](const std::string& a, const std::string& b) { return compare_lines(order, a, b) < 0; });
  std::string out;
  const std::string* kept = nullptr;
  for (const std::string& l : lines) {
    if (order.unique && kept && compare_line_keys(order, *kept, l) == 0) continue;
    kept = &l;
    out += l;
    out += order.terminator;
  }
  return out;
}

// Random lines: short ones of a small alphabet (many duplicates), empty ones, ones with
// a long shared prefix (deeper prefixes), numbers and fields, and a few long ones.
std::string random_text(uint64_t seed, size_t lines, char t, bool final_terminator = true) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (size_t i = 0; i < lines; ++i) {
    const unsigned kind = unsigned(rng() % 10);
    if (kind == 0) {
    } else if (kind <= 3) {
      for (size_t n = rng() % 4; n > 0; --n) s += char('a' + rng() % 3);
    } else if (kind <= 5) {
      s += "common-prefix-of-thirty-two-b/" + std::to_string(rng() % 50);
    } else if (kind <= 8) {
      s += std::to_string(int64_t(rng() % 2000) - 1000) + " x" + std::to_string(rng() % 7) + " " + char('A' + rng() % 26);
    } else if (rng() % 8 == 0) {
      s += std::string(rng() % 3000, char('a' + rng() % 2));
      const char c = char(rng() % 256);
      s += c == t ? '~' : c;  // any byte but the terminator
    }
    s += t;
  }
  if (!final_terminator && !s.empty()) s.pop_back();
  return s;
}

// Whether two outputs are the same bytes; where they differ is logged briefly (the
// texts are too long to print whole).
bool same_text(const std::string& got, const std::string& want) {
  if (got == want) return true;
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  MESSAGE("outputs differ at byte " << i << " of " << got.size() << " (expected " << want.size() << "): got \""
                                    << got.substr(i > 20 ? i - 20 : 0, 40) << "\", expected \""
                                    << want.substr(i > 20 ? i - 20 : 0, 40) << "\"");
  return false;
}

EngineOptions options(const LinesDir& dir, uint64_t memory, size_t fan_in = 0) {
  EngineOptions opt;
  opt.memory.bytes = memory;
  opt.memory.given = true;
  opt.tmp_dirs = {dir.path};
  opt.fan_in = fan_in;
  opt.threads = 2;
  opt.device = Device::cpu;
  opt.fsync = false;
  return opt;
}

// The orders the tests run: whole lines (reversed, unique), and GNU sort's keys: -k2,2n
// -t' ', -k1,1f -s, -k2r, -n, -u -k3,3 -t' ', -h -r.
std::vector<LineOrder> orders(char t) {
  return {gnu_line_order({}, "", "", false, false, t),
          gnu_line_order({}, "r", "", false, false, t),
          gnu_line_order({}, "", "", false, true, t),
          gnu_line_order({"2,2n"}, "", " ", false, false, t),
          gnu_line_order({"1,1f"}, "", "", true, false, t),
          gnu_line_order({"2"}, "r", "", false, false, t),
          gnu_line_order({}, "n", "", false, false, t),
          gnu_line_order({"3,3"}, "", " ", false, true, t),
          gnu_line_order({}, "hr", "", false, false, t)};
}

// Sorts `texts` (written to files in `dir`) with `opt` and checks the output and that
// nothing but the inputs and the output is left.
RunStats check_sorted_files(const LinesDir& dir, const std::vector<std::string>& texts, const LineOrder& order,
                            const EngineOptions& opt) {
  std::vector<std::string> inputs;
  for (size_t k = 0; k < texts.size(); ++k) {
    inputs.push_back(dir.at("in" + std::to_string(k)));
    write_text(inputs.back(), texts[k]);
  }
  const RunStats st = sort_lines(inputs, dir.at("out"), order, opt);
  CHECK(same_text(read_text(dir.at("out")), expected_sort(texts, order)));
  CHECK(dir.names().size() == texts.size() + 1);
  for (const std::string& in : inputs) std::remove(in.c_str());
  return st;
}

}  // namespace

TEST_CASE("lines engine: sort in memory equals a stable sort by compare_lines") {
  LinesDir dir;
  for (char t : {'\n', '\0'})
    for (const LineOrder& order : orders(t))
      for (size_t n : {0, 1, 2, 17, 3000}) {
        CAPTURE(n);
        CAPTURE(int(t));
        const RunStats st = check_sorted_files(dir, {random_text(n + 7, n, t, n % 2 == 0)}, order,
                                               options(dir, 64 << 20));
        CHECK(st.mode == "in memory");
        CHECK(st.command == "sort");
      }
}

TEST_CASE("lines engine: large groups of tied prefixes (a long shared prefix, numbers all 0)") {
  LinesDir dir;
  std::mt19937_64 rng(3);
  std::string text;
  for (int i = 0; i < 100000; ++i)
    text += "https://example.com/a/long/shared/path/" + std::to_string(rng() % 3000) + "?q=" + std::to_string(rng() % 50) + "\n";
  // --device auto: on a GPU machine its prefixes are sorted there, to the same bytes.
  EngineOptions opt = options(dir, 64 << 20);
  opt.device = Device::automatic;
  // Whole lines, -r, -u and -k1,1f -s go deeper; -n ties all (no number): one group
  // that compare_lines sorts on every thread.
  const std::vector<LineOrder> all = orders('\n');
  for (size_t k : {0, 1, 2, 4, 6}) check_sorted_files(dir, {text}, all[k], opt);
}

TEST_CASE("lines engine: large groups of equal keys go on to the next key, then the whole line") {
  LinesDir dir;
  std::mt19937_64 rng(5);
  std::string text;
  for (int i = 0; i < 100000; ++i) {  // few numbers: a group of ~90000 equal keys, small ones
    text += "w" + std::to_string(rng() % 7) + "," + std::to_string(rng() % 10 ? 1 : rng() % 5) + ".10,";
    text += std::string(rng() % 12, 'x') + std::to_string(rng() % 100);
    if (rng() % 8 == 0) text += std::string(1 + rng() % 2, '\0');  // zero bytes the padding must not match
    text += "\n";
  }
  EngineOptions opt = options(dir, 64 << 20);
  opt.device = Device::automatic;
  for (const LineOrder& order : {gnu_line_order({"2,2n"}, "", ",", false, false, '\n'),
                                 gnu_line_order({"2,2n", "1,1"}, "r", ",", false, false, '\n'),
                                 gnu_line_order({"2,2nr", "3,3"}, "", ",", true, false, '\n'),
                                 gnu_line_order({"2,2h", "1,1"}, "", ",", false, true, '\n'),
                                 gnu_line_order({"2,2n", "1.1,1.1"}, "", ",", false, false, '\n'),  // all tie at 2 keys
                                 gnu_line_order({"2,2g", "1,1"}, "", ",", false, false, '\n')})     // -g: 1.1 not exact
    check_sorted_files(dir, {text}, order, opt);
}

TEST_CASE("lines engine: several inputs are one text, each ended by a terminator") {
  LinesDir dir;
  const LineOrder order;
  check_sorted_files(dir, {"b\na", "", "c\n\na", "a"}, order, options(dir, 64 << 20));
  CHECK(read_text(dir.at("out")) == "\na\na\na\nb\nc\n");
  LineOrder u;
  u.unique = true;
  check_sorted_files(dir, {"b\na", "b\na\n"}, u, options(dir, 64 << 20));
  CHECK(read_text(dir.at("out")) == "a\nb\n");
  EngineOptions opt = options(dir, 64 << 20);  // -u given as an engine option
  opt.unique = true;
  write_text(dir.at("in"), "b\na\nb\n");
  std::remove(dir.at("out").c_str());
  bool output_there = true;
  uint64_t records = 0;
  opt.before_commit = [&](const RunStats& st) {  // the stats, before the output is made
    output_there = access(dir.at("out").c_str(), F_OK) == 0;
    records = st.records;
  };
  sort_lines({dir.at("in")}, dir.at("out"), order, opt);
  CHECK(read_text(dir.at("out")) == "a\nb\n");
  CHECK(!output_there);
  CHECK(records == 3);
}

TEST_CASE("lines engine: out of core, runs merged in several passes") {
  LinesDir dir;
  for (const LineOrder& order : orders('\n')) {
    const std::string a = random_text(11, 30000, '\n'), b = random_text(12, 10000, '\n', false);
    const RunStats st = check_sorted_files(dir, {a, b}, order, options(dir, 1 << 20, 2));
    CHECK(st.mode == "runs");
    CHECK(st.runs >= 5);
    CHECK(st.merge_levels >= 3);
  }
  LineOrder z;
  z.terminator = '\0';
  const RunStats st = check_sorted_files(dir, {random_text(13, 20000, '\0', false)}, z, options(dir, 1 << 20));
  CHECK(st.mode == "runs");
  CHECK(st.merge_levels == 1);
}

TEST_CASE("lines engine: out of core, the last merge split over 2 and 4 threads") {
  LinesDir dir;
  const std::string a = random_text(21, 30000, '\n'), b = random_text(22, 10000, '\n', false);
  for (const LineOrder& order : orders('\n')) {  // -u among them: its parts counted first
    const RunStats one = check_sorted_files(dir, {a, b}, order, [&] {
      EngineOptions opt = options(dir, 1 << 20);
      opt.threads = 1;
      return opt;
    }());
    const std::string one_out = read_text(dir.at("out"));
    for (unsigned threads : {2u, 4u}) {
      EngineOptions opt = options(dir, 1 << 20);
      opt.threads = threads;
      const RunStats st = check_sorted_files(dir, {a, b}, order, opt);
      CHECK(st.runs >= 4);
      CHECK(st.runs == one.runs);
      CHECK(st.merge_levels == 1);
      CHECK(read_text(dir.at("out")) == one_out);
    }
  }
  LineOrder z;
  z.terminator = '\0';
  check_sorted_files(dir, {random_text(23, 20000, '\0', false), std::string(5000, '\0')}, z, options(dir, 1 << 20));
}

TEST_CASE("lines engine: out of core, lines longer than a chunk's buffer among short ones") {
  // Two chunks at once, each with a quarter of the budget's text: a line of 300-700 KB
  // takes a buffer of the whole budget, the run written from the chunk before first.
  LinesDir dir;
  std::mt19937_64 rng(31);
  std::string text = random_text(32, 20000, '\n');
  for (int i = 0; i < 3; ++i) {
    const size_t at = text.find('\n', size_t(rng() % text.size()));
    text.insert(at + 1, std::string(300000 + size_t(rng() % 400000), char('a' + i)) + "\n");
  }
  for (const LineOrder& order : orders('\n')) {
    const RunStats st = check_sorted_files(dir, {text}, order, options(dir, 1 << 20));
    CHECK(st.mode == "runs");
    CHECK(st.runs >= 4);
  }
}

TEST_CASE("lines engine: the text after a long line is not cut into runs of one line") {
  // The buffer a long line took holds the text after it: chunks of it take the whole
  // budget's index (one slot's share would be none: runs of one line each).
  LinesDir dir;
  std::string text(400000, 'x');
  text += '\n' + random_text(77, 150000, '\n');
  const RunStats st = check_sorted_files(dir, {text}, LineOrder{}, options(dir, 1 << 20));
  CHECK(st.mode == "runs");
  CHECK(st.runs < 200);
}

TEST_CASE("lines engine: a stream (a FIFO) in memory and through runs") {
  LinesDir dir;
  for (uint64_t memory : {uint64_t(64) << 20, uint64_t(1) << 20}) {
    const std::string fifo = dir.at("fifo"), text = random_text(21, 60000, '\n', false);  // > 1 MiB: its buffer grows
    REQUIRE(text.size() > (1 << 20));
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] {
      sigset_t pipe;  // a reader that failed early: this write fails, the test goes on
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      write_text(fifo, text);
    });
    const LineOrder order;
    RunStats st;
    try {
      st = sort_lines({fifo}, dir.at("out"), order, options(dir, memory));
    } catch (...) {
      ::close(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));  // a writer still waiting to open it goes on
      writer.join();
      throw;
    }
    writer.join();
    CHECK(st.mode == (memory > (1 << 20) ? "in memory" : "runs"));
    CHECK(st.input_bytes == text.size());
    CHECK(same_text(read_text(dir.at("out")), expected_sort({text}, order)));
    std::remove(fifo.c_str());
    CHECK(dir.names() == std::vector<std::string>{"out"});
  }
}

TEST_CASE("lines engine: a line longer than the budget is refused, nothing left") {
  LinesDir dir;
  const LineOrder order;
  for (size_t bytes : {1100000, 2000000})  // a little longer (its end in the buffer), much longer
    for (bool merge : {false, true}) {
      CAPTURE(bytes);
      write_text(dir.at("in"), "a\nb\n" + std::string(bytes, 'x') + (merge ? "\nc\n" : "\na"));
      try {
        if (merge) merge_lines({dir.at("in")}, dir.at("out"), order, options(dir, 1 << 20));
        else sort_lines({dir.at("in")}, dir.at("out"), order, options(dir, 1 << 20));
        FAIL("no error");
      } catch (const Error& e) {
        CHECK(e.code() == ExitCode::usage);
        CHECK(std::string(e.what()) == dir.at("in") + ": a line of " + std::to_string(bytes) +
                                           " bytes is longer than --memory");
      }
      CHECK(dir.names() == std::vector<std::string>{"in"});
    }
}

TEST_CASE("lines engine: merge of sorted inputs, and of one out of order") {
  LinesDir dir;
  for (const LineOrder& order : orders('\n')) {
    std::vector<std::string> texts, inputs;
    for (int k = 0; k < 3; ++k) {
      texts.push_back(expected_sort({random_text(31 + k, 700 * k, '\n')}, order));
      if (k == 1 && !texts.back().empty()) texts.back().pop_back();  // no final terminator
      inputs.push_back(dir.at("in" + std::to_string(k)));
      write_text(inputs.back(), texts.back());
    }
    const RunStats st = merge_lines(inputs, dir.at("out"), order, options(dir, 1 << 20));
    CHECK(st.command == "merge");
    CHECK(same_text(read_text(dir.at("out")), expected_sort(texts, order)));
  }
  write_text(dir.at("in1"), "a\nc\nb\n");
  std::remove(dir.at("out").c_str());
  try {
    merge_lines({dir.at("in0"), dir.at("in1")}, dir.at("out"), LineOrder(), options(dir, 1 << 20));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()) == dir.at("in1") + ": not sorted at line 3");
  }
  CHECK(dir.names() == std::vector<std::string>{"in0", "in1", "in2"});
}

TEST_CASE("lines engine: check finds the first line out of order") {
  LinesDir dir;
  const LineOrder order;
  write_text(dir.at("a"), "a\nb\nb\nc");
  LinesCheck c = check_lines(dir.at("a"), order, options(dir, 64 << 20));
  CHECK(c.sorted);
  CHECK(c.lines == 4);
  write_text(dir.at("b"), "a\nc\nb\nd\n");
  c = check_lines(dir.at("b"), order, options(dir, 64 << 20));
  CHECK(!c.sorted);
  CHECK(c.first_violation == 3);
  CHECK(c.line == "b");
  LineOrder u;
  u.unique = true;
  c = check_lines(dir.at("a"), u, options(dir, 64 << 20));
  CHECK(!c.sorted);
  CHECK(c.first_violation == 3);
  CHECK(c.line == "b");
  const std::string sorted = expected_sort({random_text(41, 5000, '\n')}, order);
  write_text(dir.at("c"), sorted);
  c = check_lines(dir.at("c"), order, options(dir, 1 << 20));
  CHECK(c.sorted);
  CHECK(c.lines == 5000);
}

TEST_CASE("lines engine: errors and cancellation leave nothing behind") {
  LinesDir dir;
  const LineOrder order;
  try {
    sort_lines({dir.at("missing")}, dir.at("out"), order, options(dir, 64 << 20));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find(dir.at("missing")) == 0);
  }
  CHECK_THROWS_AS(sort_lines({dir.path}, dir.at("out"), order, options(dir, 64 << 20)), Error);
  CHECK(dir.names().empty());
  write_text(dir.at("in"), random_text(51, 30000, '\n'));
  for (const char* phase : {"sort runs", "merge", "merge split"}) {
    CancelToken token;
    // "merge split": the default fan-in, one merge split over the threads.
    EngineOptions opt = options(dir, 1 << 20, std::string(phase) == "merge split" ? 0 : 2);
    if (std::string(phase) == "merge split") phase = "merge";
    opt.cancel = &token;
    opt.progress = [&](const Progress& p) {
      if (std::string(p.phase) == phase) token.cancel();
    };
    CHECK_THROWS_AS(sort_lines({dir.at("in")}, dir.at("out"), order, opt), Cancelled);
    // A cancelled sort keeps its job's runs and output for --resume (lines/runs_job.hpp),
    // as a signal does; a resumed sort removes them.
    const std::vector<std::string> kept = dir.names();
    CHECK((kept.size() == 3 && kept[0].rfind(".gxsort-job.", 0) == 0 && kept[1] == kept[0] + ".out" && kept[2] == "in"));
    opt.cancel = nullptr;
    opt.resume = true;
    sort_lines({dir.at("in")}, dir.at("out"), order, opt);
    CHECK(dir.names() == std::vector<std::string>{"in", "out"});
    std::filesystem::remove(dir.at("out"));
  }
}
