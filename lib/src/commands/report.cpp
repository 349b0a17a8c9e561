// gxsort info: the facts, as data (the app renders them).
#include <algorithm>
#include <cstdio>
#include <thread>

#include "device/backend_select.hpp"
#include "gxsort/gxsort.hpp"
#include "engine/engine.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

// Still used by the plans' JSON (plan/, distributed/shape.cpp, resume_plan.cpp) until
// plans are data the app renders.
std::string json_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += c;
  }
  return o + "\"";
}

InfoReport info(const EngineOptions& opt) {
  InfoReport r;
  r.version = GXSORT_VERSION;
  r.cuda_built = GXSORT_HAVE_CUDA;
  r.mpi_built = GXSORT_HAVE_MPI;
  r.threads = opt.threads;
  r.cpus_allowed = default_threads();
  r.cpus_online = std::max(1u, std::thread::hardware_concurrency());
  r.physical_memory = physical_memory_bytes();
  const MemoryLimit limit = memory_limit(opt.context);
  r.memory_limit = limit.bytes;
  r.memory_limit_source = limit.source;
  r.memory_default = limit.bytes / 2;
  r.memory_budget = host_budget(opt);
  r.memory_given = opt.memory.given;
  for (const DeviceInfo& d : list_devices(opt.device_memory))
    r.gpus.push_back({d.name, d.major, d.minor, d.multiprocessors, d.total_memory, d.free_memory, d.budget});
  return r;
}

}  // namespace gxsort
