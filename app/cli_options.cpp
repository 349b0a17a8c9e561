#include "cli_options.hpp"

#include <boost/program_options.hpp>
#include <sstream>


namespace po = boost::program_options;

namespace gxsort::cli {

// A non-negative whole number option. Boost reads "-1" into an unsigned type as 2^64-1;
// this type refuses anything but decimal digits that fit in 64 bits.
struct Unsigned {
  uint64_t value = 0;
};

void validate(boost::any& v, const std::vector<std::string>& values, Unsigned*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& s = po::validators::get_single_string(values);
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    throw po::invalid_option_value(s);
  unsigned long long x = 0;
  try { x = std::stoull(s); } catch (...) { throw po::invalid_option_value(s); }
  v = boost::any(Unsigned{x});
}

namespace {

struct FormatArgs {
  std::string type, key_type, format;
  Unsigned record_size, key_offset, key_bytes;
  bool reverse = false;
};

void add_format_options(po::options_description& d, FormatArgs& a) {
  d.add_options()
    ("type", po::value(&a.type), "flat key file of u32|u64|i32|i64|f32|f64 (default u64)")
    ("record-size", po::value(&a.record_size), "N-byte records (key + payload)")
    ("key-offset", po::value(&a.key_offset), "byte offset of the key in the record (default 0)")
    ("key-type", po::value(&a.key_type), "typed key in the record: u32|u64|i32|i64|f32|f64")
    ("key-bytes", po::value(&a.key_bytes), "K-byte key compared as unsigned bytes")
    ("format", po::value(&a.format), "gensort: 100-byte records with 10-byte keys")
    ("reverse,r", po::bool_switch(&a.reverse), "descending order (still stable)");
}

Format build_format(const FormatArgs& a, const po::variables_map& vm) {
  Format f;
  if (!a.format.empty()) {
    if (a.format != "gensort") fail_usage("--format: unknown format '" + a.format + "' (known: gensort)");
    if (vm.count("type") || vm.count("record-size") || vm.count("key-type") || vm.count("key-bytes"))
      fail_usage("--format gensort cannot be combined with --type, --record-size, --key-type or --key-bytes");
    f = Format::gensort();
  } else if (vm.count("record-size")) {
    if (vm.count("type")) fail_usage("--type describes flat key files; with --record-size use --key-type or --key-bytes");
    if (vm.count("key-type") == vm.count("key-bytes"))
      fail_usage("with --record-size give exactly one of --key-type T or --key-bytes K");
    f.record_size = a.record_size.value;
    f.key_offset = a.key_offset.value;
    if (vm.count("key-type")) {
      f.key_type = parse_key_type(a.key_type);
      f.key_bytes = key_type_width(f.key_type);
    } else {
      f.key_type = KeyType::bytes;
      f.key_bytes = a.key_bytes.value;
    }
  } else {
    if (vm.count("key-type") || vm.count("key-bytes") || vm.count("key-offset"))
      fail_usage("--key-type, --key-bytes and --key-offset need --record-size");
    f = Format::typed(a.type.empty() ? KeyType::u64 : parse_key_type(a.type));
  }
  f.reverse = a.reverse;
  f.validate();
  return f;
}

}  // namespace

std::string usage_text() {
  return "usage: gxsort COMMAND [options]\n"
         "\n"
         "commands:\n"
         "  sort IN -o OUT     sort a binary file of fixed-size records (stable)\n"
         "  plan IN            print what `sort` would do (--json, --dot)\n"
         "  runs IN -o DIR     form sorted runs only (run files and a manifest)\n"
         "  merge FILE... -o OUT  merge sorted files (a `runs` directory stands for its runs)\n"
         "  check FILE         record count, order, duplicate keys, checksum (exit 1: not sorted)\n"
         "  gen -o FILE --count N  generate test data (--dist, --seed)\n"
         "  reduce FILE --op sum|min|max|count|mean|minmax  a reduction of the keys (--algo flat|nested|cub)\n"
         "  info               version, build, threads, memory, GPUs\n"
         "\n"
         "`gxsort COMMAND --help` lists a command's options.\n"
         "exit codes: 0 ok, 1 check failed, 2 usage or input error, 3 I/O or resource error, 4 device error\n";
}

Command parse_command_line(int argc, const char* const* argv) {
  Command cmd;
  if (argc < 2) { cmd.name = "help"; cmd.help_text = usage_text(); return cmd; }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") { cmd.name = "help"; cmd.help_text = usage_text(); return cmd; }
  if (name == "--version") { cmd.name = "info"; return cmd; }
  static const char* known[] = {"sort", "plan", "runs", "merge", "check", "gen", "info", "reduce"};
  bool ok = false;
  for (const char* k : known) ok = ok || name == k;
  if (!ok) fail_usage("unknown command '" + name + "'\n" + usage_text());
  cmd.name = name;

  FormatArgs fa;
  std::string device = "auto";
  po::options_description general("general options");
  bool help = false, no_fsync = false;
  Unsigned fan_in, threads, count, seed{1};
  general.add_options()
    ("help,h", po::bool_switch(&help), "show this help")
    ("quiet,q", po::bool_switch(&cmd.quiet), "print nothing but errors")
    ("verbose,v", po::bool_switch(&cmd.verbose), "print a summary of what was done")
    ("stats-json", po::value(&cmd.stats_json), "write per-phase times, bytes and throughput to FILE");
  po::options_description format_opts("record format");
  add_format_options(format_opts, fa);
  po::options_description engine("engine options");
  engine.add_options()
    ("output,o", po::value(&cmd.output), "output file (sort, merge, gen) or directory (runs); may name the input")
    ("memory,S", po::value(&cmd.engine.memory), "host memory budget: bytes, K/M/G/T or N% of RAM (default 50%)")
    ("tmp-dir,T", po::value(&cmd.engine.tmp_dirs), "directory for temporary runs (repeatable; default $TMPDIR, else the output's directory)")
    ("fan-in", po::value(&fan_in), "most runs merged at once (default 64, lowered to fit --memory)")
    ("threads", po::value(&threads), "CPU threads (default: all cores)")
    ("device", po::value(&device), "cpu | cuda | auto (default auto: CUDA when a GPU is usable)")
    ("device-memory", po::value(&cmd.engine.device_memory), "GPU memory budget (default 80% of free)")
    ("unique,u", po::bool_switch(&cmd.engine.unique), "keep only the first record of each group of equal keys (sort, merge, runs)")
    ("no-fsync", po::bool_switch(&no_fsync), "do not fsync the output before renaming it into place (faster, less durable)")
    ("merge-kernel", po::value(&cmd.engine.merge_kernel), "GPU merge kernel: auto|basic|tiled|circular|thrust (default auto: the fastest)");
  po::options_description extra("command options");
  bool json = false, dot = false;
  if (name == "plan") extra.add_options()("json", po::bool_switch(&json), "print the plan as JSON")("dot", po::bool_switch(&dot), "print the merge tree for Graphviz");
  if (name == "reduce") extra.add_options()
    ("op", po::value(&cmd.reduce_op), "sum|min|max|count|mean|minmax (required)")
    ("algo", po::value(&cmd.reduce_algo), "GPU kernel: flat|nested|cub (default flat)");
  if (name == "gen") extra.add_options()
    ("count", po::value(&count), "number of records")
    ("dist", po::value(&cmd.gen.dist), "uniform|sorted|reverse|few-unique|zipf|all-equal|bits (default uniform)")
    ("seed", po::value(&seed), "random seed (default 1): the same seed gives the same bytes");

  po::options_description all;
  all.add(general).add(format_opts).add(engine);
  if (name == "plan" || name == "gen" || name == "reduce") all.add(extra);
  po::options_description hidden;
  hidden.add_options()("operand", po::value(&cmd.inputs));
  po::options_description parse_set;
  parse_set.add(all).add(hidden);
  po::positional_options_description pos;
  pos.add("operand", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc - 1, argv + 1).options(parse_set).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fail_usage(name + ": " + e.what() + " (see gxsort " + name + " --help)");
  }
  if (help) {
    std::ostringstream o;
    o << "usage: gxsort " << name;
    if (name == "sort") o << " IN -o OUT [options]";
    else if (name == "plan") o << " IN [options]";
    else if (name == "runs") o << " IN -o DIR [options]";
    else if (name == "merge") o << " FILE... -o OUT [options]";
    else if (name == "check") o << " FILE [options]";
    else if (name == "reduce") o << " FILE --op OP [options]";
    else if (name == "gen") o << " -o FILE --count N [options]";
    o << "\n\n" << all;
    cmd.name = "help";
    cmd.help_text = o.str();
    return cmd;
  }
  if (threads.value > 4096) fail_usage("--threads: at most 4096");
  cmd.engine.fan_in = size_t(fan_in.value);
  cmd.engine.threads = unsigned(threads.value);
  cmd.gen.count = count.value;
  cmd.gen.seed = seed.value;
  cmd.engine.device = device;
  cmd.engine.fsync = !no_fsync;
  if (device != "cpu" && device != "cuda" && device != "auto")
    fail_usage("--device: expected cpu, cuda or auto, got '" + device + "'");
  const std::string& mk = cmd.engine.merge_kernel;
  if (mk != "auto" && mk != "basic" && mk != "tiled" && mk != "circular" && mk != "thrust")
    fail_usage("--merge-kernel: expected auto, basic, tiled, circular or thrust, got '" + mk + "'");
  if (vm.count("fan-in") && cmd.engine.fan_in < 2) fail_usage("--fan-in must be at least 2");
  if (vm.count("threads") && cmd.engine.threads < 1) fail_usage("--threads must be at least 1");
  if (cmd.quiet && cmd.verbose) fail_usage("-q and -v cannot be combined");
  cmd.engine.format = build_format(fa, vm);
  if (json && dot) fail_usage("plan: choose one of --json and --dot");
  cmd.plan_format = json ? "json" : dot ? "dot" : "text";

