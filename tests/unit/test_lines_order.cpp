// Text lines' order (gxsort/lines.hpp: line_order, compare_lines, compare_line_keys;
// lines/prefix.hpp: stage_prefix) against GNU sort itself: random texts of many shapes
// under many option sets, sorted by `LC_ALL=C sort` and by std::stable_sort with
// compare_lines, must give the same bytes; bad options must be refused as GNU refuses
// them; the prefixes, stage by stage, must never contradict compare_lines, and the
// in-memory sort (lines/sort_in_memory.hpp) must be that stable sort.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "gxsort/error.hpp"
#include "gxsort/lines.hpp"
#include "lines/prefix.hpp"
#include "lines/sort_in_memory.hpp"

using namespace gxsort;
using gxsort_test::read_text;
using gxsort_test::TempDir;

namespace {

using Args = std::vector<std::string>;

struct SortRun {
  int status = -1;  // the exit status, -1 when it did not exit
  std::string out, err;
};

void write_all(const std::string& path, const std::string& text) {
  gxsort_test::write_file(path, gxsort_test::Bytes(text.begin(), text.end()));
}

// `LC_ALL=C sort ARGS FILE`, its output and complaints read back from files in `dir`.
SortRun gnu_sort(const TempDir& dir, const Args& args, const std::string& text) {
  const std::string in = dir.file("in"), out = dir.file("out"), err = dir.file("err");
  write_all(in, text);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
    ::setenv("LC_ALL", "C", 1);
    std::vector<char*> argv{const_cast<char*>("sort")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(const_cast<char*>(in.c_str()));
    argv.push_back(nullptr);
    ::execvp("sort", argv.data());
    ::_exit(127);
  }
  int wstatus = 0;
  REQUIRE(::waitpid(pid, &wstatus, 0) == pid);
  SortRun run;
  run.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  REQUIRE_MESSAGE(run.status != 127, "GNU sort (the oracle) is not installed");
  REQUIRE(run.status != 126);
  run.out = read_text(out);
  run.err = read_text(err);
  return run;
}

// GNU's argv as LineOptions: -k SPEC, -t SEP, -s, -u, -z and ordering letters ("-nr").
LineOptions options_of(const Args& args) {
  LineOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-k" || a == "-t") {
      REQUIRE(i + 1 < args.size());
      (a == "-k" ? o.keys.push_back(args[i + 1]) : void(o.separator = args[i + 1]));
      ++i;
      continue;
    }
    REQUIRE(a.size() >= 2);
    REQUIRE(a[0] == '-');
    if (a[1] == 'k' || a[1] == 't') {  // -kSPEC, -tSEP
      (a[1] == 'k' ? o.keys.push_back(a.substr(2)) : void(o.separator = a.substr(2)));
      continue;
    }
    for (const char c : a.substr(1)) {
      if (c == 's') o.stable = true;
      else if (c == 'u') o.unique = true;
      else if (c == 'z') o.zero_terminated = true;
      else o.global += c;
    }
  }
  return o;
}

std::vector<std::string> split_lines(const std::string& text, char terminator) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(terminator, start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// What gxsort's order gives: std::stable_sort by compare_lines (-u: then the first of
// each run of equal keys), each line with its terminator.
std::string sorted_by_order(const LineOrder& order, const std::string& text) {
  std::vector<std::string> lines = split_lines(text, order.terminator);
  std::stable_sort(lines.begin(), lines.end(),
                   [&](const std::string& a, const std::string& b) { return compare_lines(order, a, b) < 0; });
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (order.unique && i > 0 && compare_line_keys(order, lines[i - 1], lines[i]) == 0) continue;
    out += lines[i];
    out += order.terminator;
  }
  return out;
}

std::string shown(const Args& args) {
  std::string s = "sort";
  for (const std::string& a : args) s += " '" + a + "'";
  return s;
}

