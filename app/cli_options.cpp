#include "cli_options.hpp"

#include <sstream>
#include <unistd.h>

#include "cli_args.hpp"
#include "commands.hpp"
#include "line_options.hpp"
#include "spellings.hpp"

namespace gxsort::cli {

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

void add_general(po::options_description& d, const CommandEntry& e, Command& cmd, Args& a) {
  if (e.groups & kLines)  // -h is GNU sort's --human-numeric-sort there
    d.add_options()("help", po::bool_switch(&a.help), "show this help (-h here is GNU sort's --human-numeric-sort)");
  else
    d.add_options()("help,h", po::bool_switch(&a.help), "show this help");
  if (e.groups & kQuiet) d.add_options()("quiet,q", po::bool_switch(&cmd.quiet), e.quiet_help);
  if (!(e.groups & kStats)) return;
  d.add_options()
    ("verbose,v", po::bool_switch(&cmd.verbose), "print a summary of what was done")
    ("stats-json", po::value(&cmd.stats_json)->value_name("FILE"), "write per-phase times, bytes and throughput to FILE (- for stdout)");
  if (e.groups & kProgress)
    d.add_options()("progress", po::bool_switch(&cmd.progress), "draw the progress line (phase, merge level k of N, the "
                    "whole job's bytes and ETA) also when stderr is not a terminal: one line per update");
}

// reverse: whether an order applies (not to gen, which writes records, nor to reduce);
// lines: whether -k is --key (GNU sort's -k POS1[,POS2] of text lines).
void add_format(po::options_description& d, Args& a, bool reverse, bool lines) {
  d.add_options()
    ("type", po::value(&a.type)->value_name("T"), "flat key file of T: u8|u16|u32|u64|i8|i16|i32|i64|f32|f64, or big-endian u16be..f64be "
     "(default u64); the number is bits: u8 is 1-byte records, u64 8-byte. numpy's spellings too: <u8 = uint64 = u64, >i4 = i32be")
    ("record-size", po::value(&a.record_size)->value_name("N"), "N-byte records (key + payload)")
    (lines ? "key,k" : "key", po::value(&a.keys)->value_name("OFFSET:TYPE[:desc]"), lines ? "a key field (repeatable: compared in order, each asc or desc): TYPE as --type, or bytes:N; with --record-size. Or NAME[:desc], a field of a structured .npy input. Or GNU sort's POS1[,POS2] (-k2,2n): a key of text lines" : "a key field (repeatable: compared in order, each asc or desc): TYPE as --type, or bytes:N; with --record-size. Or NAME[:desc], a field of a structured .npy input")
    ("key-offset", po::value(&a.key_offset)->value_name("O"), "byte offset of the key in the record (default 0)")
    ("key-type", po::value(&a.key_type)->value_name("T"), "typed key in the record, T as --type (the same as --key O:T)")
    ("key-bytes", po::value(&a.key_bytes)->value_name("K"), "K-byte key compared as unsigned bytes (the same as --key O:bytes:K)")
    ("format", po::value(&a.format)->value_name("NAME"), lines ? "gensort: 100-byte records with 10-byte keys; lines: text lines (--lines)" : "gensort: 100-byte records with 10-byte keys");
  if (!reverse) return;
  d.add_options()
    ("reverse,r", repeatable_switch(&a.reverse), "descending order of the whole key (still stable)")
    ("stable,s", repeatable_switch(&a.stable), "GNU sort's spelling, accepted: gxsort's order is always stable")
    ("float-order", po::value(&a.float_order)->value_name(names(kFloatOrders)), "f32/f64 keys: total = IEEE totalOrder "
     "(-NaN first, -0.0 < +0.0, NaNs by their bits), numpy = np.sort's (NaNs last, all equal; -0.0 == +0.0) (default total)");
}

void add_memory(po::options_description& d, Command& cmd, Args& a, bool tmp_dirs) {
  d.add_options()
    ("memory,S", po::value(&a.memory)->value_name("SIZE"), "host memory budget: bytes, K/M/G/T or N% of the memory limit (the smaller of RAM and the cgroup's limit; default 50%: gxsort info shows it)")
    ("threads", po::value(&a.threads)->value_name("N"), "CPU threads (default: the CPUs this process may use)");
  if (tmp_dirs)
    d.add_options()("tmp-dir,T", po::value(&cmd.engine.tmp_dirs)->value_name("DIR"),
                    "directory for temporary files (repeatable; default $TMPDIR, else the output's directory)");
  d.add_options()
    ("buffer-size", po::value(&a.buffer_size)->value_name("SIZE"), "GNU sort's spelling of --memory (a bare number is KiB, as there; -S's is bytes)")
    ("parallel", po::value(&a.parallel)->value_name("N"), "GNU sort's spelling of --threads");
  if (tmp_dirs)
    d.add_options()("temporary-directory", po::value(&a.temporary_dirs)->value_name("DIR"), "GNU sort's spelling of --tmp-dir");
}

void add_device(po::options_description& d, Args& a) {
  d.add_options()
    ("device", po::value(&a.device)->value_name(names(kDevices)), "default auto: CUDA when a GPU is usable (an in-memory sort of records wider than 64 bytes on 16+ threads: the CPU, faster there)")
    ("device-memory", po::value(&a.device_memory)->value_name("SIZE"), "GPU memory budget: bytes or N% of free (default 80% of free)");
}

void add_engine(po::options_description& d, const CommandEntry& e, Command& cmd, Args& a) {
  if (e.groups & kFsync)
    d.add_options()("no-fsync", po::bool_switch(&a.no_fsync), "do not fsync the output before renaming it into place, nor a resumable job's journal (faster, less durable)");
  if (e.groups & kUnique)
    d.add_options()("unique,u", repeatable_switch(&cmd.engine.unique), e.unique_help);
  if (!(e.groups & kEngine)) return;
  d.add_options()
    ("fan-in", po::value(&a.fan_in)->value_name("K"), "most runs merged at once (default 64, lowered to fit --memory)")
    ("direct-io", po::value(&a.direct_io)->value_name(names(kDirectIos)), "temporary runs, and a merge's synced output, bypass the page cache (default auto: when the runs would fill more than half the memory available to the cache)");
  // merge has sorted inputs: nothing to choose (its hint says so).
  if (e.groups & kOoc)
    d.add_options()("ooc", po::value(&a.ooc)->value_name(names(kOocMethods)), "how a sort larger than --memory goes out of core: merge = sorted runs merged with the fan-in; partition = records scattered by key range into buckets, each sorted in memory (default auto: partition on the CPU on at most 4 threads when its buckets fit the page cache and no --fan-in is given)");
  d.add_options()("merge-kernel", po::value(&a.merge_kernel)->value_name(names(kMergeKernels)), "GPU merge kernel (default auto: the fastest)");
}

po::options_description options_of(const CommandEntry& s, Command& cmd, Args& a) {
  // 100 columns: the value lists (u32|u64|...) fit on their line.
  const unsigned w = 100, desc = 50;
  po::options_description all(w, desc);
  po::options_description general("general options", w, desc), command(std::string(s.name) + " options", w, desc),
      format("record format", w, desc), lines("text lines (GNU sort's options, its order in the C locale)", w, desc), resources("memory, threads and devices", w, desc), engine("engine options", w, desc);
  add_general(general, s, cmd, a);
  s.add_options(command, cmd, a);
  if (s.groups & kLines) add_line_options(lines, a);
  if (s.groups & kFormat) add_format(format, a, s.groups & kReverse, s.groups & kLines);
  if (s.groups & kMemory) add_memory(resources, cmd, a, s.groups & kTmpDir);
  if (s.groups & kDevice) add_device(resources, a);
  add_engine(engine, s, cmd, a);
  all.add(general);
  if (!command.options().empty()) all.add(command);
  if (!lines.options().empty()) all.add(lines);
  if (!format.options().empty()) all.add(format);
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
    if (has_npy_name(p)) return true;
  return false;
}

// --key needs a record size: --record-size, or the header of a .npy input.
void check_keys(const Args& a, const po::variables_map& vm, const Command& cmd) {
  if (cmd.lines) return;  // GNU's -k POS (line_options.cpp)
  const bool named = !a.keys.empty() && raw_key_fields(a.keys).empty();
  if (named && vm.count("record-size"))
    fail_usage("--key " + a.keys[0] + ": names a field of a .npy input, whose header gives the record size: leave --record-size out");
  if (a.keys.empty() || any_npy(cmd.inputs)) return;
  if (named && gnu_key_syntax(a.keys[0]))
    fail_usage("--key " + a.keys[0] + ": GNU sort's key of text lines: sort, merge, dedupe and check take it (gxsort sort -k2,2 FILE)");
  if (named)
    fail_usage("--key " + a.keys[0] + ": names a field of a structured .npy input; for raw records give --key " +
               "OFFSET:TYPE[:desc] and --record-size N");
  if (!vm.count("record-size")) fail_usage("--key OFFSET:TYPE needs --record-size N (the size of a record)");
}

// --distributed: what the distributed sort does not do (docs/distributed.md); what a
// command's own options cannot do with it, its build says.
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
}

