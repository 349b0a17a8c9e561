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

// The text of every option as given; typed once, in to_command().
struct Args {
  std::string type, key_type, format, memory, device = "auto", device_memory, merge_kernel = "auto",
      direct_io = "auto", ooc = "auto", exchange = "auto", keep = "first", strategy = "auto", input_format = "auto", op, algo = "flat",
      dist = "uniform", graph;
  std::vector<std::string> keys;
  Unsigned record_size, key_offset, key_bytes, fan_in, threads, count, seed{1}, scale, edge_factor{16}, source,
      random_sources, ranks;
  bool reverse = false, help = false, no_fsync = false, json = false, dot = false;
};

// What each command takes: its operand shape, and which groups of options apply.
struct Spec {
  const char* name;
  const char* operands;  // for the usage line
  const char* summary;
  bool stats, output, format, memory, device, engine, unique;
};
// memory: --memory, --tmp-dir, --threads; device: --device, --device-memory;
// engine: --fan-in, --no-fsync, --direct-io, --ooc, --merge-kernel.
const Spec kSpecs[] = {
    {"sort", "IN -o OUT", "sort a binary file of fixed-size records (stable)", true, true, true, true, true, true, true},
    {"plan", "IN | CMD ARGS", "print what `sort` (or CMD: runs, merge, dedupe, check, reduce, graph build, bfs) would do (--json, --dot)",
     false, true, true, true, true, true, true},
    {"runs", "IN -o DIR", "form sorted runs only (run files and a manifest)", true, true, true, true, true, false, true},
    {"merge", "FILE... -o OUT", "merge sorted files (a `runs` directory stands for its runs)", true, true, true, true,
     true, true, true},
    {"check", "FILE", "record count, order, duplicate keys, checksums (exit 1: not sorted)", true, false, true, true,
     true, false, false},
    {"gen", "-o FILE --count N", "generate test data (--dist, --seed), or an edge list (--graph)", true, true, true,
     false, false, false, false},
    {"dedupe", "IN -o OUT", "sorted, one record per distinct key", true, true, true, true, true, true, false},
    {"reduce", "FILE --op OP", "a reduction of the keys (--algo flat|nested|cub on the GPU)", true, false, true, true,
     true, false, false},
    {"graph build", "IN -o GRAPH", "an edge list (snap|mtx|bin32|bin64) to a CSR graph", true, true, false, true, true,
     true, false},
    {"bfs", "GRAPH --source S", "BFS levels (-o) and parents (--parents) of a CSR graph, with stats", true, true, false,
     true, true, false, false},
    {"info", "", "version, build, threads, memory, GPUs", false, false, false, true, true, false, false},
    {"clean", "[-T DIR]...", "remove the temporary files of gxsort runs that were killed (-n: list only)", false, false,
     false, false, false, false, false},
};

const Spec* find_spec(const std::string& name) {
  for (const Spec& s : kSpecs)
    if (name == s.name) return &s;
  return nullptr;
}

// "a|b|c": the value name an option shows in --help.
template <class E, size_t N>
std::string names(const Choice<E> (&choices)[N]) {
  std::string s;
  for (const auto& c : choices) s += (s.empty() ? "" : "|") + std::string(c.name);
  return s;
}

// What -q leaves: reduce's result is its output (as wc's count is), check's is its exit
// status. info and plan print their result and nothing else: -q does not apply to them.
const char* quiet_help(const std::string& name) {
  if (name == "reduce") return "no progress line: print the result and errors only";
  if (name == "check") return "print nothing but errors (the exit status says whether the file is sorted)";
  return "print nothing but errors";
}

void add_general(po::options_description& d, const Spec& s, Command& cmd, Args& a) {
  const std::string n = s.name;
  d.add_options()("help,h", po::bool_switch(&a.help), "show this help");
  if (s.stats || n == "clean") d.add_options()("quiet,q", po::bool_switch(&cmd.quiet), quiet_help(n));
  if (!s.stats) return;
  d.add_options()
    ("verbose,v", po::bool_switch(&cmd.verbose), "print a summary of what was done")
    ("stats-json", po::value(&cmd.stats_json)->value_name("FILE"), "write per-phase times, bytes and throughput to FILE (- for stdout)");
  // bfs reports no progress: its searches take milliseconds, its load is one read.
  if (n != "bfs")
    d.add_options()("progress", po::bool_switch(&cmd.progress), "draw the progress line (phase, merge level k of N, the "
                    "whole job's bytes and ETA) also when stderr is not a terminal: one line per update");
}