// Bytes as C escapes, for a failure's message.
std::string escaped(const std::string& text) {
  std::string s;
  static const char kHex[] = "0123456789abcdef";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') s += ch;
    else if (c == '\n') s += "\\n\n";
    else s += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Random texts.

namespace {

using Rng = std::mt19937_64;

size_t pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }
bool chance(Rng& rng, int percent) { return static_cast<int>(pick(rng, 100)) < percent; }
template <size_t N>
std::string one_of(Rng& rng, const char* const (&choices)[N]) {
  return choices[pick(rng, N)];
}

std::string blanks(Rng& rng, size_t most) {
  std::string s;
  for (size_t n = pick(rng, most + 1); n > 0; --n) s += chance(rng, 70) ? ' ' : '\t';
  return s;
}

// Any bytes, short lines mostly: letters of both cases, digits, blanks, punctuation,
// bytes >= 0x80, '\r', and `inner` (NUL, or '\n' with -z).
std::string any_bytes(Rng& rng, char inner) {
  static const std::string kPalette = std::string("aAbBzZ09 \t,.-+_~!\r") + "\x80\xe9\xff\x01\x7f";
  const size_t len = chance(rng, 80) ? pick(rng, 12) : pick(rng, 201);
  std::string s;
  for (size_t i = 0; i < len; ++i) s += chance(rng, 4) ? inner : kPalette[pick(rng, kPalette.size())];
  return s;
}

std::string number(Rng& rng) {
  std::string s = blanks(rng, chance(rng, 30) ? 2 : 0);
  if (chance(rng, 30)) s += chance(rng, 85) ? "-" : "+";
  if (chance(rng, 20)) s += std::string(pick(rng, 4), '0');
  if (chance(rng, 5)) s += "\x80";
  const size_t digits = chance(rng, 10) ? pick(rng, 30) : pick(rng, 5);
  for (size_t i = 0; i < digits; ++i) {
    s += static_cast<char>('0' + (chance(rng, 30) ? 0 : pick(rng, 10)));
    if (chance(rng, 4)) s += chance(rng, 80) ? "\x80" : "\x80\x80";  // GNU 9.1's thousands separator
  }
  if (chance(rng, 35)) {
    s += '.';
    for (size_t i = pick(rng, 5); i > 0; --i) s += static_cast<char>('0' + (chance(rng, 40) ? 0 : pick(rng, 10)));
  }
  if (chance(rng, 10)) s += one_of(rng, {"e5", "E-3", "e", "e+2"});
  if (chance(rng, 25)) s += one_of(rng, {"K", "k", "M", "m", "G", "T", "P", "E", "Z", "Y", "R", "Q", "x", "Ki"});
  if (chance(rng, 10)) s += one_of(rng, {".5", "-3", "abc", " 7", "..1", ",5"});
  return s;
}

std::string general(Rng& rng) {
  static const char* const kWords[] = {
      "inf", "-inf", "+inf", "infinity", "INF", "nan", "-nan", "NaN", "nan(12)", "nan(0x100)", "-nan(3)",
      "0x1p3", "0x10", "-0x1.8p1", "0X1P-2", "1e5", "1E-5", "-1e5000", "1e5000", "1e-5000", "-0", "0",
      "+0", "0.0", "-0.0e3", "abc", "", "e5", ".", "-", "+", "1.5e", "0x", "  12", "\t-3.25", "1,5"};
  return chance(rng, 60) ? std::string(one_of(rng, kWords)) : number(rng);
}

std::string word(Rng& rng) {
  static const char* const kWords[] = {"apple", "Apple", "APPLE", "b", "B", "zeta", "_x", "a-b", "a.b",
                                       "10",    "9",     "-3",    "é",  "\xff", "",  "a\r", "x~y", "Zz"};
  return one_of(rng, kWords);
}

std::string blank_fields(Rng& rng) {
  std::string s = blanks(rng, chance(rng, 40) ? 3 : 0);
  for (size_t n = pick(rng, 6); n > 0; --n) {
    s += chance(rng, 30) ? number(rng) : word(rng);
    if (n > 1) s += chance(rng, 20) ? blanks(rng, 3) : " ";
  }
  return s + (chance(rng, 15) ? blanks(rng, 2) : "");
}

std::string comma_fields(Rng& rng) {
  std::string s;
  for (size_t n = pick(rng, 6); n > 0; --n) {
    const size_t kind = pick(rng, 4);
    s += kind == 0 ? number(rng) : kind == 1 ? general(rng) : kind == 2 ? word(rng) : blanks(rng, 2) + word(rng);
    if (n > 1) s += ',';
  }
  return s;
}

std::string few(Rng& rng) {
  static const char* const kLines[] = {"same", "same ", "Same", "1 same", " 1 same", "", "b,2", "b,10"};
  return one_of(rng, kLines);
}

// Up to a few KB of fields, most of it shared with other lines: ties go deep.
std::string long_line(Rng& rng) {
  std::string s = chance(rng, 50) ? std::string(pick(rng, 3000), 'a') : blanks(rng, 3);
  for (size_t n = pick(rng, 40); n > 0; --n) s += (chance(rng, 50) ? " " : ",") + word(rng) + number(rng);
  return s;
}

// A text of random lines of one or several shapes; '\r' ends some (CRLF); the last line
// has no terminator now and then.
std::string random_text(Rng& rng, char terminator) {
  const char inner = terminator == '\n' ? '\0' : '\n';
  const size_t shapes = pick(rng, 7), lines = chance(rng, 10) ? pick(rng, 3) : pick(rng, 150);
  std::string text;
  for (size_t i = 0; i < lines; ++i) {
    const size_t shape = shapes == 6 ? pick(rng, 6) : shapes;
    std::string line = shape == 0   ? any_bytes(rng, inner)
                       : shape == 1 ? blank_fields(rng)
                       : shape == 2 ? comma_fields(rng)
                       : shape == 3 ? blanks(rng, 1) + number(rng) + (chance(rng, 50) ? " " + word(rng) : "")
                       : shape == 4 ? general(rng) + (chance(rng, 30) ? "," + number(rng) : "")
                       : chance(rng, 90) ? few(rng)
                                         : long_line(rng);
    if (chance(rng, 5)) line += '\r';
    text += line;
    if (i + 1 < lines || chance(rng, 80)) text += terminator;
  }
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The option sets, and the differential test.

namespace {

std::vector<Args> option_sets() {
  return {
      {},
      {"-r"},
      {"-s"},
      {"-u"},
      {"-r", "-u"},
      {"-k2"},
      {"-k2,2"},
      {"-k", "1.3,1.5"},
      {"-k2b"},
      {"-k2,2b"},
      {"-k2.2b,3.1"},
      {"-k2.5b,2.3"},
      {"-k3,2"},
      {"-k1.2,1.2", "-k", "2.1b,2.1b"},
      {"-k2,2", "-k1,1"},
      {"-b", "-k2,2"},
      {"-k2,2", "-b"},
      {"-t,", "-k2,2"},
      {"-t,", "-k2"},
      {"-t", ",", "-k2,2n", "-k1,1r"},
      {"-t,", "-k3n", "-k2,2", "-s"},
      {"-t,", "-k2.2,2.3", "-u"},
      {"-t,", "-k2,2g"},
      {"-t,", "-k2,2h", "-r"},
      {"-t", " ", "-k2,2"},
      {"-k2,2n", "-k1,1r"},
      {"-k2n", "-u"},
      {"-n"},
      {"-n", "-r"},
      {"-nr", "-s"},
      {"-n", "-u"},
      {"-g"},
      {"-g", "-u"},
      {"-gr"},
      {"-h"},
      {"-h", "-s"},
      {"-k1,1hf"},
      {"-f"},
      {"-f", "-u"},
      {"-d"},
      {"-i"},
      {"-di"},
      {"-fd", "-r"},
      {"-b"},
      {"-b", "-u"},
      {"-bf", "-k2"},
      {"-r", "-k2,2", "-k1,1"},
      {"-r", "-k2,2r"},
      {"-n", "-k2,2r", "-k1,1"},
      {"-k1,1d", "-k2f"},
      {"-k1,1i", "-k2,2nr"},
      {"-k2,2g", "-r"},
      {"-k1bn"},
      {"-z"},
      {"-z", "-k2"},
      {"-z", "-n"},
      {"-z", "-t", ",", "-k2,2"},
      {"-t", "\\0", "-k2"},
      {"-t", "\\0", "-k2,2n", "-z"},
      {"-s", "-k1,1f"},
      {"-u", "-k2,2f"},
      {"-k1,2.2b"},
      {"-k2,3.0b", "-k1.10"},
      {"-t,", "-k2.2b,3.2b"},
      {"-t,", "-k2.3n,2"},
      {"-k1,1gf", "-k2,2"},
      {"-t", "\x80", "-k2,2n"},
      {"-t", "\r", "-k2r", "-k1,1"},
      {"-k4,4", "-k3,3nr", "-k99"},
      {"-k", "3.2bi,3.4bd"},
      {"-z", "-fd"},
      {"-z", "-b", "-k2,2"},
      {"-z", "-h", "-u"},
  };
}

// GNU's -g order of NaNs depends on its version (9.1 memcmps whole long doubles, padding
// bytes from its stack included; 9.2 and later put -nan before nan, equal within a sign):
// no text for -g compared with the GNU sort here has a NaN. gxsort's NaN order (9.2's) is
// checked against a fixed expectation ("-g's NaNs" below).
bool nans_by_chance(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-t") ++i;  // its separator
    else if (args[i].rfind("-t", 0) != 0 && args[i].find('g') != std::string::npos) return true;
  }
  return false;
}

std::string without_nans(const std::string& text, char terminator) {
  std::string kept;
  for (const std::string& line : split_lines(text, terminator)) {
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower.find("nan") == std::string::npos) kept += line + terminator;
  }
  return kept;
}

// -h's units: GNU 9.2 added R and Q (after Y), which gxsort orders as GNU 9.2 does. Where
// the GNU sort here is older, texts for -h (and the hand-picked one) are compared with R
// and Q spelled 'x' (no unit to either), and gxsort's R and Q are checked on their own.
bool human_sort(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-t") ++i;  // its separator
    else if (args[i].rfind("-t", 0) != 0 && args[i].find('h') != std::string::npos) return true;
  }
  return false;
}