// GNU sort's spellings of --memory, --threads and --tmp-dir (one of each pair).
void type_gnu_spellings(const Args& a, const po::variables_map& vm, Command& cmd) {
  if (vm.count("buffer-size") && vm.count("memory")) fail_usage("give one of --memory and --buffer-size");
  if (vm.count("parallel") && vm.count("threads")) fail_usage("give one of --threads and --parallel");
  if (vm.count("buffer-size")) cmd.engine.memory = parse_size_option(gnu_buffer_size(a.buffer_size), "--buffer-size");
  if (vm.count("parallel")) {
    if (a.parallel.value < 1 || a.parallel.value > 4096) fail_usage("--parallel: expected 1 to 4096");
    cmd.engine.threads = unsigned(a.parallel.value);
    cmd.threads_given = true;
  }
  auto& dirs = cmd.engine.tmp_dirs;
  dirs.insert(dirs.end(), a.temporary_dirs.begin(), a.temporary_dirs.end());
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
  type_gnu_spellings(a, vm, cmd);
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
  cmd.float_order = parse_choice(a.float_order, "--float-order", kFloatOrders);
  cmd.gen.count = a.count.value;
  cmd.gen.seed = a.seed.value;
  if (vm.count("graph")) e.graph.gen.kind = parse_choice(a.graph, "--graph", kGraphKinds);
  if ((a.json || cmd.json) && a.dot) fail_usage("plan: choose one of --json and --dot");
  cmd.plan_format = a.json || cmd.json ? PlanFormat::json : a.dot ? PlanFormat::dot : PlanFormat::text;
  cmd.json = cmd.json || a.json;
  if (cmd.quiet && cmd.verbose) fail_usage("-q and -v cannot be combined");
  if (cmd.quiet && cmd.progress) fail_usage("-q and --progress cannot be combined");
  if (!cmd.lines) e.format = build_format(a, vm);  // lines: line_options.cpp
  cmd.format_given = !cmd.lines && (vm.count("type") || vm.count("record-size") || vm.count("format"));
  cmd.keys = a.keys;
  cmd.reverse = a.reverse;
  check_distributed(a, vm, cmd);
}

