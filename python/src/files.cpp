// The file commands (gxsort.hpp) with the CLI's options as keyword arguments: sort_file,
// merge_files, dedupe_file, check_file, and info. Reports come back as dicts the
// package's Python code turns into its report classes.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "call.hpp"

namespace gxsort::py {
using namespace nb::literals;
namespace {

// The engine options of a file command: its resources and flags, and the records' format,
// from `fields` or, for .npy inputs, from their header (keys: the field names of `keys`).
EngineOptions file_options(const std::vector<std::string>& inputs, const std::string& output, size_t record_size,
                           nb::handle fields, const std::vector<std::string>& keys, bool reverse,
                           const nb::dict& options) {
  EngineOptions e = engine_options(options);
  const bool given = !fields.is_none();
  if (given) e.format = format_of(record_size, nb::cast<nb::list>(fields));
  std::string descr;
  bool npy_in = false;
  for (const std::string& in : inputs) {
    if (!has_npy_name(in)) continue;
    const NpyInput n = npy_input(in, given || npy_in ? &e.format : nullptr, keys);
    if (n.stream) e.npy_streams.push_back(n.stream);  // a FIFO: the command reads on from its header
    if (!npy_in) descr = n.descr;
    e.format = n.format;
    npy_in = true;
  }
  if (!given && !npy_in)
    throw Error(ExitCode::usage, inputs.empty() ? "no input" : inputs[0] + ": give dtype= (not a .npy file)");
  e.format.reverse = e.format.reverse != reverse;
  if (npy_in || has_npy_name(output)) e.npy_descr = npy_in ? descr : npy_descr_for(e.format);
  if (options.contains("float_order")) {  // the format known, .npy headers read (as the CLI's --float-order)
    const auto order = nb::cast<std::string>(options["float_order"]);
    e.format = with_float_order(e.format, parse_choice(order, "float_order", kFloatOrders));
  }
  if (options.contains("fsync")) e.fsync = nb::cast<bool>(options["fsync"]);
  if (options.contains("resume")) e.resume = nb::cast<bool>(options["resume"]);
  if (options.contains("unique")) e.unique = nb::cast<bool>(options["unique"]);
  if (options.contains("fan_in")) e.fan_in = nb::cast<size_t>(options["fan_in"]);
  return e;
}

nb::dict stats_dict(const RunStats& s) {
  nb::dict d;
  d["command"] = s.command;
  d["backend"] = s.backend;
  d["mode"] = s.mode;
  d["records"] = s.records;
  d["input_bytes"] = s.input_bytes;
  d["output_bytes"] = s.output_bytes;
  d["runs"] = s.runs;
  d["merge_levels"] = s.merge_levels;
  d["resumed"] = s.resumed;
  d["seconds"] = s.seconds;
  nb::dict phases;
  for (const PhaseStat& p : s.phases) phases[p.name.c_str()] = p.seconds;
  d["phases"] = phases;
  return d;
}

// Runs command `run` released and interruptible, with the options' progress and token.
nb::dict run_command(EngineOptions e, nb::handle progress, const std::function<RunStats(const EngineOptions&)>& run) {
  RunStats stats;
  run_released([&](const CancelToken& c, const ProgressFn& p) {
    e.cancel = &c;
    e.progress = p;
    stats = run(e);
  }, progress);
  return stats_dict(stats);
}

nb::dict sort_file_py(const std::string& input, const std::string& output, size_t record_size, nb::handle fields,
                      const std::vector<std::string>& keys, bool reverse, const nb::dict& options, nb::handle progress) {
  EngineOptions e = file_options({input}, output, record_size, fields, keys, reverse, options);
  return run_command(e, progress, [&](const EngineOptions& o) { return sort_file(input, output, o); });
}

nb::dict merge_files_py(const std::vector<std::string>& inputs, const std::string& output, size_t record_size,
                        nb::handle fields, const std::vector<std::string>& keys, bool reverse, const nb::dict& options,
                        nb::handle progress) {
  EngineOptions e = file_options(inputs, output, record_size, fields, keys, reverse, options);
  return run_command(e, progress, [&](const EngineOptions& o) { return merge_files(inputs, output, o); });
}

nb::dict dedupe_file_py(const std::string& input, const std::string& output, size_t record_size, nb::handle fields,
                        const std::vector<std::string>& keys, bool reverse, const nb::dict& options,
                        nb::handle progress) {
  EngineOptions e = file_options({input}, output, record_size, fields, keys, reverse, options);
  if (options.contains("count")) e.dedupe.count = nb::cast<bool>(options["count"]);
  if (options.contains("keep_last")) e.dedupe.keep_last = nb::cast<bool>(options["keep_last"]);
  if (options.contains("assume_sorted")) e.dedupe.assume_sorted = nb::cast<bool>(options["assume_sorted"]);
  return run_command(e, progress, [&](const EngineOptions& o) { return dedupe_file(input, output, o); });
}

nb::dict check_file_py(const std::string& path, size_t record_size, nb::handle fields,
                       const std::vector<std::string>& keys, bool reverse, const nb::dict& options,
                       nb::handle progress) {
  EngineOptions e = file_options({path}, "", record_size, fields, keys, reverse, options);
  CheckResult r;
  run_released([&](const CancelToken& c, const ProgressFn& p) {
    e.cancel = &c;
    e.progress = p;
    r = check_file(path, e);
  }, progress);
  nb::dict d = stats_dict(r.stats);
  d["sorted"] = r.sorted;
  d["first_violation"] = r.first_violation;
  d["duplicates"] = r.duplicates;
  d["checksum"] = r.checksum;
  d["xxh3"] = r.xxh3;
  return d;
}

nb::dict info_py(const nb::dict& options) {
  const InfoReport r = info(engine_options(options));
  nb::dict d;
  d["version"] = r.version;
  d["cuda_built"] = r.cuda_built;
  d["threads"] = r.threads;
  d["memory_limit"] = r.memory_limit;
  d["memory_budget"] = r.memory_budget;
  nb::list gpus;
  for (const GpuInfo& g : r.gpus) {
    nb::dict x;
    x["name"] = g.name;
    x["compute_capability"] = nb::make_tuple(g.sm_major, g.sm_minor);
    x["total_memory"] = g.total_memory;
    x["free_memory"] = g.free_memory;
    x["budget"] = g.budget;
    gpus.append(x);
  }
  d["gpus"] = gpus;
  return d;
}

}  // namespace

void bind_files(nb::module_& m) {
  // fields and progress may be None (nanobind refuses None for an argument not marked so).
  const auto none = [](const char* name) { return nb::arg(name).none(); };
  m.def("sort_file", &sort_file_py, "input"_a, "output"_a, "record_size"_a, none("fields"), "keys"_a, "reverse"_a,
        "options"_a, none("progress"));
  m.def("merge_files", &merge_files_py, "inputs"_a, "output"_a, "record_size"_a, none("fields"), "keys"_a,
        "reverse"_a, "options"_a, none("progress"));
  m.def("dedupe_file", &dedupe_file_py, "input"_a, "output"_a, "record_size"_a, none("fields"), "keys"_a,
        "reverse"_a, "options"_a, none("progress"));
  m.def("check_file", &check_file_py, "path"_a, "record_size"_a, none("fields"), "keys"_a, "reverse"_a,
        "options"_a, none("progress"));
  m.def("info", &info_py);
}

}  // namespace gxsort::py
