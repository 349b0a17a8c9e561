// Each command's own options and the check of its operands (the registry's add_options
// and build: commands.cpp), with the option lists several of them share.
#include "command_options.hpp"

namespace gxsort::cli {

void expect_operands(const Command& cmd, size_t lo, size_t hi, const char* what) {
  if (cmd.inputs.size() < lo || cmd.inputs.size() > hi)
    fail_usage(cmd.name + ": expected " + what + " (see gxsort " + cmd.name + " --help)");
}

namespace {

void require_output(const Command& cmd, const char* what) {
  if (cmd.output.empty()) fail_usage(cmd.name + ": the output is required: -o " + what);
}

constexpr const char* kOutputHelp = "output (- for stdout; may name the input)";

void add_output(po::options_description& d, Command& cmd, const char* value, const char* help) {
  d.add_options()("output,o", po::value(&cmd.output)->value_name(value), help);
}

void add_resume(po::options_description& d, Command& cmd) {
  d.add_options()("resume", po::bool_switch(&cmd.engine.resume), "reuse the runs and merge outputs (and a graph build's or dedupe's finished stages) a killed run of the same job (same input, options and output) left in the first --tmp-dir");
}

void add_distributed(po::options_description& d, Command& cmd) {
  d.add_options()("distributed", po::bool_switch(&cmd.distributed), "one rank of an MPI job (mpirun -np N gxsort ...): the ranks sort IN together into OUT, a file on a file system they all share (docs/distributed.md)");
}

void add_exchange(po::options_description& d, Args& a) {
  d.add_options()("exchange", po::value(&a.exchange)->value_name(names(kExchanges)), "--distributed: how the ranks exchange records: auto = where every rank is on one host, each reads its pieces from the others' GPUs (CUDA IPC) or run files, else MPI; mpi = always MPI_Alltoallv (docs/distributed.md)");
}

void add_result_json(po::options_description& d, Command& cmd) {
  d.add_options()("json", po::bool_switch(&cmd.json), "print the result as one JSON object (with a format_version)");
}

// sort, dedupe: one input into -o FILE.
void build_one_to_file(const Args&, const po::variables_map&, Command& cmd) {
  expect_operands(cmd, 1, 1, "one input file");
  require_output(cmd, "FILE");
}

}  // namespace

void add_sort_options(po::options_description& d, Command& cmd, Args& a) {
  add_output(d, cmd, "FILE", kOutputHelp);
  add_resume(d, cmd);
  add_distributed(d, cmd);
  add_exchange(d, a);
}

void build_sort(const Args& a, const po::variables_map& vm, Command& cmd) {
  if (!cmd.lines) return build_one_to_file(a, vm, cmd);
  expect_operands(cmd, 1, SIZE_MAX, "input files");  // text lines: concatenated, as GNU sort reads them
  require_output(cmd, "FILE");
}

void add_plan_options(po::options_description& d, Command& cmd, Args& a) {
  add_output(d, cmd, "FILE", "the output `sort` would write (--resume: the job is its input, options and output)");
  add_resume(d, cmd);
  add_distributed(d, cmd);
  add_exchange(d, a);
  d.add_options()("json", po::bool_switch(&a.json), "print the plan as JSON")("dot", po::bool_switch(&a.dot), "print the merge tree for Graphviz")
    ("ranks", po::value(&a.ranks)->value_name("N"), "--distributed: plan N ranks like this process, on this host (default: the ranks of the MPI job it runs in)");
}

void build_plan(const Args&, const po::variables_map&, Command& cmd) { expect_operands(cmd, 1, 1, "one input file"); }

void add_runs_options(po::options_description& d, Command& cmd, Args& a) {
  add_output(d, cmd, "DIR", "the directory for the run files and their manifest");
  d.add_options()("direct-io", po::value(&a.direct_io)->value_name(names(kDirectIos)), "the run files bypass the page cache (default auto: when they would fill more than half the memory available to the cache)");
  d.add_options()("resume", po::bool_switch(&cmd.engine.resume), "reuse the runs a killed run of the same job (same input, options and directory) left in the output directory");
}

void build_runs(const Args&, const po::variables_map&, Command& cmd) {
  if (cmd.lines) expect_operands(cmd, 1, SIZE_MAX, "one or more input files");  // read as one text, as sort reads them
  else expect_operands(cmd, 1, 1, "one input file");
  require_output(cmd, "DIR");
}

void add_merge_options(po::options_description& d, Command& cmd, Args&) {
  add_output(d, cmd, "FILE", kOutputHelp);
  add_resume(d, cmd);
  d.add_options()("distributed", po::bool_switch(&cmd.distributed), "one rank of an MPI job (mpirun -np N gxsort merge ...): each rank merges its share of the output from its cuts of the inputs, into OUT, a file on a file system they all share (docs/distributed.md)");
}

// --distributed: what a rank of a merge or a dedupe cannot do (docs/distributed.md;
// what it refuses for every command: cli_options.cpp, check_distributed).
void build_merge(const Args&, const po::variables_map&, Command& cmd) {
  if (cmd.distributed && cmd.engine.unique)
    fail_usage("merge --distributed does not take -u (merge the files, then dedupe --assume-sorted, or sort -u --distributed)");
  expect_operands(cmd, 1, SIZE_MAX, "one or more sorted input files");
  require_output(cmd, "FILE");
}

void add_check_options(po::options_description& d, Command& cmd, Args&) { add_result_json(d, cmd); }

void build_check(const Args&, const po::variables_map&, Command& cmd) {
  if (cmd.engine.unique && !cmd.lines)
    fail_usage("check: -u applies to text lines (a check of records counts their duplicate keys)");
  expect_operands(cmd, 1, 1, "one input file");
}

void add_gen_options(po::options_description& d, Command& cmd, Args& a) {
  add_output(d, cmd, "FILE", "output (- for stdout)");
  d.add_options()
    ("count", po::value(&a.count)->value_name("N"), "number of records")
    ("dist", po::value(&a.dist)->value_name(names(kGenDists)), "key distribution (default uniform)")
    ("seed", po::value(&a.seed)->value_name("X"), "random seed (default 1): the same seed gives the same bytes")
    ("threads", po::value(&a.threads)->value_name("N"), "CPU threads (default: the CPUs this process may use)")
    ("graph", po::value(&a.graph)->value_name(names(kGraphKinds)), "an edge list of binary u32 (scale < 32) or u64 pairs instead of records")
    ("scale", po::value(&a.scale)->value_name("S"), "--graph: 2^S vertices")
    ("edge-factor", po::value(&a.edge_factor)->value_name("E"), "--graph: E * 2^S edges (default 16)")
    ("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the output before renaming it into place");
}

void build_gen(const Args& a, const po::variables_map& vm, Command& cmd) {
  expect_operands(cmd, 0, 0, "no operands");
  require_output(cmd, "FILE");
  if (!vm.count("graph")) {
    if (!vm.count("count")) fail_usage("gen: --count N is required");
    if (vm.count("scale") || vm.count("edge-factor")) fail_usage("gen: --scale and --edge-factor need --graph");
    return;
  }
  if (vm.count("count") || vm.count("dist")) fail_usage("gen --graph: --count and --dist do not apply (use --scale and --edge-factor)");
  if (!vm.count("scale")) fail_usage("gen --graph: --scale S is required");
  if (a.scale.value < 1 || a.scale.value > 40) fail_usage("--scale: expected 1 to 40");
  GraphGenOptions& g = cmd.engine.graph.gen;
  g.scale = unsigned(a.scale.value);
  g.edge_factor = a.edge_factor.value;
  g.seed = a.seed.value;
}

void add_dedupe_options(po::options_description& d, Command& cmd, Args& a) {
  add_sort_options(d, cmd, a);
  d.add_options()
    ("assume-sorted", po::bool_switch(&cmd.engine.dedupe.assume_sorted), "the input is sorted: stream it (exit 1 naming the first unsorted record)")
    ("count", po::bool_switch(&cmd.engine.dedupe.count), "write each kept record followed by its group size as a little-endian u64")
    ("keep", po::value(&a.keep)->value_name("first|last"), "which record of a group of equal keys is kept, in input order (default first)")
    ("strategy", po::value(&a.strategy)->value_name(names(kDedupeStrategies)), "default auto: bitmap for flat u32/i32/f32 keys, no --count, when the input does not sort in memory; else on a GPU above 2^26 keys, on the CPU from 2^26 keys whose sampled span is at most 2^24 (docs/dedupe.md)");
}

void build_dedupe(const Args& a, const po::variables_map& vm, Command& cmd) {
  const DedupeOptions& d = cmd.engine.dedupe;
  if (cmd.distributed && (d.count || d.keep_last || d.assume_sorted || d.strategy == DedupeStrategy::bitmap))
    fail_usage("dedupe --distributed keeps the first record of each key (the distributed sort -u): --count, --keep last, "
               "--assume-sorted and --strategy bitmap do not apply");
  build_one_to_file(a, vm, cmd);
}

void add_reduce_options(po::options_description& d, Command& cmd, Args& a) {
  add_result_json(d, cmd);
  d.add_options()
    ("op", po::value(&a.op)->value_name(names(kReduceOps)), "the reduction (required)")
    ("algo", po::value(&a.algo)->value_name(names(kReduceAlgos)), "GPU kernel (default flat)");
}

void build_reduce(const Args&, const po::variables_map& vm, Command& cmd) {
  expect_operands(cmd, 1, 1, "one input file");
  if (!vm.count("op")) fail_usage("reduce: --op is required (" + choice_names(kReduceOps) + ")");
}

void add_graph_build_options(po::options_description& d, Command& cmd, Args& a) {
  add_output(d, cmd, "FILE", "the CSR graph (not the input)");
  add_resume(d, cmd);
  add_result_json(d, cmd);
  d.add_options()
    ("input-format", po::value(&a.input_format)->value_name(names(kEdgeFormats)), "default auto: from the extension (.mtx, .bin32/.u32, .bin64/.u64, else snap)")
    ("symmetrize", po::bool_switch(&cmd.engine.graph.build.symmetrize), "add the reverse (dst, src) of every edge")
    ("keep-self-loops", po::bool_switch(&cmd.engine.graph.build.keep_self_loops), "keep edges (v, v) (default: dropped)")
    ("keep-duplicates", po::bool_switch(&cmd.engine.graph.build.keep_duplicates), "keep repeated edges (default: deduplicated)")
    ("skip-header", po::bool_switch(&cmd.engine.graph.build.skip_header), "text edge lists: line 1 is a header (src,dst), skipped")
    ("renumber", po::value<std::string>()->implicit_value("first-seen")->value_name(names(kRenumbers)),
     "number the vertices 0..n-1 (in the order first seen, or of their ids; any id below 2^64); the map to --ids")
    ("ids", po::value(&cmd.engine.graph.build.ids_output)->value_name("FILE"),
     "--renumber: the id map, new id -> original id as u64 (.npy when it ends in .npy; default GRAPH.ids)");
}

void build_graph_build(const Args&, const po::variables_map& vm, Command& cmd) {
  // First: `--renumber EDGES -o G` takes EDGES as the mode, and says so.
  if (vm.count("renumber"))
    cmd.engine.graph.build.renumber = parse_choice(vm["renumber"].as<std::string>(), "--renumber", kRenumbers);
  expect_operands(cmd, 1, 1, "one input edge list");
  require_output(cmd, "GRAPH");
}

void add_bfs_options(po::options_description& d, Command& cmd, Args& a) {
  add_result_json(d, cmd);
  d.add_options()
    ("output,o", po::value(&cmd.output)->value_name("LEVELS"), "write the levels (u32, unreachable 0xFFFFFFFF) to LEVELS (.npy when it ends in .npy)")
    ("source", po::value(&a.source)->value_name("S"), "the source vertex (required unless --random-sources)")
    ("parents", po::value(&cmd.engine.graph.bfs.parents_output)->value_name("FILE"), "write the parent array (the CSR's id width) to FILE (.npy when it ends in .npy)")
    ("random-sources", po::value(&a.random_sources)->value_name("K"), "K searches from random vertices with edges (stats only; --seed)")
    ("seed", po::value(&a.seed)->value_name("X"), "seed for --random-sources (default 1)")
    ("ids", po::value(&cmd.engine.graph.bfs.ids_input)->value_name("FILE"), "a renumbered graph's id map (default GRAPH.ids)");
  d.add_options()("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the outputs before renaming them into place");
}

void build_bfs(const Args& a, const po::variables_map& vm, Command& cmd) {
  expect_operands(cmd, 1, 1, "one CSR graph file");
  if (vm.count("source") == vm.count("random-sources")) fail_usage("bfs: give exactly one of --source S and --random-sources K");
  if (vm.count("random-sources") && a.random_sources.value == 0) fail_usage("--random-sources must be at least 1");
  bfs_request(a, vm, cmd);
}

void bfs_request(const Args& a, const po::variables_map&, Command& cmd) {
  BfsOptions& b = cmd.engine.graph.bfs;
  b.source = a.source.value;
  b.random_sources = a.random_sources.value;
  b.seed = a.seed.value;
  b.levels_output = cmd.output;
}

void add_info_options(po::options_description& d, Command& cmd, Args&) { add_result_json(d, cmd); }

void build_no_operands(const Args&, const po::variables_map&, Command& cmd) { expect_operands(cmd, 0, 0, "no operands"); }

void add_clean_options(po::options_description& d, Command& cmd, Args&) {
  add_result_json(d, cmd);
  d.add_options()
    ("tmp-dir,T", po::value(&cmd.engine.tmp_dirs)->value_name("DIR"), "a directory to clean (repeatable; default $TMPDIR or /tmp, and the current directory)")
    ("dry-run,n", po::bool_switch(&cmd.dry_run), "list what would be removed, remove nothing")
    ("all-users", po::bool_switch(&cmd.all_users), "remove other users' leftovers too (as root; default: listed, not removed)");
}

}  // namespace gxsort::cli