std::string command_help(const CommandEntry& s, const po::options_description& all) {
  std::ostringstream o;
  o << "usage: gxsort " << s.name << (*s.operands ? " " : "") << s.operands << " [options]\n\n" << s.summary << ".\n";
  o << s.more_help << "\n" << all;
  return o.str();
}

// The command word(s) at argv[1..] ("graph build" takes two); `first` moves to the last.
const CommandEntry& command_entry(int argc, const char* const* argv, int& first) {
  const CommandEntry* partial = nullptr;
  const CommandEntry* e = command_at(argc, argv, 1, first, &partial);
  if (partial)
    fail_usage(std::string(argv[1]) + ": expected `gxsort " + partial->name + " " + partial->operands + "` (see gxsort " +
               partial->name + " --help)");
  if (!e) fail_usage("unknown command '" + std::string(argv[1]) + "' (see gxsort --help)");
  return *e;
}

// plan CMD ARGS: the command planned (the word(s) after `plan`, which `first` moves past),
// or null for `plan IN` (`plan sort IN` is the same). A file named like a command is
// planned as `plan ./NAME`.
const CommandEntry* planned_entry(int argc, const char* const* argv, int& first) {
  if (argc <= first + 1) return nullptr;
  int last = first;
  const CommandEntry* partial = nullptr;
  const CommandEntry* e = command_at(argc, argv, first + 1, last, &partial);
  if (partial && partial->plannable)
    fail_usage("plan " + std::string(argv[first + 1]) + ": expected `gxsort plan " + partial->name + " IN`");
  if (!e || !e->plannable) return nullptr;
  first = last;
  return e->plan_default ? nullptr : e;
}