bool gnu_knows_r_and_q(const TempDir& dir) {
  static const bool knows = gnu_sort(dir, {"-h"}, "1Q\n2\n").out == "2\n1Q\n";
  return knows;
}

std::string for_gnu_units(const TempDir& dir, const Args& args, std::string text) {
  if (!human_sort(args) || gnu_knows_r_and_q(dir)) return text;
  for (char& c : text)
    if (c == 'R' || c == 'Q' || c == 'r' || c == 'q') c = 'x';
  return text;
}

char terminator_of(const Args& args) {
  return std::find(args.begin(), args.end(), "-z") != args.end() ? '\0' : '\n';
}

}  // namespace

TEST_CASE("lines order: GNU sort's order of random texts, option set by option set") {
  TempDir dir("gxsort-lines-order");
  uint64_t seed = 39;
  for (const Args& args : option_sets()) {
    const LineOrder order = line_order(options_of(args));
    Rng rng(++seed);
    for (int round = 0; round < 16; ++round) {
      std::string text = random_text(rng, terminator_of(args));
      if (nans_by_chance(args)) text = without_nans(text, terminator_of(args));
      text = for_gnu_units(dir, args, text);
      const SortRun gnu = gnu_sort(dir, args, text);
      REQUIRE_MESSAGE(gnu.status == 0, shown(args) << ": " << gnu.err);
      const std::string ours = sorted_by_order(order, text);
      if (ours != gnu.out) {
        FAIL_CHECK(shown(args) << " differs from GNU on the text:\n"
                               << escaped(text) << "\nGNU:\n"
                               << escaped(gnu.out) << "\nours:\n"
                               << escaped(ours));
        break;
      }
    }
  }
}