// reverse: whether an order applies (not to gen, which writes records, nor to reduce).
void add_format(po::options_description& d, Args& a, bool reverse) {
  d.add_options()
    ("type", po::value(&a.type)->value_name("T"), "flat key file of T: u8|u16|u32|u64|i8|i16|i32|i64|f32|f64, or big-endian u16be..f64be (default u64)")
    ("record-size", po::value(&a.record_size)->value_name("N"), "N-byte records (key + payload)")
    ("key", po::value(&a.keys)->value_name("OFFSET:TYPE[:desc]"), "a key field (repeatable: compared in order, each asc or desc): TYPE as --type, or bytes:N; with --record-size. Or NAME[:desc], a field of a structured .npy input")
    ("key-offset", po::value(&a.key_offset)->value_name("O"), "byte offset of the key in the record (default 0)")
    ("key-type", po::value(&a.key_type)->value_name("T"), "typed key in the record, T as --type (the same as --key O:T)")
    ("key-bytes", po::value(&a.key_bytes)->value_name("K"), "K-byte key compared as unsigned bytes (the same as --key O:bytes:K)")
    ("format", po::value(&a.format)->value_name("NAME"), "gensort: 100-byte records with 10-byte keys");
  if (reverse) d.add_options()("reverse,r", po::bool_switch(&a.reverse), "descending order of the whole key (still stable)");
}

void add_memory(po::options_description& d, Command& cmd, Args& a, bool tmp_dirs) {
  d.add_options()
    ("memory,S", po::value(&a.memory)->value_name("SIZE"), "host memory budget: bytes, K/M/G/T or N% of the memory limit (the smaller of RAM and the cgroup's limit; default 50%: gxsort info shows it)")
    ("threads", po::value(&a.threads)->value_name("N"), "CPU threads (default: the CPUs this process may use)");
  if (tmp_dirs)
    d.add_options()("tmp-dir,T", po::value(&cmd.engine.tmp_dirs)->value_name("DIR"),
                    "directory for temporary files (repeatable; default $TMPDIR, else the output's directory)");
}

void add_device(po::options_description& d, Args& a) {
  d.add_options()
    ("device", po::value(&a.device)->value_name(names(kDevices)), "default auto: CUDA when a GPU is usable (an in-memory sort of records wider than 64 bytes on 16+ threads: the CPU, faster there)")
    ("device-memory", po::value(&a.device_memory)->value_name("SIZE"), "GPU memory budget: bytes or N% of free (default 80% of free)");
}

void add_engine(po::options_description& d, const Spec& s, Command& cmd, Args& a) {
  d.add_options()("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the output before renaming it into place, nor a resumable job's journal (faster, less durable)");
  if (s.unique)
    d.add_options()("unique,u", po::bool_switch(&cmd.engine.unique), "keep only the first record of each group of equal keys");
  if (!s.engine) return;
  d.add_options()
    ("fan-in", po::value(&a.fan_in)->value_name("K"), "most runs merged at once (default 64, lowered to fit --memory)")
    ("direct-io", po::value(&a.direct_io)->value_name(names(kDirectIos)), "temporary runs, and a merge's synced output, bypass the page cache (default auto: when the runs would fill more than half the memory available to the cache)");
  // merge has sorted inputs: nothing to choose (option_hint says so).
  if (std::string(s.name) != "merge")
    d.add_options()("ooc", po::value(&a.ooc)->value_name(names(kOocMethods)), "how a sort larger than --memory goes out of core: merge = sorted runs merged with the fan-in; partition = records scattered by key range into buckets, each sorted in memory (default auto: partition on the CPU on at most 4 threads when its buckets fit the page cache and no --fan-in is given)");
  d.add_options()("merge-kernel", po::value(&a.merge_kernel)->value_name(names(kMergeKernels)), "GPU merge kernel (default auto: the fastest)");
}

// What -o names, command by command.
const char* output_help(const std::string& n) {
  if (n == "runs") return "the directory for the run files and their manifest";
  if (n == "plan") return "the output `sort` would write (--resume: the job is its input, options and output)";
  if (n == "gen") return "output (- for stdout)";
  if (n == "graph build") return "the CSR graph (not the input)";
  return "output (- for stdout; may name the input)";
}