// What plan CMD adds to CMD's options: --json (where CMD has none) and --dot.
void add_plan_cmd_options(po::options_description& all, Args& a) {
  po::options_description d("plan options", 100, 50);
  if (!all.find_nothrow("json", false)) d.add_options()("json", po::bool_switch(&a.json), "print the plan as JSON");
  d.add_options()("dot", po::bool_switch(&a.dot), "print the merge tree for Graphviz (merge)");
  all.add(d);
}

// plan CMD: CMD's operands (its output and required options are not: nothing runs).
void check_plan_operands(const CommandEntry& planned, const Args& a, const po::variables_map& vm, Command& cmd) {
  const size_t most = planned.many_inputs ? SIZE_MAX : 1;
  if (cmd.inputs.empty() || cmd.inputs.size() > most)
    fail_usage("plan " + std::string(planned.name) + ": expected " + (most == 1 ? "one input" : "one or more inputs") +
               " (see gxsort plan " + planned.name + " --help)");
  if (cmd.distributed) fail_usage("plan " + std::string(planned.name) + ": --distributed plans a sort (gxsort plan IN --distributed)");
  if (!cmd.stats_json.empty()) fail_usage("plan: --stats-json does not apply (a plan does no work)");
  if (planned.build_planned) planned.build_planned(a, vm, cmd);
}

// Why an option that other commands take does not apply to this one, where the name
// alone does not say.
std::string option_hint(const CommandEntry& command, const std::string& option) {
  for (const OptionHint& h : command.hints)
    if (option == h.option) return h.text;
  return "";
}

// numpy's dtype spellings of --type, --key-type and --key OFFSET:TYPE as gxsort's names.
void numpy_type_names(Args& a) {
  a.type = gxsort_type_name(a.type);
  a.key_type = gxsort_type_name(a.key_type);
  for (std::string& key : a.keys) key = gxsort_key_text(key);
}

// GNU sort's streams: no input reads stdin, no -o writes stdout (sort, merge; check has no -o).
void default_streams(const po::options_description& all, Command& cmd) {
  if (cmd.inputs.empty()) cmd.inputs.push_back("-");
  if (!cmd.output.empty() || !all.find_nothrow("output", false)) return;
  cmd.output = "-";
  cmd.stdout_default = true;
}

Command parse_command(int argc, const char* const* argv, const CommandEntry& command, int first, bool gnu_streams);
Command parse_sort_mode(const char* argv0, const SortMode& mode);

Command help_command(std::string text, bool error = false) {
  Command c;
  c.entry = &help_entry();
  c.name = c.entry->name;
  c.help_text = std::move(text);
  c.help_is_error = error;
  return c;
}

}  // namespace