TEST_CASE("lines order: hand-picked lines where GNU's rules are easy to get wrong") {
  TempDir dir("gxsort-lines-picked");
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"-n"}, "-0\n0\n\nabc\n-\n.0\n-.0\n0.000\n+0\n  -0.0\n"},
      {{"-n", "-s"}, "1.5\n1.50\n01.5\n1.5.3\n1.5x\n 1.5\n\t1.5\n"},
      {{"-n"}, "123456789012345678901234567890\n123456789012345678901234567891\n-99999999999999999999\n9e9\n"},
      {{"-h"}, "1K\n1k\n1M\n0K\n0.0M\n-1K\n-1M\n-0\n1Q\n1R\n1Y\n1Z\n2\n1.5K\n1.K\n"},
      {{"-g", "-s"}, "x\n\n-inf\ninf\n1e5000\n-0\n0\n0x1p3\n8\n-1e5000\n"},  // NaNs: below
      {{"-k2"}, "a  b\na b\na\tb\na\n"},
      {{"-k2b"}, "a  c\na b\na\td\n"},
      {{"-t", ":", "-k2,2", "-s"}, "a:b:c\na::c\na\n:\n::\n"},
      {{"-k1.3,1.2"}, "abcd\nabdc\n"},
      {{"-d", "-s"}, "a-b\nab\na b\n-ab\n\x01"
                     "ab\n"},
      {{"-i", "-s"}, "a\x01"
                     "b\nab\na\x7f"
                     "b\n"},
      {{"-f", "-s"}, "a\nA\nb\nB\n_\n"},
      {{}, "a\r\na\n\xff\n\x80\nA\n\n"},
      {{"-z", "-k2"}, std::string("x\nb a\0x a\0y\tc\0", 14)},
  };
  for (const auto& [args, given] : cases) {
    const std::string text = for_gnu_units(dir, args, given);
    const SortRun gnu = gnu_sort(dir, args, text);
    REQUIRE(gnu.status == 0);
    CHECK_MESSAGE(sorted_by_order(line_order(options_of(args)), text) == gnu.out, shown(args));
  }
}