// The options of one command (the groups its Spec names, and its own).
void add_command_options(po::options_description& d, const Spec& s, Command& cmd, Args& a) {
  const std::string n = s.name;
  if (s.output && n != "bfs") d.add_options()("output,o", po::value(&cmd.output)->value_name(n == "runs" ? "DIR" : "FILE"),
                                              output_help(n));
  if (n == "runs")
    d.add_options()("direct-io", po::value(&a.direct_io)->value_name(names(kDirectIos)), "the run files bypass the page cache (default auto: when they would fill more than half the memory available to the cache)");
  if (n == "sort" || n == "dedupe" || n == "merge" || n == "plan" || n == "graph build")
    d.add_options()("resume", po::bool_switch(&cmd.engine.resume), "reuse the runs and merge outputs (and a graph build's or dedupe's finished stages) a killed run of the same job (same input, options and output) left in the first --tmp-dir");
  if (n == "runs")
    d.add_options()("resume", po::bool_switch(&cmd.engine.resume), "reuse the runs a killed run of the same job (same input, options and directory) left in the output directory");
  if (n == "sort" || n == "dedupe" || n == "plan" || n == "merge")
    d.add_options()("distributed", po::bool_switch(&cmd.distributed), n == "merge" ? "one rank of an MPI job (mpirun -np N gxsort merge ...): each rank merges its share of the output from its cuts of the inputs, into OUT, a file on a file system they all share (docs/distributed.md)" : "one rank of an MPI job (mpirun -np N gxsort ...): the ranks sort IN together into OUT, a file on a file system they all share (docs/distributed.md)");
  if (n == "sort" || n == "dedupe" || n == "plan")
    d.add_options()("exchange", po::value(&a.exchange)->value_name(names(kExchanges)), "--distributed: how the ranks exchange records: auto = where every rank is on one host, each reads its pieces from the others' GPUs (CUDA IPC) or run files, else MPI; mpi = always MPI_Alltoallv (docs/distributed.md)");
  if (n == "plan") d.add_options()("json", po::bool_switch(&a.json), "print the plan as JSON")("dot", po::bool_switch(&a.dot), "print the merge tree for Graphviz")
    ("ranks", po::value(&a.ranks)->value_name("N"), "--distributed: plan N ranks like this process, on this host (default: the ranks of the MPI job it runs in)");
  if (n == "check" || n == "info" || n == "reduce" || n == "bfs" || n == "clean" || n == "graph build")
    d.add_options()("json", po::bool_switch(&cmd.json), "print the result as one JSON object (with a format_version)");
  if (n == "reduce") d.add_options()
    ("op", po::value(&a.op)->value_name(names(kReduceOps)), "the reduction (required)")
    ("algo", po::value(&a.algo)->value_name(names(kReduceAlgos)), "GPU kernel (default flat)");
  if (n == "dedupe") d.add_options()
    ("assume-sorted", po::bool_switch(&cmd.engine.dedupe.assume_sorted), "the input is sorted: stream it (exit 1 naming the first unsorted record)")
    ("count", po::bool_switch(&cmd.engine.dedupe.count), "write each kept record followed by its group size as a little-endian u64")
    ("keep", po::value(&a.keep)->value_name("first|last"), "which record of a group of equal keys is kept, in input order (default first)")
    ("strategy", po::value(&a.strategy)->value_name(names(kDedupeStrategies)), "default auto: bitmap for flat u32/i32/f32 keys, no --count, when the input does not sort in memory; else on a GPU above 2^26 keys, on the CPU from 2^26 keys whose sampled span is at most 2^24 (docs/dedupe.md)");
  if (n == "graph build") d.add_options()
    ("input-format", po::value(&a.input_format)->value_name(names(kEdgeFormats)), "default auto: from the extension (.mtx, .bin32/.u32, .bin64/.u64, else snap)")
    ("symmetrize", po::bool_switch(&cmd.engine.graph.build.symmetrize), "add the reverse (dst, src) of every edge")
    ("keep-self-loops", po::bool_switch(&cmd.engine.graph.build.keep_self_loops), "keep edges (v, v) (default: dropped)")
    ("keep-duplicates", po::bool_switch(&cmd.engine.graph.build.keep_duplicates), "keep repeated edges (default: deduplicated)");
  if (n == "bfs") d.add_options()
    ("output,o", po::value(&cmd.output)->value_name("LEVELS"), "write the levels (u32, unreachable 0xFFFFFFFF) to LEVELS")
    ("source", po::value(&a.source)->value_name("S"), "the source vertex (required unless --random-sources)")
    ("parents", po::value(&cmd.engine.graph.bfs.parents_output)->value_name("FILE"), "write the parent array (the CSR's id width) to FILE")
    ("random-sources", po::value(&a.random_sources)->value_name("K"), "K searches from random vertices with edges (stats only; --seed)")
    ("seed", po::value(&a.seed)->value_name("X"), "seed for --random-sources (default 1)");
  if (n == "gen") d.add_options()
    ("count", po::value(&a.count)->value_name("N"), "number of records")
    ("dist", po::value(&a.dist)->value_name(names(kGenDists)), "key distribution (default uniform)")
    ("seed", po::value(&a.seed)->value_name("X"), "random seed (default 1): the same seed gives the same bytes")
    ("threads", po::value(&a.threads)->value_name("N"), "CPU threads (default: the CPUs this process may use)")
    ("graph", po::value(&a.graph)->value_name(names(kGraphKinds)), "an edge list of binary u32 (scale < 32) or u64 pairs instead of records")
    ("scale", po::value(&a.scale)->value_name("S"), "--graph: 2^S vertices")
    ("edge-factor", po::value(&a.edge_factor)->value_name("E"), "--graph: E * 2^S edges (default 16)")
    ("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the output before renaming it into place");
  if (n == "clean") d.add_options()
    ("tmp-dir,T", po::value(&cmd.engine.tmp_dirs)->value_name("DIR"), "a directory to clean (repeatable; default $TMPDIR or /tmp, and the current directory)")
    ("dry-run,n", po::bool_switch(&cmd.dry_run), "list what would be removed, remove nothing")
    ("all-users", po::bool_switch(&cmd.all_users), "remove other users' leftovers too (as root; default: listed, not removed)");
  if (n == "bfs") d.add_options()("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the outputs before renaming them into place");
}