  auto operands = [&](size_t lo, size_t hi, const char* what) {
    if (cmd.inputs.size() < lo || cmd.inputs.size() > hi)
      fail_usage(name + ": expected " + what + " (see gxsort " + name + " --help)");
  };
  if (name == "sort" || name == "runs") {
    operands(1, 1, "one input file");
    if (cmd.output.empty()) fail_usage(name + ": the output is required: -o " + (name == "runs" ? "DIR" : "FILE"));
  } else if (name == "plan" || name == "check") {
    operands(1, 1, "one input file");
  } else if (name == "reduce") {
    operands(1, 1, "one input file");
    if (cmd.reduce_op.empty()) fail_usage("reduce: --op is required (sum, min, max, count, mean or minmax)");
  } else if (name == "merge") {
    operands(1, SIZE_MAX, "one or more sorted input files");
    if (cmd.output.empty()) fail_usage("merge: the output is required: -o FILE");
  } else if (name == "gen") {
    operands(0, 0, "no operands");
    if (cmd.output.empty()) fail_usage("gen: the output is required: -o FILE");
    if (!vm.count("count")) fail_usage("gen: --count N is required");
  } else if (name == "info") {
    operands(0, 0, "no operands");
  }
  return cmd;
}

}  // namespace gxsort::cli
