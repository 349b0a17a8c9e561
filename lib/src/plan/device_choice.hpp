// --device made into the backend a command runs on: one rule for every command, made
// once, before its backend is made and its plan made with that backend's limits. Pure:
// the facts of the request (its PlanRequest) and of the machine in, the choice and why out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gxsort/options.hpp"
#include "plan/plan_request.hpp"

namespace gxsort {

// What the choice knows of the machine: cheap facts, none that starts a device.
struct MachineFacts {
  bool gpu = false;                           // a GPU backend is built in (auto tries it as it starts)
  unsigned threads = 1;                       // the command's threads, resolved
  size_t cpu_sort_bytes_per_record = 0;       // the CPU backend's host bytes to sort one record (with its scratch)
  uint64_t max_device_vertices = UINT64_MAX;  // bfs: the largest graph the GPU searches
};

enum class DeviceReason {
  asked,                // --device cpu or cuda, or auto with nothing against the GPU
  no_gpu,               // --device auto without a GPU backend built in
  wide_records,         // --device auto: an in-memory sort of wide records, faster on the CPU
  graph_too_large,      // --device auto: a graph larger than the GPU searches
  rank_of_distributed,  // a rank of --distributed: --device as given (its exchange may use the GPU)
};

struct DeviceChoice {
  // cpu, cuda, or automatic: the GPU where one is usable when the backend starts, else the CPU.
  Device device = Device::automatic;
  DeviceReason reason = DeviceReason::asked;
};

// The wide-record rule (--device auto): the GPU's in-memory sort costs the same at every
// record width (its start, and the copies in and out); the CPU backend sorts (key, index)
// pairs and gathers the records, so it gains as they widen. On an H200 host's 16 threads
// (tools/bench/record_width.sh, 4 GiB, 2026-11-29) GPU / CPU was 0.59 at 32 bytes, 1.08 at
// 64, 1.41 at 100 (gensort): records wider than 64 bytes whose sort the CPU backend holds
// in memory, on 16 threads or more, go there. It applies to a sort of a regular file and
// to dedupe's sort (the same bytes on either backend: only the speed differs).
constexpr size_t kCpuWiderThanBytes = 64;
constexpr unsigned kCpuFromThreads = 16;

// The backend `job` runs on. May throw the usage Error of the CPU's sort plan when the
// wide-record rule must know whether a sort fits in memory and --memory is too small
// for any (the sort's own plan then fails the same way).
DeviceChoice choose_backend(const PlanRequest& job, const MachineFacts& machine);

}  // namespace gxsort