po::options_description options_of(const Spec& s, Command& cmd, Args& a) {
  // 100 columns: the value lists (u32|u64|...) fit on their line.
  const unsigned w = 100, desc = 50;
  po::options_description all(w, desc);
  po::options_description general("general options", w, desc), command(std::string(s.name) + " options", w, desc),
      format("record format", w, desc), resources("memory, threads and devices", w, desc), engine("engine options", w, desc);
  add_general(general, s, cmd, a);
  add_command_options(command, s, cmd, a);
  if (s.format) add_format(format, a, std::string(s.name) != "gen" && std::string(s.name) != "reduce");
  if (s.memory) add_memory(resources, cmd, a, s.engine);
  if (s.device) add_device(resources, a);
  if (s.engine || s.unique) add_engine(engine, s, cmd, a);
  all.add(general);
  if (!command.options().empty()) all.add(command);
  if (s.format) all.add(format);
  if (!resources.options().empty()) all.add(resources);
  if (!engine.options().empty()) all.add(engine);
  return all;
}

// The fields of --key OFFSET:TYPE; empty when --key names .npy fields (or is not given).
std::vector<KeyField> raw_key_fields(const std::vector<std::string>& keys) {
  std::vector<KeyField> fields;
  size_t named = 0;
  for (const std::string& k : keys) {
    KeyField field;
    if (parse_key_field(k, field)) fields.push_back(field);
    else ++named;
  }
  if (named && !fields.empty()) fail_usage("--key: give OFFSET:TYPE fields or the names of .npy fields, not both");
  return fields;
}

// One typed key at `offset` (--type T, --key-type T), big-endian forms included.
KeyField typed_field(const std::string& type, size_t offset) {
  bool be = false;
  const KeyType t = parse_key_type(type, &be);
  return Format::single_field(t, offset, be);
}

