// The app's registry and its JSON rendering (app/commands.cpp, app/report_json.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "cli_options.hpp"
#include "commands.hpp"
#include "render_plan.hpp"
#include "report_json.hpp"
#include "reports.hpp"

using namespace gxsort;

TEST_CASE("registry: every listed command has its functions, and its help names it") {
  size_t listed = 0;
  for (const cli::CommandEntry& e : cli::command_table()) {
    if (!e.listed) continue;
    ++listed;
    CAPTURE(e.name);
    CHECK((e.add_options && e.build && e.run));
    const std::string name = e.name;
    const size_t space = name.find(' ');
    std::vector<const char*> argv{"gxsort", "help"};
    const std::string first = name.substr(0, space), second = space == std::string::npos ? "" : name.substr(space + 1);
    argv.push_back(first.c_str());
    if (!second.empty()) argv.push_back(second.c_str());
    const cli::Command c = cli::parse_command_line(int(argv.size()), argv.data());
    CHECK(c.help_text.rfind("usage: gxsort " + name, 0) == 0);
  }
  CHECK(listed == 12);
  CHECK(cli::usage_text().find("graph build IN -o GRAPH") != std::string::npos);
}

TEST_CASE("json_number: printf's %g digits; whole numbers as integers; not finite as strings") {
  CHECK(cli::json_text(cli::json_number(0.1)) == "0.1");
  CHECK(cli::json_text(cli::json_number(4.0)) == "4");
  CHECK(cli::json_text(cli::json_number(0.0)) == "0");
  CHECK(cli::json_text(cli::json_number(1.5e-05)) == "1.5e-05");
  CHECK(cli::json_text(cli::json_number(0.0227983123, 6)) == "0.0227983");
  CHECK(cli::json_text(cli::json_number(0.123456789123)) == "0.123456789");
  CHECK(cli::json_text(cli::json_number(std::nan(""))) == "\"nan\"");
  CHECK(cli::json_text(cli::json_number(-HUGE_VAL)) == "\"-inf\"");
}

TEST_CASE("reduce --json: integers as numbers up to 64 bits, past them as strings; none and nan as strings") {
  ReduceResult r;
  r.op = ReduceOp::minmax;
  ReduceValue big, low, f32, none, nan;
  big.kind = low.kind = ReduceValue::Kind::integer;
  big.magnitude = (unsigned __int128)(1) << 64;
  low.negative = true;
  low.magnitude = (unsigned __int128)(1) << 63;
  f32.kind = nan.kind = ReduceValue::Kind::real;
  f32.real = double(0.1f);
  f32.digits = 9;
  nan.real = -std::nan("");
  r.values = {big, low, f32, none, nan};
  const cli::Json j = cli::reduce_json("f", r);
  CHECK(cli::json_text(j["values"]) == "[\"18446744073709551616\",-9223372036854775808,0.100000001,\"none\",\"-nan\"]");
  CHECK(cli::reduce_value_text(big) == "18446744073709551616");
  CHECK(cli::reduce_value_text(f32) == "0.100000001");
}

TEST_CASE("json_text: names that are not UTF-8 stay one valid line") {
  cli::Json j;
  j["path"] = std::string("a\nb\xff");
  CHECK(cli::json_text(j) == "{\"path\":\"a\\nb\xef\xbf\xbd\"}");
}

TEST_CASE("plan text and json: the runs written back as they form, where there are any") {
  PlanReport r;
  r.input_bytes = uint64_t(16) << 30;
  r.records = r.input_bytes / 8;
  r.record_size = 8;
  r.sort.mode = PlanMode::external;
  r.sort.runs = 17;
  r.sort.early_writeback_bytes = uint64_t(7) << 30;
  CHECK(cli::plan_text(r).find("runs written back as they form (a synced output): the first 7") != std::string::npos);
  CHECK(cli::plan_json(r).find("\"early_writeback_bytes\":7516192768") != std::string::npos);
  r.sort.early_writeback_bytes = 0;
  CHECK(cli::plan_text(r).find("written back as they form") == std::string::npos);
}
