// Keyword arguments to the library's options and formats (call.hpp).
#include <cstdlib>

#include "call.hpp"

namespace gxsort::py {
namespace {

SizeOption size_of(const nb::handle& value, const char* option) {
  if (nb::isinstance<nb::int_>(value)) {
    const long long bytes = nb::cast<long long>(value);
    if (bytes <= 0) throw Error(ExitCode::usage, std::string(option) + "=" + std::to_string(bytes) + ": give a positive size");
    return parse_size_option(std::to_string(bytes), std::string(option) + "=");
  }
  return parse_size_option(nb::cast<std::string>(value), std::string(option) + "=");
}

Device device_of(const std::string& name) {
  if (name == "auto") return Device::automatic;
  if (name == "cpu") return Device::cpu;
  if (name == "cuda" || name == "gpu") return Device::cuda;
  throw Error(ExitCode::usage, "device=\"" + name + "\": give \"auto\", \"cpu\" or \"cuda\"");
}

// What the process tells the library (gxsort/context.hpp): the temp directory of $TMPDIR,
// as the CLI reads it, and a list of the directories `gxsort clean` must look in after
// a kill -9 (each call its own).
Context process_context() {
  Context c;
  if (const char* t = std::getenv("TMPDIR"); t && *t) c.temp_dir = t;
  c.debris_list = new_debris_list();
  return c;
}

template <class Options>
void fill_common(Options& o, const nb::dict& d) {
  if (d.contains("memory")) o.memory = size_of(d["memory"], "memory");
  if (d.contains("device_memory")) o.device_memory = size_of(d["device_memory"], "device_memory");
  if (d.contains("threads")) {
    const long t = nb::cast<long>(d["threads"]);
    if (t < 1 || t > 4096) throw Error(ExitCode::usage, "threads=" + std::to_string(t) + ": give 1 to 4096");
    o.threads = unsigned(t);
  }
  if (d.contains("device")) o.device = device_of(nb::cast<std::string>(d["device"]));
  if (d.contains("device_index")) o.device_index = nb::cast<unsigned>(d["device_index"]);
  if (d.contains("tmp_dir")) o.tmp_dirs = nb::cast<std::vector<std::string>>(d["tmp_dir"]);
  o.context = process_context();
}

}  // namespace

Format format_of(size_t record_size, const nb::list& fields) {
  std::vector<KeyField> keys;
  for (nb::handle item : fields) {
    auto t = nb::cast<nb::tuple>(item);
    KeyField k;
    k.offset = nb::cast<uint32_t>(t[0]);
    const auto type = nb::cast<std::string>(t[1]);
    if (type == "bytes") {
      k.type = KeyType::bytes;
      k.bytes = nb::cast<uint32_t>(t[2]);
    } else {
      k.type = parse_key_type(type, &k.big_endian);
      k.bytes = uint32_t(key_type_width(k.type));
    }
    k.desc = nb::cast<bool>(t[3]);
    keys.push_back(k);
  }
  Format f = Format::of_keys(record_size, keys, false);
  f.validate();
  return f;
}

MemoryOptions memory_options(const nb::dict& d) {
  MemoryOptions o;
  fill_common(o, d);
  return o;
}

EngineOptions engine_options(const nb::dict& d) {
  EngineOptions o;
  fill_common(o, d);
  return o;
}

}  // namespace gxsort::py
