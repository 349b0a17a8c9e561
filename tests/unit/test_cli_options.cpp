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
  CHECK(c.engine.memory.given);
  CHECK(c.engine.memory.bytes == uint64_t(1) << 30);
  CHECK(c.engine.tmp_dirs == std::vector<std::string>{"/a", "/b"});
  CHECK(c.engine.fan_in == 8);
  CHECK(c.engine.threads == 3);
  CHECK(c.engine.device == Device::cpu);
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

TEST_CASE("--key: repeatable fields make a composite key; one field is the single key; names wait for a .npy") {
  auto c = parse({"sort", "x", "-o", "y", "--record-size", "16", "--key", "4:u16be:desc", "--key", "8:f64", "-r"});
  const Format& f = c.engine.format;
  CHECK(f.composite());
  CHECK(f.record_size == 16);
  CHECK(f.key_text() == "4:u16be:desc,8:f64");
  CHECK(f.reverse);
  auto s = parse({"check", "x", "--record-size", "24", "--key", "8:i64:desc"});
  CHECK(!s.engine.format.composite());
  CHECK(s.engine.format.key_offset == 8);
  CHECK(s.engine.format.key_type == KeyType::i64);
  CHECK(s.engine.format.reverse);
  auto t = parse({"sort", "x", "-o", "y", "--type", "i16"});
  CHECK(t.engine.format.composite());
  CHECK(t.engine.format.record_size == 2);
  auto n = parse({"sort", "x.npy", "-o", "y", "--key", "a", "--key", "b:desc"});
  CHECK(n.keys == std::vector<std::string>{"a", "b:desc"});
  CHECK(parse({"sort", "x.npy", "-o", "y", "--key", "0:u32"}).keys.size() == 1);  // the header gives the record size
  CHECK(code_of({"sort", "x", "-o", "y", "--key", "0:u32"}) == ExitCode::usage);  // no --record-size
  CHECK(code_of({"sort", "x", "-o", "y", "--key", "a"}) == ExitCode::usage);      // a name, no .npy
  CHECK(code_of({"sort", "x", "-o", "y", "--record-size", "8", "--key", "0:u32", "--key", "a"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--record-size", "8", "--key", "0:u32", "--key-type", "u32"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--record-size", "8", "--key", "6:u32"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x.npy", "-o", "y", "--record-size", "8", "--key", "a"}) == ExitCode::usage);
}

TEST_CASE("usage errors exit 2") {
  CHECK(code_of({"dedupe", "x"}) == ExitCode::usage);                            // no -o (sort's is stdout)
  CHECK(code_of({"frobnicate"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--bogus"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--type", "u17"}) == ExitCode::usage);
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

TEST_CASE("each command takes its own options: others are errors, never ignored") {
  CHECK(code_of({"info", "-o", "x"}) == ExitCode::usage);
  CHECK(code_of({"info", "--type", "f32"}) == ExitCode::usage);
  CHECK(code_of({"check", "f", "--fan-in", "3"}) == ExitCode::usage);
  CHECK(code_of({"check", "f", "-u"}) == ExitCode::usage);
  CHECK(code_of({"info", "--stats-json", "s"}) == ExitCode::usage);
  CHECK(code_of({"gen", "-o", "x", "--count", "1", "--memory", "1G"}) == ExitCode::usage);
  CHECK(code_of({"clean", "--device", "cpu"}) == ExitCode::usage);
  try {
    parse({"check", "f", "--fan-in", "3"});
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("--fan-in") != std::string::npos);
    CHECK(m.find("does not apply to check") != std::string::npos);
  }
  // What applies still parses.
  CHECK(parse({"check", "f", "--threads", "2", "--device", "cpu", "--type", "u32"}).engine.threads == 2);
  CHECK(parse({"runs", "f", "-o", "d", "--direct-io", "on"}).engine.direct_io == DirectIo::on);
  CHECK(parse({"clean", "-T", "/a", "-n"}).dry_run);
}

TEST_CASE("no abbreviations: --merge is not --merge-kernel") {
  CHECK(code_of({"dedupe", "x", "-o", "y", "--merge", "tiled"}) == ExitCode::usage);
  auto m = parse({"sort", "x", "-o", "y", "--merge", "tiled"});  // GNU sort's --merge: merge x and tiled
  CHECK(m.name == "merge");
  CHECK(m.inputs == std::vector<std::string>{"x", "tiled"});
  CHECK(m.engine.merge_kernel == MergeKernel::automatic);
  CHECK(parse({"sort", "x", "-o", "y", "--merge-kernel", "tiled"}).engine.merge_kernel == MergeKernel::tiled);
}

TEST_CASE("options are typed once: enums and byte counts") {
  auto c = parse({"sort", "x", "-o", "y", "--memory", "25%", "--device-memory", "2G", "--direct-io", "off", "--ooc",
                  "partition", "--device", "cuda"});
  CHECK(c.engine.memory.percent == 25);
  CHECK(c.engine.device_memory.bytes == uint64_t(2) << 30);
  CHECK(c.engine.direct_io == DirectIo::off);
  CHECK(c.engine.ooc == OocMethod::partition);
  CHECK(c.engine.device == Device::cuda);
  CHECK(parse({"reduce", "f", "--op", "minmax", "--algo", "cub"}).reduce_op == ReduceOp::minmax);
  CHECK(parse({"dedupe", "f", "-o", "y", "--strategy", "bitmap"}).engine.dedupe.strategy == DedupeStrategy::bitmap);
  CHECK(parse({"gen", "-o", "y", "--count", "5", "--dist", "few-unique"}).gen.dist == GenDist::few_unique);
  CHECK(parse({"plan", "x", "--dot"}).plan_format == PlanFormat::dot);
  CHECK(code_of({"sort", "x", "-o", "y", "--memory", "lots"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--ooc", "sideways"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--threads", "0"}) == ExitCode::usage);
}

TEST_CASE("help: per command, with value names; gxsort alone is a usage error") {
  auto h = parse({"help", "check"});
  CHECK(h.name == "help");
  CHECK(h.help_text.find("usage: gxsort check") != std::string::npos);
  CHECK(h.help_text.find("--fan-in") == std::string::npos);  // not a check option
  CHECK(h.help_text.find(" arg") == std::string::npos);      // real value names
  CHECK(parse({"sort", "--help"}).help_text.find("--memory ] SIZE") != std::string::npos);
  auto none = parse({});
  CHECK(none.name == "help");
  CHECK(none.help_is_error);
  CHECK_FALSE(parse({"--help"}).help_is_error);
}

namespace {
std::string error_of(std::vector<const char*> args) {
  try { parse(args); } catch (const Error& e) { return e.what(); }
  return "";
}
}  // namespace

TEST_CASE("GNU sort's spellings of gxsort's options") {
  auto c = parse({"sort", "x", "-o", "y", "--parallel=3", "--buffer-size=1G", "--temporary-directory=/a", "-T", "/b", "-s"});
  CHECK(c.engine.threads == 3);
  CHECK(c.threads_given);
  CHECK(c.engine.memory.bytes == uint64_t(1) << 30);
  CHECK(c.engine.tmp_dirs.size() == 2);
  CHECK(parse({"sort", "x", "-o", "y", "--buffer-size", "2048"}).engine.memory.bytes == 2048 * 1024);  // bare: KiB
  CHECK(parse({"sort", "x", "-o", "y", "-S", "2048"}).engine.memory.bytes == 2048);                   // -S is --memory
  CHECK(parse({"sort", "x", "-o", "y", "--buffer-size", "10%"}).engine.memory.percent == 10);
  CHECK(parse({"merge", "x", "-o", "y", "--stable"}).name == "merge");
  CHECK(code_of({"sort", "x", "-o", "y", "--memory", "1G", "--buffer-size", "1G"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--threads", "1", "--parallel", "1"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--parallel", "0"}) == ExitCode::usage);
}

TEST_CASE("GNU sort's streams and modes: no input is stdin, no -o stdout; -c, -C, -m") {
  auto s = parse({"sort"});
  CHECK(s.inputs == std::vector<std::string>{"-"});
  CHECK(s.output == "-");
  CHECK(s.stdout_default);
  CHECK_FALSE(parse({"sort", "x", "-o", "-"}).stdout_default);
  auto c = parse({"sort", "-c", "x", "--type", "u32"});
  CHECK(c.name == "check");
  CHECK(c.inputs == std::vector<std::string>{"x"});
  CHECK(c.engine.format.key_type == KeyType::u32);
  CHECK_FALSE(c.quiet);
  CHECK(parse({"sort", "-C", "x"}).quiet);
  CHECK(parse({"sort", "--check=silent", "x"}).quiet);
  CHECK(parse({"sort", "-c"}).inputs == std::vector<std::string>{"-"});
  auto m = parse({"sort", "-m", "a", "b"});
  CHECK(m.name == "merge");
  CHECK(m.inputs == std::vector<std::string>{"a", "b"});
  CHECK(m.output == "-");
  CHECK(parse({"sort", "--", "-c"}).inputs == std::vector<std::string>{"-c"});  // after --: a file
  CHECK(code_of({"sort", "-c", "-m", "x"}) == ExitCode::usage);
  // The other commands keep their meaning.
  CHECK(code_of({"merge", "a", "b"}) == ExitCode::usage);
  CHECK(code_of({"check"}) == ExitCode::usage);
  CHECK(code_of({"plan"}) == ExitCode::usage);
  CHECK(code_of({"check", "x", "-c"}) == ExitCode::usage);
}

TEST_CASE("GNU sort's options gxsort does not take: one line with GNU's meaning and the gxsort way") {
  for (const char* o : {"-M", "-V", "-R", "-nM", "--month-sort", "--batch-size=4", "--files0-from=f", "--debug"})
    CHECK(error_of({"sort", "x", o}).find("GNU sort's") != std::string::npos);
  CHECK(error_of({"info", "-n"}).find("GNU sort's") == std::string::npos);  // no order there: the usual line
}

TEST_CASE("text lines: --lines, --format lines and GNU sort's text options; -r, -s, -u alone are records'") {
  using Args = std::vector<const char*>;
  for (const Args& args : {Args{"sort", "x", "--lines"}, Args{"sort", "x", "--format", "lines"}, Args{"sort", "x", "-z"},
                           Args{"merge", "a", "b", "-o", "y", "--lines"}, Args{"check", "x", "--lines", "-u"},
                           Args{"dedupe", "x", "-o", "y", "--lines"}, Args{"plan", "x", "--lines"}})
    CHECK(parse(args).lines);
  CHECK_FALSE(parse({"sort", "x", "-r", "-s", "-u"}).lines);
  CHECK(parse({"sort", "a", "b", "c", "--lines"}).inputs.size() == 3);  // concatenated, as GNU sort reads them
  CHECK(parse({"sort", "-h"}).name == "sort");                          // GNU's -h there
  CHECK(parse({"sort", "--help"}).name == "help");
  CHECK(parse({"-h"}).name == "help");
  CHECK(error_of({"sort", "x", "--lines", "--type", "u64"}).find("--type") != std::string::npos);
  CHECK(error_of({"sort", "x", "-z", "--key", "0:u64"}).find("0:u64") != std::string::npos);
  CHECK(parse({"runs", "a", "b", "-o", "d", "-k2,2n"}).lines);  // several inputs, as sort's
  CHECK(parse({"runs", "a", "b", "-o", "d", "--lines"}).inputs.size() == 2);
  CHECK(error_of({"runs", "a", "b", "-o", "d"}).find("one input") != std::string::npos);  // records: one
  CHECK(error_of({"runs", "x", "-o", "d", "--lines", "--resume"}).find("--resume") != std::string::npos);
  CHECK(code_of({"check", "x", "-u"}) == ExitCode::usage);  // records: -u is for lines
  CHECK(code_of({"sort", "x", "-t", ""}) == ExitCode::usage);
}

TEST_CASE("text lines: GNU's keys and letters resolved once into the LineOrder") {
  const LineOrder o = parse({"sort", "x", "-t,", "-k2,2n", "-k1,1r", "-s"}).line_order;
  CHECK(o.separator == ',');
  REQUIRE(o.keys.size() == 2);
  CHECK(o.keys[0].kind == LineKeyKind::numeric);
  CHECK(o.keys[0].start_field == 1);
  CHECK(o.keys[1].reverse);
  CHECK(o.stable);
  const LineOrder nr = parse({"sort", "x", "-nru"}).line_order;  // combined, as GNU takes them
  CHECK(nr.unique);
  CHECK(nr.reverse);
  CHECK(parse({"sort", "x", "-t", ",", "-k2"}).line_order.separator == ',');
  CHECK(parse({"sort", "x", "--key=1.3,1.5"}).line_order.keys.size() == 1);
  CHECK(error_of({"sort", "x", "-k0"}).rfind("sort: ", 0) == 0);  // line_order's complaint, named
}

TEST_CASE("numpy's dtype names in --type and --key; gxsort's u8 stays 8-bit") {
  auto type_of = [](const char* t) { return parse({"sort", "x", "-o", "y", "--type", t}).engine.format; };
  CHECK(type_of("<u8").key_type == KeyType::u64);
  CHECK(type_of("uint64").key_type == KeyType::u64);
  CHECK(type_of("u8").record_size == 1);
  CHECK(type_of("|u1").describe() == type_of("u8").describe());
  CHECK(type_of("uint8").describe() == type_of("u8").describe());
  CHECK(type_of("=f8").key_type == KeyType::f64);
  CHECK(type_of("float32").key_type == KeyType::f32);
  CHECK(type_of("int8").describe() == type_of("i8").describe());
  CHECK(type_of("int8").describe() != type_of("u8").describe());
  const Format be = type_of(">i4");
  CHECK(be.record_size == 4);
  CHECK(be.describe() == type_of("i32be").describe());
  auto k = parse({"sort", "x", "-o", "y", "--record-size", "16", "--key", "8:<f8:desc", "--key", "0:>u4"});
  CHECK(k.engine.format.describe() ==
        parse({"sort", "x", "-o", "y", "--record-size", "16", "--key", "8:f64:desc", "--key", "0:u32be"}).engine.format.describe());
  CHECK(code_of({"sort", "x", "-o", "y", "--type", "|u8"}) == ExitCode::usage);
  CHECK(code_of({"sort", "x", "-o", "y", "--type", "<f2"}) == ExitCode::usage);
}
