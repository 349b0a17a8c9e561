// Runs of text lines (gxsort/lines.hpp: form_line_runs, merge_lines of a runs directory;
// lines/line_runs_dir.hpp: the order their manifest names): the order's text tells apart
// every option set that orders lines differently (and not -u, which each command applies
// itself); runs formed within a small budget and merged give sort_lines' bytes; a merge
// by another order, or as records, is refused as a usage error.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "../common/line_orders.hpp"
#include "../common/test_files.hpp"
#include "gxsort/error.hpp"
#include "gxsort/gxsort.hpp"
#include "gxsort/lines.hpp"
#include "lines/line_runs_dir.hpp"

using namespace gxsort;
using gxsort_test::gnu_line_order;
using gxsort_test::read_text;

namespace {

// The code of the Error `fn` throws (ExitCode::ok: none).
template <class Fn>
ExitCode thrown_code(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return ExitCode::ok;
}

}  // namespace

TEST_CASE("runs of lines: the manifest's order tells apart the orders, not -u") {
  const std::vector<LineOrder> orders = {
      gnu_line_order({}),          gnu_line_order({}, "r"),          gnu_line_order({}, "n"),         gnu_line_order({"2"}),
      gnu_line_order({"2,2"}),     gnu_line_order({"2,2n"}),         gnu_line_order({"2,2"}, "", ","), gnu_line_order({"2,2n"}, "", ","),
      gnu_line_order({"2b,2"}),    gnu_line_order({"2,2b"}),         gnu_line_order({"1.3,1.5"}),     gnu_line_order({"2,2"}, "", "", true),
      gnu_line_order({}, "", "", false, false, '\0'),          gnu_line_order({"2,2", "1,1r"}), gnu_line_order({"2,2g"}),
      gnu_line_order({"2,2h"}),    gnu_line_order({"2,2f"}),         gnu_line_order({"2,2d"}),        gnu_line_order({"2,2i"}),
  };
  std::set<std::string> texts;
  for (const LineOrder& o : orders) texts.insert(lines::order_text(o));
  CHECK(texts.size() == orders.size());
  CHECK(lines::order_text(gnu_line_order({"2,2n"}, "", ",")) == "newline -t 0x2c -k2.1n,2.0");
  CHECK(lines::order_text(gnu_line_order({"2,2n"}, "", ",", false, true)) == lines::order_text(gnu_line_order({"2,2n"}, "", ",")));
}

TEST_CASE("runs of lines: formed within a small budget, merged to sort_lines' bytes; another order refused") {
  gxsort_test::TempDir d("gxsort-unit-line-runs");
  std::string text;
  for (int i = 0; i < 60000; ++i) text += "k" + std::to_string(i * 7919 % 1000) + "," + std::to_string(i % 37) + "\n";
  std::ofstream(d.file("in.txt"), std::ios::binary) << text;
  EngineOptions opt;
  opt.memory = {uint64_t(1) << 20, 0, true};
  opt.fsync = false;
  const LineOrder order = gnu_line_order({"2,2n"}, "", ",");
  const RunStats st = form_line_runs({d.file("in.txt")}, d.file("rd"), order, opt);
  CHECK(st.runs > 1);
  CHECK(st.records == 60000);
  merge_lines({d.file("rd")}, d.file("merged.txt"), order, opt);
  sort_lines({d.file("in.txt")}, d.file("sorted.txt"), order, opt);
  CHECK(read_text(d.file("merged.txt")) == read_text(d.file("sorted.txt")));
  CHECK(thrown_code([&] { merge_lines({d.file("rd")}, d.file("x.txt"), gnu_line_order({"2,2"}, "", ","), opt); }) ==
        ExitCode::usage);
  CHECK(thrown_code([&] { merge_files({d.file("rd")}, d.file("x.bin"), opt); }) == ExitCode::usage);
  // Into the same directory again: refused, the runs untouched.
  CHECK(thrown_code([&] { form_line_runs({d.file("in.txt")}, d.file("rd"), order, opt); }) == ExitCode::usage);
  merge_lines({d.file("rd")}, d.file("again.txt"), order, opt);
  CHECK(read_text(d.file("again.txt")) == read_text(d.file("sorted.txt")));
}
