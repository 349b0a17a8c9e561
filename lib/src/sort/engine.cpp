#include "sort/engine.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "io/output.hpp"
#include "io/space.hpp"
#include "plan/sizes.hpp"

namespace gxsort {

uint64_t checked_record_count(const std::string& path, uint64_t bytes, const Format& f) {
  if (bytes % f.record_size != 0)
    fail_usage(path + ": size " + std::to_string(bytes) + " bytes is not a multiple of the " +
               std::to_string(f.record_size) + "-byte record size (" + f.describe() + ")");
  return bytes / f.record_size;
}

io::File open_input(const std::string& path, const Format& f) {
  f.validate();
  io::File in = io::File::open_input(path);
  if (!in.is_stream()) checked_record_count(in.path(), in.size(), f);
  return in;
}

std::string default_temp_dir(const std::string& output) {
  if (output == "-") return "/tmp";
  int own_fd = -1;
  const std::string target = io::resolve_symlinks(output, &own_fd);
  if (own_fd >= 0) return "/tmp";  // /dev/stdout and the like
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return "/tmp";
  return io::directory_of(target);
}

uint64_t host_budget(const EngineOptions& opt) {
  const uint64_t limit = memory_limit().bytes;  // RAM, or the cgroup's limit when lower
  return opt.memory.given ? opt.memory.of(limit) : limit / 2;
}

std::vector<std::string> temp_dirs(const EngineOptions& opt, const std::string& default_tmp_dir) {
  if (!opt.tmp_dirs.empty()) return opt.tmp_dirs;
  const char* env = std::getenv("TMPDIR");
  return {env && *env ? std::string(env) : default_tmp_dir};
}

Prepared prepare(const EngineOptions& opt, uint64_t input_bytes, const std::string& default_tmp_dir) {
  opt.format.validate();
  Prepared p;
  p.threads = std::max(1u, opt.threads);
  p.memory = host_budget(opt);
  p.tmp_dirs = temp_dirs(opt, default_tmp_dir);
  p.backend = make_backend(opt.device, p.threads, opt.device_memory);

  PlanInput& in = p.plan_input;
  in.input_bytes = input_bytes;
  in.record_size = opt.format.record_size;
  const size_t probe = 1 << 20;
  in.sort_bytes_per_record =
      opt.format.record_size + (p.backend->sort_scratch_bytes(opt.format, probe) + probe - 1) / probe;
  in.memory = p.memory;
  in.max_chunk_records = p.backend->max_chunk_records(opt.format);
  in.fan_in = opt.fan_in;
  in.merge_threads = p.threads;
  in.direct_io = opt.direct_io;
  in.page_cache_bytes = available_memory_bytes();
  in.ooc = opt.ooc;
  // A backend without a device merge merges on the CPU's loser tree, which costs more
  // than partition's one scatter pass.
  in.partition_preferred = p.backend->max_window_records(opt.format) == 0;
  p.plan = make_plan(in);
  return p;
}

}  // namespace gxsort