// The format the options give, without --reverse.
Format format_of_options(const Args& a, const po::variables_map& vm) {
  Format f;
  const std::vector<KeyField> raw = raw_key_fields(a.keys);
  if (!a.keys.empty() &&
      (vm.count("type") || vm.count("key-type") || vm.count("key-bytes") || vm.count("key-offset") || vm.count("format")))
    fail_usage("--key cannot be combined with --type, --key-offset, --key-type, --key-bytes or --format (--key 8:i64 is "
               "--key-offset 8 --key-type i64)");
  if (!raw.empty()) {
    // Without --record-size the record size comes from a .npy input (resolve_npy).
    if (vm.count("record-size")) f = Format::of_keys(a.record_size.value, raw, false);
  } else if (!a.keys.empty()) {
    // .npy field names: the header gives the format (resolve_npy; check_keys refuses them elsewhere).
  } else if (!a.format.empty()) {
    if (a.format != "gensort") fail_usage("--format: unknown format '" + a.format + "' (known: gensort)");
    if (vm.count("type") || vm.count("record-size") || vm.count("key-type") || vm.count("key-bytes"))
      fail_usage("--format gensort cannot be combined with --type, --record-size, --key-type or --key-bytes");
    f = Format::gensort();
  } else if (vm.count("record-size")) {
    if (a.key_offset.value > UINT32_MAX) fail_usage("--key-offset " + std::to_string(a.key_offset.value) + " is too large");
    if (vm.count("type")) fail_usage("--type describes flat key files; with --record-size use --key-type or --key-bytes");
    if (vm.count("key-type") == vm.count("key-bytes"))
      fail_usage("with --record-size give exactly one of --key-type T or --key-bytes K");
    KeyField key = Format::single_field(KeyType::bytes, a.key_offset.value);
    if (vm.count("key-type")) key = typed_field(a.key_type, a.key_offset.value);
    else key.bytes = uint32_t(std::min<uint64_t>(a.key_bytes.value, UINT32_MAX));
    f = Format::of_keys(a.record_size.value, {key}, false);
  } else {
    if (vm.count("key-type") || vm.count("key-bytes") || vm.count("key-offset"))
      fail_usage("--key-type, --key-bytes and --key-offset need --record-size");
    const KeyField key = typed_field(a.type.empty() ? "u64" : a.type, 0);
    f = Format::of_keys(key.bytes, {key}, false);
  }
  return f;
}

Format build_format(const Args& a, const po::variables_map& vm) {
  Format f = format_of_options(a, vm);
  f.reverse = f.reverse != a.reverse;  // -r reverses the whole order: every field
  f.validate();
  return f;
}

bool any_npy(const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (p.size() > 4 && p.compare(p.size() - 4, 4, ".npy") == 0) return true;
  return false;
}

// --key needs a record size: --record-size, or the header of a .npy input.
void check_keys(const Args& a, const po::variables_map& vm, const Command& cmd) {
  const bool named = !a.keys.empty() && raw_key_fields(a.keys).empty();
  if (named && vm.count("record-size"))
    fail_usage("--key " + a.keys[0] + ": names a field of a .npy input, whose header gives the record size: leave --record-size out");
  if (a.keys.empty() || any_npy(cmd.inputs)) return;
  if (named)
    fail_usage("--key " + a.keys[0] + ": names a field of a structured .npy input; for raw records give --key " +
               "OFFSET:TYPE[:desc] and --record-size N");
  if (!vm.count("record-size")) fail_usage("--key OFFSET:TYPE needs --record-size N (the size of a record)");
}

// --distributed: what the distributed sort does not do (docs/distributed.md).
void check_distributed(const Args& a, const po::variables_map& vm, Command& cmd) {
  if (vm.count("ranks")) {
    if (!cmd.distributed) fail_usage("--ranks needs --distributed");
    if (a.ranks.value < 1 || a.ranks.value > 65536) fail_usage("--ranks: expected 1 to 65536");
    cmd.ranks = int(a.ranks.value);
  }
  if (vm.count("exchange") && !cmd.distributed) fail_usage("--exchange needs --distributed");
  if (!cmd.distributed) return;
  const EngineOptions& e = cmd.engine;
  if (e.resume) fail_usage("--resume does not apply to --distributed (a distributed sort is not resumable)");
  if (e.ooc == OocMethod::partition) fail_usage("--ooc partition does not apply to --distributed (each rank sorts its slice into runs)");
  if (cmd.name == "merge" && e.unique)
    fail_usage("merge --distributed does not take -u (merge the files, then dedupe --assume-sorted, or sort -u --distributed)");
  if (cmd.name == "dedupe" && (e.dedupe.count || e.dedupe.keep_last || e.dedupe.assume_sorted || e.dedupe.strategy == DedupeStrategy::bitmap))
    fail_usage("dedupe --distributed keeps the first record of each key (the distributed sort -u): --count, --keep last, "
               "--assume-sorted and --strategy bitmap do not apply");
}

