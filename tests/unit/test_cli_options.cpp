#include <doctest/doctest.h>

#include <vector>

#include "cli_options.hpp"

using namespace gxsort;

namespace {
cli::Command parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gxsort");
  return cli::parse_command_line(int(args.size()), args.data());
}
ExitCode code_of(std::vector<const char*> args) {
  try { parse(args); } catch (const Error& e) { return e.code(); }
  return ExitCode::ok;
}
}  // namespace

TEST_CASE("sort options become one Command") {
  auto c = parse({"sort", "in.bin", "-o", "out.bin", "--type", "f32", "-r", "--memory", "1G", "-T", "/a", "-T", "/b",
                  "--fan-in", "8", "--threads", "3", "--device", "cpu"});
  CHECK(c.name == "sort");
  CHECK(c.inputs == std::vector<std::string>{"in.bin"});
  CHECK(c.output == "out.bin");
  CHECK(c.engine.format.key_type == KeyType::f32);
  CHECK(c.engine.format.flat());
  CHECK(c.engine.format.reverse);
  CHECK(c.engine.memory == "1G");
  CHECK(c.engine.tmp_dirs == std::vector<std::string>{"/a", "/b"});
  CHECK(c.engine.fan_in == 8);
  CHECK(c.engine.threads == 3);
  CHECK(c.engine.device == "cpu");
}

TEST_CASE("record formats") {
  auto c = parse({"sort", "x", "-o", "y", "--record-size", "24", "--key-offset", "8", "--key-type", "i64"});
  CHECK(c.engine.format.record_size == 24);
  CHECK(c.engine.format.key_offset == 8);
  CHECK(c.engine.format.key_type == KeyType::i64);
  CHECK(!c.engine.format.flat());
  auto g = parse({"check", "x", "--format", "gensort"});
  CHECK(g.engine.format.key_bytes == 10);
  CHECK(g.engine.format.record_size == 100);
  auto b = parse({"check", "x", "--record-size", "16", "--key-bytes", "5"});
  CHECK(b.engine.format.key_type == KeyType::bytes);
  CHECK(parse({"check", "x"}).engine.format.key_type == KeyType::u64);
}

TEST_CASE("usage errors exit 2") {
  CHECK(code_of({"sort", "x"}) == ExitCode::usage);                              // no -o
  CHECK(code_of({"frobnicate"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--bogus"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--type", "u16"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--record-size", "8"}) == ExitCode::usage);  // no key
  CHECK(code_of({"sort", "x", "-o", "y", "--record-size", "8", "--key-offset", "6", "--key-type", "u32"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--fan-in", "1"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--device", "tpu"}) == ExitCode::usage);
  CHECK(code_of({"gen", "-o", "y"}) == ExitCode::usage);                         // no --count
  CHECK(code_of({"merge", "-o", "y"}) == ExitCode::usage);
  CHECK(code_of({"plan", "x", "--json", "--dot"}) == ExitCode::usage);
}

TEST_CASE("help is a command of its own") {
  CHECK(parse({}).name == "help");
  auto h = parse({"sort", "--help"});
  CHECK(h.name == "help");
  CHECK(h.help_text.find("--memory") != std::string::npos);
}