std::string usage_text() {
  std::ostringstream o;
  o << "usage: gxsort COMMAND [options]\n\ncommands:\n";
  for (const CommandEntry& s : command_table()) {
    if (!s.listed) continue;
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
  if (word == "--version") {
    Command c;
    c.entry = version_entry();
    c.name = c.entry->name;
    return c;
  }
  if (word == help_entry().name) {  // gxsort help CMD: CMD --help
    if (argc < 3) return help_command(usage_text());
    std::vector<const char*> args{argv[0]};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back("--help");
    return parse_command_line(int(args.size()), args.data());
  }
  int first = 1;
  const CommandEntry& command = command_entry(argc, argv, first);
  if (command.gnu_sort) {
    const SortMode mode = gnu_sort_mode(argc, argv, first);
    if (!mode.command.empty()) return parse_sort_mode(argv[0], mode);
  }
  return parse_command(argc, argv, command, first, command.gnu_sort);
}

namespace {

Command parse_command(int argc, const char* const* argv, const CommandEntry& command, int first, bool gnu_streams) {
  const CommandEntry* planned = command.plans ? planned_entry(argc, argv, first) : nullptr;
  const CommandEntry& spec = planned ? *planned : command;  // plan CMD takes CMD's options
  Command cmd;
  cmd.entry = &command;
  cmd.name = command.name;
  if (planned) cmd.planned = *planned->kind, cmd.planned_entry = planned;
  Args a;
  po::options_description all = options_of(spec, cmd, a);
  if (planned) add_plan_cmd_options(all, a);
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
    numpy_type_names(a);
  } catch (const po::unknown_option& e) {
    const std::string option = e.get_option_name().substr(0, e.get_option_name().find('='));  // --ooc=merge: --ooc
    const std::string gnu = spec.groups & kReverse ? gnu_option_pointer(option) : "";
    if (!gnu.empty()) fail_usage(cmd.name + ": " + option + ": " + gnu);
    fail_usage(cmd.name + ": " + option + " does not apply to " + cmd.name + option_hint(command, option) +
               " (see gxsort " + cmd.name + " --help)");
  } catch (const po::error& e) {
    fail_usage(cmd.name + ": " + e.what() + " (see gxsort " + cmd.name + " --help)");
  }
  if (a.help) {
    std::string help = command_help(spec, all);
    if (planned) help.insert(std::string("usage: gxsort ").size(), "plan ");
    return help_command(help);
  }
  cmd.lines = (spec.groups & kLines) && wants_lines(a, vm);
  type_options(a, vm, cmd);
  if (cmd.lines) type_lines(a, vm, spec, cmd);
  if (planned) {
    check_plan_operands(*planned, a, vm, cmd);
  } else {
    if (gnu_streams) default_streams(all, cmd);
    command.build(a, vm, cmd);
  }
  check_keys(a, vm, cmd);
  return cmd;
}

// sort -c, -C, -m: the check or merge it names, run as `gxsort check|merge ARGS`.
Command parse_sort_mode(const char* argv0, const SortMode& mode) {
  std::vector<const char*> args{argv0, mode.command.c_str()};
  for (const std::string& arg : mode.args) args.push_back(arg.c_str());
  int first = 1;
  const CommandEntry& command = command_entry(int(args.size()), args.data(), first);
  return parse_command(int(args.size()), args.data(), command, first, true);
}

}  // namespace

void refuse_terminal_output(const Command& cmd) {
  // Text lines go there, as GNU sort's do.
  if (cmd.stdout_default && !cmd.lines && ::isatty(STDOUT_FILENO))
    fail_usage(cmd.name + ": standard output is a terminal: binary records are not written there (give -o FILE or redirect it)");
}

void resolve_npy(Command& cmd) {
  if (cmd.lines) return;  // no .npy, no format (line_options.cpp refuses them)
  EngineOptions& e = cmd.engine;
  std::string descr;
  bool npy_in = false;
  for (const std::string& in : cmd.inputs) {
    if (!any_npy({in})) continue;
    const NpyInput n = npy_input(in, cmd.format_given || npy_in ? &e.format : nullptr, cmd.keys);
    if (n.stream) e.npy_streams.push_back(n.stream);  // a FIFO: the command reads on from its header
    if (!npy_in) descr = n.descr;
    e.format = n.format;
    e.format.reverse = n.format.reverse != cmd.reverse;
    npy_in = true;
  }
  if (cmd.entry->npy_output && (npy_in || any_npy({cmd.output}))) e.npy_descr = npy_in ? descr : npy_descr_for(e.format);
  e.format = with_float_order(e.format, cmd.float_order);  // the format known, .npy headers read
  e.format.sniff_inputs = !cmd.format_given && !npy_in;  // u64 assumed: refuse inputs that look like other files
}

}  // namespace gxsort::cli