// Every option text to its typed value, once.
void type_options(const Args& a, const po::variables_map& vm, Command& cmd) {
  EngineOptions& e = cmd.engine;
  if (vm.count("memory")) e.memory = parse_size_option(a.memory, "--memory");
  if (vm.count("device-memory")) e.device_memory = parse_size_option(a.device_memory, "--device-memory");
  if (vm.count("threads")) {
    if (a.threads.value < 1 || a.threads.value > 4096) fail_usage("--threads: expected 1 to 4096");
    e.threads = unsigned(a.threads.value);
  }
  cmd.threads_given = vm.count("threads") > 0;
  if (vm.count("fan-in") && a.fan_in.value < 2) fail_usage("--fan-in must be at least 2");
  e.fan_in = size_t(a.fan_in.value);
  e.device = parse_choice(a.device, "--device", kDevices);
  e.merge_kernel = parse_choice(a.merge_kernel, "--merge-kernel", kMergeKernels);
  e.direct_io = parse_choice(a.direct_io, "--direct-io", kDirectIos);
  e.ooc = parse_choice(a.ooc, "--ooc", kOocMethods);
  e.exchange = parse_choice(a.exchange, "--exchange", kExchanges);
  e.fsync = !a.no_fsync;
  e.dedupe.strategy = parse_choice(a.strategy, "--strategy", kDedupeStrategies);
  if (a.keep != "first" && a.keep != "last") fail_usage("--keep: expected first or last, got '" + a.keep + "'");
  e.dedupe.keep_last = a.keep == "last";
  e.graph.build.input_format = parse_choice(a.input_format, "--input-format", kEdgeFormats);
  cmd.reduce_algo = parse_choice(a.algo, "--algo", kReduceAlgos);
  if (vm.count("op")) cmd.reduce_op = parse_choice(a.op, "--op", kReduceOps);
  cmd.gen.dist = parse_choice(a.dist, "--dist", kGenDists);
  cmd.gen.count = a.count.value;
  cmd.gen.seed = a.seed.value;
  if (vm.count("graph")) e.graph.gen.kind = parse_choice(a.graph, "--graph", kGraphKinds);
  if ((a.json || cmd.json) && a.dot) fail_usage("plan: choose one of --json and --dot");
  cmd.plan_format = a.json || cmd.json ? PlanFormat::json : a.dot ? PlanFormat::dot : PlanFormat::text;
  cmd.json = cmd.json || a.json;
  if (cmd.quiet && cmd.verbose) fail_usage("-q and -v cannot be combined");
  if (cmd.quiet && cmd.progress) fail_usage("-q and --progress cannot be combined");
  e.format = build_format(a, vm);
  cmd.format_given = vm.count("type") || vm.count("record-size") || vm.count("format");
  cmd.keys = a.keys;
  cmd.reverse = a.reverse;
  check_distributed(a, vm, cmd);
}

// The operands and the options each command requires.
void check_operands(const Args& a, const po::variables_map& vm, Command& cmd) {
  const std::string& name = cmd.name;
  auto operands = [&](size_t lo, size_t hi, const char* what) {
    if (cmd.inputs.size() < lo || cmd.inputs.size() > hi)
      fail_usage(name + ": expected " + what + " (see gxsort " + name + " --help)");
  };
  auto needs_output = [&](const char* what) {
    if (cmd.output.empty()) fail_usage(name + ": the output is required: -o " + what);
  };
  if (name == "sort" || name == "runs" || name == "dedupe" || name == "graph build") {
    operands(1, 1, name == "graph build" ? "one input edge list" : "one input file");
    needs_output(name == "runs" ? "DIR" : name == "graph build" ? "GRAPH" : "FILE");
  } else if (name == "plan" || name == "check") {
    operands(1, 1, "one input file");
  } else if (name == "reduce") {
    operands(1, 1, "one input file");
    if (!vm.count("op")) fail_usage("reduce: --op is required (" + choice_names(kReduceOps) + ")");
  } else if (name == "merge") {
    operands(1, SIZE_MAX, "one or more sorted input files");
    needs_output("FILE");
  } else if (name == "bfs") {
    operands(1, 1, "one CSR graph file");
    if (vm.count("source") == vm.count("random-sources")) fail_usage("bfs: give exactly one of --source S and --random-sources K");
    if (vm.count("random-sources") && a.random_sources.value == 0) fail_usage("--random-sources must be at least 1");
    BfsOptions& b = cmd.engine.graph.bfs;
    b.source = a.source.value;
    b.random_sources = a.random_sources.value;
    b.seed = a.seed.value;
    b.levels_output = cmd.output;
  } else if (name == "gen") {
    operands(0, 0, "no operands");
    needs_output("FILE");
    if (vm.count("graph")) {
      if (vm.count("count") || vm.count("dist")) fail_usage("gen --graph: --count and --dist do not apply (use --scale and --edge-factor)");
      if (!vm.count("scale")) fail_usage("gen --graph: --scale S is required");
      if (a.scale.value < 1 || a.scale.value > 40) fail_usage("--scale: expected 1 to 40");
      GraphGenOptions& g = cmd.engine.graph.gen;
      g.scale = unsigned(a.scale.value);
      g.edge_factor = a.edge_factor.value;
      g.seed = a.seed.value;
    } else {
      if (!vm.count("count")) fail_usage("gen: --count N is required");
      if (vm.count("scale") || vm.count("edge-factor")) fail_usage("gen: --scale and --edge-factor need --graph");
    }
  } else {
    operands(0, 0, "no operands");
  }
}