// GNU 9.2 and later (glibc): NaNs after the conversion errors and before -inf, every
// negative NaN before every positive one, NaNs of one sign equal whatever their payload
// (input order with -s, else the last-resort bytes).
TEST_CASE("lines order: -g's NaNs, as GNU 9.2 orders them") {
  const std::string text = "nan\n-nan\nnan(1)\n8\nnan(256)\n-inf\n-nan(2)\nx\nNAN\n-NaN(0x10)\n";
  CHECK(sorted_by_order(line_order(options_of({"-g", "-s"})), text) ==
        "x\n-nan\n-nan(2)\n-NaN(0x10)\nnan\nnan(1)\nnan(256)\nNAN\n-inf\n8\n");
  CHECK(sorted_by_order(line_order(options_of({"-g"})), text) ==
        "x\n-NaN(0x10)\n-nan\n-nan(2)\nNAN\nnan\nnan(1)\nnan(256)\n-inf\n8\n");
  CHECK(sorted_by_order(line_order(options_of({"-g", "-r", "-s"})), text) ==
        "8\n-inf\nnan\nnan(1)\nnan(256)\nNAN\n-nan\n-nan(2)\n-NaN(0x10)\nx\n");
  CHECK(sorted_by_order(line_order(options_of({"-g", "-u"})), text) == "x\n-nan\nnan\n-inf\n8\n");
  CHECK(sorted_by_order(line_order(options_of({"-t,", "-k1,1g", "-k2,2n", "-s"})), "nan,2\n-nan(5),3\nnan(7),1\n") ==
        "-nan(5),3\nnan(7),1\nnan,2\n");
}

