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
         "  dedupe IN -o OUT   sorted, one record per distinct key (--assume-sorted, --count, --keep, --strategy)\n"
         "  reduce FILE --op sum|min|max|count|mean|minmax  a reduction of the keys (--algo flat|nested|cub)\n"
         "  graph build IN -o GRAPH  an edge list (snap|mtx|bin32|bin64) to a CSR graph (--symmetrize, ...)\n"
         "  bfs GRAPH --source S  BFS levels (-o) and parents (--parents) of a CSR graph, with stats\n"
         "  info               version, build, threads, memory, GPUs\n"
         "  clean [-T DIR]...  remove the temporary files of gxsort runs that were killed (-n: list only)\n"
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
  static const char* known[] = {"sort", "plan", "runs", "merge", "check", "gen", "info", "reduce", "dedupe", "graph", "bfs", "clean"};
  bool ok = false;
  for (const char* k : known) ok = ok || name == k;
  if (!ok) fail_usage("unknown command '" + name + "'\n" + usage_text());
  cmd.name = name;
  int first = 1;  // argv index of the command word (`graph build` has two)
  if (name == "graph") {
    if (argc < 3 || std::string(argv[2]) != "build") fail_usage("graph: expected `gxsort graph build IN -o GRAPH` (see gxsort graph build --help)");
    cmd.name = name = "graph build";
    first = 2;
  }

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
    ("direct-io", po::value(&cmd.engine.direct_io), "auto|on|off: temporary runs, and a merge's synced output, bypass the page cache (O_DIRECT; default auto: when the runs would fill more than half the memory available to the cache)")
    ("ooc", po::value(&cmd.engine.ooc), "auto|merge|partition: how a sort larger than --memory goes out of core: merge = sorted runs in temp files merged with the fan-in; partition = records scattered by key range into bucket files, each then sorted in memory into the output (default auto: partition on the CPU on at most 4 threads, when its buckets fit the page cache and no --fan-in is given, else merge)")
    ("merge-kernel", po::value(&cmd.engine.merge_kernel), "GPU merge kernel: auto|basic|tiled|circular|thrust (default auto: the fastest)");
  po::options_description extra("command options");
  bool json = false, dot = false;
  if (name == "plan") extra.add_options()("json", po::bool_switch(&json), "print the plan as JSON")("dot", po::bool_switch(&dot), "print the merge tree for Graphviz");
  if (name == "reduce") extra.add_options()
    ("op", po::value(&cmd.reduce_op), "sum|min|max|count|mean|minmax (required)")
    ("algo", po::value(&cmd.reduce_algo), "GPU kernel: flat|nested|cub (default flat)");
  std::string keep = "first";
  if (name == "dedupe") extra.add_options()
    ("assume-sorted", po::bool_switch(&cmd.engine.dedupe.assume_sorted), "the input is sorted: stream it (exit 1 naming the first unsorted record)")
    ("count", po::bool_switch(&cmd.engine.dedupe.count), "write each kept record followed by its group size as a little-endian u64 (record size + 8 bytes per output record)")
    ("keep", po::value(&keep), "first|last: which record of a group of equal keys is kept, in input order (default first)")
    ("strategy", po::value(&cmd.engine.dedupe.strategy), "sort|bitmap|auto (default auto: bitmap for flat u32/i32/f32 keys when the input has more than 2^26 keys or does not sort in memory, and no --count)");
  Unsigned g_scale, g_edge_factor{16}, bfs_source, bfs_random;
  if (name == "graph build") extra.add_options()
    ("input-format", po::value(&cmd.engine.graph.build.input_format), "snap|mtx|bin32|bin64 (default: from the extension: .mtx, .bin32/.u32, .bin64/.u64, else snap)")
    ("symmetrize", po::bool_switch(&cmd.engine.graph.build.symmetrize), "add the reverse (dst, src) of every edge")
    ("keep-self-loops", po::bool_switch(&cmd.engine.graph.build.keep_self_loops), "keep edges (v, v) (default: dropped)")
    ("keep-duplicates", po::bool_switch(&cmd.engine.graph.build.keep_duplicates), "keep repeated edges (default: deduplicated)");
  if (name == "bfs") extra.add_options()
    ("source", po::value(&bfs_source), "the source vertex (required unless --random-sources)")
    ("parents", po::value(&cmd.engine.graph.bfs.parents_output), "write the parent array (the CSR's id width) to FILE")
    ("random-sources", po::value(&bfs_random), "K searches from random vertices with edges (stats only; --seed)")
    ("seed", po::value(&seed), "seed for --random-sources (default 1)");
  if (name == "clean") extra.add_options()
    ("dry-run,n", po::bool_switch(&cmd.dry_run), "list what would be removed, remove nothing");
  if (name == "gen") extra.add_options()
    ("graph", po::value(&cmd.engine.graph.gen.kind), "rmat|uniform: an edge list of binary u32 (scale < 32) or u64 pairs instead of records")
    ("scale", po::value(&g_scale), "--graph: 2^S vertices")
    ("edge-factor", po::value(&g_edge_factor), "--graph: E * 2^S edges (default 16)");
  if (name == "gen") extra.add_options()
    ("count", po::value(&count), "number of records")
    ("dist", po::value(&cmd.gen.dist), "uniform|sorted|reverse|few-unique|zipf|all-equal|bits (default uniform)")
    ("seed", po::value(&seed), "random seed (default 1): the same seed gives the same bytes");

  po::options_description all;
  all.add(general).add(format_opts).add(engine);
  if (name == "plan" || name == "gen" || name == "reduce" || name == "dedupe" || name == "graph build" || name == "bfs" ||
      name == "clean")
    all.add(extra);
  po::options_description hidden;
  hidden.add_options()("operand", po::value(&cmd.inputs));
  po::options_description parse_set;
  parse_set.add(all).add(hidden);
  po::positional_options_description pos;
  pos.add("operand", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc - first, argv + first).options(parse_set).positional(pos).run(), vm);
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
    else if (name == "dedupe") o << " IN -o OUT [options]\n\nThe records of IN sorted, one per distinct key. Keys are equal when their bits\n(totalOrder for floats) are: -0.0 and +0.0 differ, NaNs with the same bits are equal.\n--count output: each record followed by a little-endian u64 count.";
    else if (name == "gen") o << " -o FILE --count N [options]\n       gxsort gen -o FILE --graph rmat|uniform --scale S [--edge-factor E] [--seed X]";
    else if (name == "graph build") o << " IN -o GRAPH [--input-format snap|mtx|bin32|bin64] [--symmetrize] [--keep-self-loops] [--keep-duplicates] [options]";
    else if (name == "bfs") o << " GRAPH --source S [-o LEVELS] [--parents FILE] [--device cpu|cuda|auto] [options]";
    else if (name == "clean") o << " [-T DIR]... [-n]\n\nRemoves the temporary files (.gxsort.<host>.<pid>.*.tmp) that gxsort runs killed by\nkill -9, the OOM killer or a batch scheduler left in DIR (default: $TMPDIR or /tmp,\nand the current directory); never those of a running process or of another host.";
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
  } else if (name == "dedupe") {
    operands(1, 1, "one input file");
    if (cmd.output.empty()) fail_usage("dedupe: the output is required: -o FILE");
    if (keep != "first" && keep != "last") fail_usage("--keep: expected first or last, got '" + keep + "'");
    cmd.engine.dedupe.keep_last = keep == "last";
    const std::string& sg = cmd.engine.dedupe.strategy;
    if (sg != "sort" && sg != "bitmap" && sg != "auto") fail_usage("--strategy: expected sort, bitmap or auto, got '" + sg + "'");
  } else if (name == "plan" || name == "check") {
    operands(1, 1, "one input file");
  } else if (name == "reduce") {
    operands(1, 1, "one input file");
    if (cmd.reduce_op.empty()) fail_usage("reduce: --op is required (sum, min, max, count, mean or minmax)");
  } else if (name == "merge") {
    operands(1, SIZE_MAX, "one or more sorted input files");
    if (cmd.output.empty()) fail_usage("merge: the output is required: -o FILE");
  } else if (name == "graph build") {
    operands(1, 1, "one input edge list");
    if (cmd.output.empty()) fail_usage("graph build: the output is required: -o GRAPH");
  } else if (name == "bfs") {
    operands(1, 1, "one CSR graph file");
    if (vm.count("source") == vm.count("random-sources")) fail_usage("bfs: give exactly one of --source S and --random-sources K");
    if (vm.count("random-sources") && bfs_random.value == 0) fail_usage("--random-sources must be at least 1");
    cmd.engine.graph.bfs.source = bfs_source.value;
    cmd.engine.graph.bfs.random_sources = bfs_random.value;
    cmd.engine.graph.bfs.seed = seed.value;
    cmd.engine.graph.bfs.levels_output = cmd.output;
  } else if (name == "gen" && vm.count("graph")) {
    operands(0, 0, "no operands");
    if (cmd.output.empty()) fail_usage("gen: the output is required: -o FILE");
    if (vm.count("count") || vm.count("dist")) fail_usage("gen --graph: --count and --dist do not apply (use --scale and --edge-factor)");
    if (!vm.count("scale")) fail_usage("gen --graph: --scale S is required");
    if (g_scale.value < 1 || g_scale.value > 40) fail_usage("--scale: expected 1 to 40");
    cmd.engine.graph.gen.scale = unsigned(g_scale.value);
    cmd.engine.graph.gen.edge_factor = g_edge_factor.value;
    cmd.engine.graph.gen.seed = seed.value;
  } else if (name == "gen") {
    operands(0, 0, "no operands");
    if (cmd.output.empty()) fail_usage("gen: the output is required: -o FILE");
    if (!vm.count("count")) fail_usage("gen: --count N is required");
    if (vm.count("scale") || vm.count("edge-factor")) fail_usage("gen: --scale and --edge-factor need --graph");
  } else if (name == "info" || name == "clean") {
    operands(0, 0, "no operands");
  }
  return cmd;
}

}  // namespace gxsort::cli