std::string command_help(const Spec& s, const po::options_description& all) {
  std::ostringstream o;
  o << "usage: gxsort " << s.name << (*s.operands ? " " : "") << s.operands << " [options]\n\n" << s.summary << ".\n";
  const std::string n = s.name;
  if (n == "dedupe")
    o << "Keys are equal when their bits (totalOrder for floats) are: -0.0 and +0.0 differ, NaNs\n"
         "with the same bits are equal. --count output: each record followed by a little-endian u64.\n";
  if (n == "gen") o << "Edge lists: gxsort gen -o FILE --graph rmat|uniform --scale S [--edge-factor E] [--seed X]\n";
  if (n == "clean")
    o << "Removes the temporary files (.gxsort.<host>.<pid>.*.tmp) that gxsort runs killed by kill -9,\n"
         "the OOM killer or a batch scheduler left; never those of a running process or of another host,\n"
         "nor another user's unless --all-users. No link is followed.\n";
  o << "\n" << all;
  return o.str();
}

// The command word(s) at argv[1..]: "graph build" takes two.
const Spec& command_spec(int argc, const char* const* argv, int& first) {
  const std::string name = argv[1];
  first = 1;
  if (name == "graph") {
    if (argc < 3 || std::string(argv[2]) != "build")
      fail_usage("graph: expected `gxsort graph build IN -o GRAPH` (see gxsort graph build --help)");
    first = 2;
    return *find_spec("graph build");
  }
  const Spec* s = find_spec(name);
  if (!s) fail_usage("unknown command '" + name + "' (see gxsort --help)");
  return *s;
}

// plan CMD ARGS: the command planned (the word(s) after `plan`, which `first` moves past),
// or null for `plan IN` (`plan sort IN` is the same). A file named like a command is
// planned as `plan ./NAME`.
const Spec* planned_spec(int argc, const char* const* argv, int& first) {
  if (argc <= first + 1) return nullptr;
  const std::string word = argv[first + 1];
  if (word == "sort") { ++first; return nullptr; }
  if (word == "graph") {
    if (argc <= first + 2 || std::string(argv[first + 2]) != "build")
      fail_usage("plan graph: expected `gxsort plan graph build IN`");
    first += 2;
    return find_spec("graph build");
  }
  for (const char* n : {"runs", "merge", "dedupe", "check", "reduce", "bfs"})
    if (word == n) { ++first; return find_spec(n); }
  return nullptr;
}

// What plan CMD adds to CMD's options: --json (where CMD has none) and --dot.
void add_plan_options(po::options_description& all, const Spec& planned, Args& a) {
  po::options_description d("plan options", 100, 50);
  const std::string n = planned.name;
  if (n != "check" && n != "reduce" && n != "bfs" && n != "graph build")
    d.add_options()("json", po::bool_switch(&a.json), "print the plan as JSON");
  d.add_options()("dot", po::bool_switch(&a.dot), "print the merge tree for Graphviz (merge)");
  all.add(d);
}

// plan CMD: CMD's operands (its output and required options are not: nothing runs).
void check_plan_operands(const Args& a, const po::variables_map& vm, Command& cmd) {
  const size_t most = cmd.planned == "merge" ? SIZE_MAX : 1;
  if (cmd.inputs.empty() || cmd.inputs.size() > most)
    fail_usage("plan " + cmd.planned + ": expected " + (most == 1 ? "one input" : "one or more inputs") +
               " (see gxsort plan " + cmd.planned + " --help)");
  if (cmd.distributed) fail_usage("plan " + cmd.planned + ": --distributed plans a sort (gxsort plan IN --distributed)");
  if (!cmd.stats_json.empty()) fail_usage("plan: --stats-json does not apply (a plan does no work)");
  if (cmd.planned == "bfs") {
    BfsOptions& b = cmd.engine.graph.bfs;
    b.source = a.source.value;
    b.random_sources = vm.count("random-sources") ? a.random_sources.value : 0;
    b.seed = a.seed.value;
    b.levels_output = cmd.output;
  }
}