TEST_CASE("lines order: -h's R and Q after Y, as GNU 9.2 orders them") {
  const LineOrder h = line_order(options_of({"-h"}));
  CHECK(sorted_by_order(h, "1Q\n1R\n1Y\n2\n-1Q\n-1R\n1K\n") == "-1Q\n-1R\n2\n1K\n1Y\n1R\n1Q\n");
}

// ---------------------------------------------------------------------------------------
// Bad options.

namespace {

std::string refusal(const LineOptions& o) {
  try {
    line_order(o);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("lines order: bad options are refused with GNU's complaint") {
  TempDir dir("gxsort-lines-bad");
  const std::vector<Args> bad = {
      {"-k0"},          {"-k1.0"},        {"-k1,0"},     {"-k0,1"},         {"-kx"},
      {"-k1,x"},        {"-k1.x"},        {"-k1x"},      {"-k2,1.x"},       {"-k-1"},
      {"-k1.-1"},       {"-k1."},         {"-k"},        {"-k1,"},          {"-k1.1.1"},
      {"-k1,1nq"},      {"-t", "ab"},     {"-t", "\\n"}, {"-n", "-g"},      {"-k1,1fgn"},
      {"-d", "-n"},     {"-k1,1dn"},      {"-k1di,1n"},  {"-h", "-n", "-k1"},     {"-k1,1hg"},
      {"-i", "-g"},     {"-n", "-h", "-k2b", "-k1"},    {"-k1b,1b", "-k1,1in"}, {"-nhg"},
  };
  for (Args args : bad) {
    if (args == Args{"-k"}) args = {"-k", ""};  // an empty spec
    const SortRun gnu = gnu_sort(dir, args, "");
    REQUIRE_MESSAGE(gnu.status == 2, shown(args));
    REQUIRE(gnu.err.rfind("sort: ", 0) == 0);
    const std::string gnu_line = gnu.err.substr(6, gnu.err.find('\n') - 6);
    CHECK_MESSAGE(refusal(options_of(args)) == gnu_line, shown(args));
  }
}

TEST_CASE("lines order: what GNU accepts and gxsort refuses, or LineOptions cannot say") {
  LineOptions o;
  o.global = "M";
  CHECK(refusal(o) == "-M: month sort is not supported by gxsort");
  o.global = "nR";
  CHECK(refusal(o) == "-R: random sort is not supported by gxsort");
  o.global = "nxb";
  CHECK(refusal(o) == "unknown ordering option '-x'");
  o = LineOptions{};
  o.keys = {"2", "2,3V"};
  CHECK(refusal(o) == "-k '2,3V': version sort is not supported by gxsort");
  o.keys = {"1\x01"};
  CHECK(refusal(o) == "stray character in field spec: invalid field specification '1\\001'");
  o = LineOptions{};
  o.separator = "\t\t";
  CHECK(refusal(o) == "multi-character tab '\\t\\t'");
}

TEST_CASE("lines order: what line_order resolves") {
  LineOptions o;
  o.global = "r";
  LineOrder order = line_order(o);
  CHECK(order.keys.empty());  // -r alone reverses the last resort
  CHECK(order.reverse);
  o.global = "nr";
  o.keys = {"2,2", "3b", "4r", "1.2,1.3f"};
  o.separator = "\\0";
  order = line_order(o);
  REQUIRE(order.keys.size() == 4);
  CHECK(order.separator == 0);
  CHECK((order.keys[0].kind == LineKeyKind::numeric && order.keys[0].reverse));  // inherits
  CHECK((order.keys[0].start_field == 1 && order.keys[0].end_field == 1 && order.keys[0].end_char == 0));
  CHECK((order.keys[1].kind == LineKeyKind::text && order.keys[1].skip_start_blanks && !order.keys[1].reverse));
  CHECK((order.keys[2].kind == LineKeyKind::text && order.keys[2].reverse));  // only r: inherits nothing
  CHECK((order.keys[3].start_char == 1 && order.keys[3].end_char == 3 && order.keys[3].fold));
  o = LineOptions{};
  o.keys = {"1"};
  order = line_order(o);
  CHECK(order.keys[0].start_field == LineKey::kWholeLine);  // -k1: from the line's start, as GNU
  CHECK(order.keys[0].end_field == LineKey::kWholeLine);
  o.keys = {"99999999999999999999999"};
  CHECK(line_order(o).keys[0].start_field == SIZE_MAX - 1);  // too large: SIZE_MAX, as GNU
}

// ---------------------------------------------------------------------------------------
// Prefixes.

namespace {

// The contract of prefix.hpp for a pair, stage by stage: from depth 0 on, while the
// prefixes tie and one of the lines is not exhausted, go deeper; the first pair of
// different prefixes must order the lines as compare_lines does. Equal prefixes that are
// both exact say the stage is equal: the next stage starts at depth 0 (after the last,
// the lines are equal). An exhausted line's deeper prefixes are those of an empty key.
void check_prefix_pair(const LineOrder& order, const std::string& a, const std::string& b) {
  const int c = compare_lines(order, a, b);
  const auto shown_pair = [&](size_t stage, size_t depth) {
    return "stage " + std::to_string(stage) + " depth " + std::to_string(depth) + ": " + escaped(a) + " | " +
           escaped(b);
  };
  for (size_t stage = 0, depth = 0; stage < lines::stage_count(order);) {
    bool ea = false, eb = false, xa = false, xb = false, ignored = false;
    const uint64_t pa = lines::stage_prefix(order, stage, a, depth, ea, xa);
    const uint64_t pb = lines::stage_prefix(order, stage, b, depth, eb, xb);
    if (pa != pb) {
      CHECK_MESSAGE((pa < pb ? c < 0 : c > 0), shown_pair(stage, depth));
      return;
    }
    CHECK((ea || !xa));  // exact only where nothing deeper says more
    CHECK((eb || !xb));
    if (xa && xb) {
      CHECK_MESSAGE(lines::compare_stage(order, stage, a, b) == 0, shown_pair(stage, depth));
      ++stage, depth = 0;
      continue;
    }
    const uint64_t empty = lines::stage_prefix(order, stage, "", depth + 8, ignored, ignored);
    if (ea) CHECK(lines::stage_prefix(order, stage, a, depth + 8, ignored, ignored) == empty);
    if (eb) CHECK(lines::stage_prefix(order, stage, b, depth + 8, ignored, ignored) == empty);
    const bool deeper = lines::stage_goes_deeper(order, stage);
    if (!deeper) CHECK((ea && eb));
    if ((ea && eb) || !deeper) return;
    depth += 8;
    REQUIRE(depth <= a.size() + b.size() + 8);
  }
  CHECK_MESSAGE(c == 0, "all stages exact and equal: " << escaped(a) << " | " << escaped(b));
}

// The second line of a pair: another line, or `a` itself or with a byte more (a zero
// byte's too: zero padding must not pass for it).
std::string paired(Rng& rng, const std::vector<std::string>& lines, const std::string& a) {
  if (!chance(rng, 20)) return lines[pick(rng, lines.size())];
  static const char* const kTails[] = {"", "x", "1", ","};
  return chance(rng, 30) ? a + std::string(1 + pick(rng, 2), '\0') : a + one_of(rng, kTails);
}

}  // namespace

TEST_CASE("lines order: prefixes never contradict compare_lines") {
  uint64_t seed = 3900;
  for (const Args& args : option_sets()) {
    const LineOrder order = line_order(options_of(args));
    Rng rng(++seed);
    const char terminator = terminator_of(args);
    std::vector<std::string> lines;
    for (int round = 0; round < 4; ++round) {
      for (std::string& line : split_lines(random_text(rng, terminator), terminator)) lines.push_back(line);
    }
    lines.push_back("");
    for (size_t i = 0; i < 3000 && lines.size() > 1; ++i) {
      const std::string& a = lines[pick(rng, lines.size())];
      check_prefix_pair(order, a, paired(rng, lines, a));
    }
  }
}

TEST_CASE("lines order: the in-memory sort is std::stable_sort by compare_lines") {
  uint64_t seed = 3950;
  MemoryOptions mo;
  mo.device = Device::cpu;
  mo.threads = 2;
  for (const Args& args : option_sets()) {
    const LineOrder order = line_order(options_of(args));
    Rng rng(++seed);
    const char terminator = terminator_of(args);
    // Random lines, each with copies and near copies: groups of tied prefixes at every stage.
    std::vector<std::string> lines;
    for (std::string& line : split_lines(random_text(rng, terminator), terminator)) {
      for (size_t copies = pick(rng, 40); copies > 0; --copies) lines.push_back(paired(rng, {line}, line));
      lines.push_back(std::move(line));
    }
    lines::LineRefs refs;
    for (const std::string& line : lines) refs.push_back({line.data(), line.size()});
    lines::Permutation want(lines.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(),
                     [&](uint64_t a, uint64_t b) { return compare_lines(order, lines[a], lines[b]) < 0; });
    CHECK_MESSAGE(lines::sorted_permutation(refs, order, mo) == want, shown(args));
  }
}

TEST_CASE("lines order: numeric prefixes order numbers") {
  LineOptions o;
  o.global = "n";
  const LineOrder n = line_order(o);
  bool exhausted = false;
  const auto p = [&](const char* line) { return lines::line_prefix(n, line, 0, exhausted); };
  CHECK(p("-0") == p(""));
  CHECK(p("0.000") == p("abc"));
  CHECK(p("-1") < p("-0.5"));
  CHECK(p("-0.5") < p("0"));
  CHECK(p("0") < p("0.001"));
  CHECK(p("9") < p("10"));
  CHECK(p("1.25") < p("1.3"));
  CHECK(p("1.5") == p("01.50"));
  CHECK(p("-10") < p("-9"));
  CHECK(exhausted);
}

TEST_CASE("lines order: which prefixes are exact") {
  const auto exact = [](const char* global, const std::string& line) {
    LineOptions o;
    o.global = global;
    bool exhausted = false, is_exact = false;
    lines::stage_prefix(line_order(o), 0, line, 0, exhausted, is_exact);
    return is_exact;
  };
  CHECK(exact("n", "-1234567890.123"));  // 13 significant digits: all in the code
  CHECK(exact("n", "0001.5000"));
  CHECK(exact("n", "abc"));  // 0
  CHECK_FALSE(exact("n", "1234567890.1234"));
  CHECK(exact("h", "-12345678901.5K"));  // 12 digits (the unit takes bits)
  CHECK_FALSE(exact("h", "123456789012.5K"));
  CHECK(exact("g", "-1.5e3"));  // a double holds it
  CHECK(exact("g", "abc"));     // an error: all errors are equal
  CHECK_FALSE(exact("g", "0.1"));
  CHECK_FALSE(exact("g", "1e400"));
  CHECK(exact("g", "nan"));  // NaNs of one sign are equal
  CHECK(exact("g", "-nan(3)"));
  LineOptions g;
  g.global = "g";
  check_prefix_pair(line_order(g), "1", "1.000000000000000001");  // one double, two long doubles
  CHECK(exact("", "1234567"));  // the whole line, ended in its first 8 bytes
  CHECK_FALSE(exact("", "123456789"));
  CHECK_FALSE(exact("", std::string("12\0", 3)));  // ends in a zero byte, as padding would
  CHECK(exact("d", std::string("12\0", 3)));      // which d ignores
}