// Why an option that other commands take does not apply to this one, where the name
// alone does not say.
std::string option_hint(const std::string& command, const std::string& option) {
  if (command == "merge" && option == "--ooc")
    return ": its inputs are sorted already, and are merged with --fan-in (--ooc chooses how `sort` goes out of core)";
  if ((command == "reduce" || command == "gen") && (option == "-r" || option == "--reverse"))
    return command == "reduce" ? ": a reduction does not depend on the order" : ": gen writes records in no key order (--dist sorted|reverse)";
  return "";
}

Command help_command(std::string text, bool error = false) {
  Command c;
  c.name = "help";
  c.help_text = std::move(text);
  c.help_is_error = error;
  return c;
}

}  // namespace

std::string usage_text() {
  std::ostringstream o;
  o << "usage: gxsort COMMAND [options]\n\ncommands:\n";
  for (const Spec& s : kSpecs) {
    const std::string head = std::string(s.name) + (*s.operands ? " " : "") + s.operands;
    o << "  " << head << std::string(head.size() < 26 ? 26 - head.size() : 1, ' ') << s.summary << "\n";
  }
  o << "\n`gxsort COMMAND --help` or `gxsort help COMMAND` lists a command's options.\n"
       "exit codes: 0 ok, 1 check failed, 2 usage or input error, 3 I/O or resource error, 4 device error\n";
  return o.str();
}

Command parse_command_line(int argc, const char* const* argv) {
  if (argc < 2) return help_command(usage_text(), true);
  const std::string word = argv[1];
  if (word == "--help" || word == "-h") return help_command(usage_text());
  if (word == "--version") { Command c; c.name = "info"; return c; }
  if (word == "help") {
    if (argc < 3) return help_command(usage_text());
    std::vector<const char*> args{argv[0]};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back("--help");
    return parse_command_line(int(args.size()), args.data());
  }
  int first = 1;
  const Spec& command = command_spec(argc, argv, first);
  const Spec* planned = std::string(command.name) == "plan" ? planned_spec(argc, argv, first) : nullptr;
  const Spec& spec = planned ? *planned : command;  // plan CMD takes CMD's options
  Command cmd;
  cmd.name = command.name;
  if (planned) cmd.planned = planned->name;
  Args a;
  po::options_description all = options_of(spec, cmd, a);
  if (planned) add_plan_options(all, *planned, a);
  po::options_description hidden;
  hidden.add_options()("operand", po::value(&cmd.inputs));
  po::options_description parse_set;
  parse_set.add(all).add(hidden);
  po::positional_options_description pos;
  pos.add("operand", -1);
  po::variables_map vm;
  try {
    // No abbreviations: --merge must not quietly mean --merge-kernel.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(argc - first, argv + first).options(parse_set).positional(pos).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    const std::string option = e.get_option_name().substr(0, e.get_option_name().find('='));  // --ooc=merge: --ooc
    fail_usage(cmd.name + ": " + option + " does not apply to " + cmd.name + option_hint(cmd.name, option) +
               " (see gxsort " + cmd.name + " --help)");
  } catch (const po::error& e) {
    fail_usage(cmd.name + ": " + e.what() + " (see gxsort " + cmd.name + " --help)");
  }
  if (a.help) {
    std::string help = command_help(spec, all);
    if (planned) help.insert(std::string("usage: gxsort ").size(), "plan ");
    return help_command(help);
  }
  type_options(a, vm, cmd);
  if (planned) check_plan_operands(a, vm, cmd);
  else check_operands(a, vm, cmd);
  check_keys(a, vm, cmd);
  return cmd;
}

void resolve_npy(Command& cmd) {
  EngineOptions& e = cmd.engine;
  std::string descr;
  bool npy_in = false;
  for (const std::string& in : cmd.inputs) {
    if (!any_npy({in})) continue;
    const NpyInput n = npy_input(in, cmd.format_given || npy_in ? &e.format : nullptr, cmd.keys);
    if (!npy_in) descr = n.descr;
    e.format = n.format;
    e.format.reverse = n.format.reverse != cmd.reverse;
    npy_in = true;
  }
  const bool writes = cmd.name == "sort" || cmd.name == "merge" || cmd.name == "dedupe" || cmd.name == "gen";
  if (writes && (npy_in || any_npy({cmd.output}))) e.npy_descr = npy_in ? descr : npy_descr_for(e.format);
}

}  // namespace gxsort::cli
