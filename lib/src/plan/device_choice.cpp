// choose_backend: the one place --device is decided (plan/device_choice.hpp).
#include "plan/device_choice.hpp"

#include "gxsort/error.hpp"

namespace gxsort {
namespace {

// Whether the CPU backend would sort all of job's input in one piece in memory.
bool cpu_sorts_in_memory(const PlanRequest& job, const MachineFacts& m) {
  PlanInput in = job.sort;
  in.sort_bytes_per_record = m.cpu_sort_bytes_per_record;
  in.max_chunk_records = 0;  // the CPU backend's limits (engine.cpp: add_backend_limits)
  in.partition_preferred = true;
  return make_plan(in).mode == PlanMode::in_memory;
}

// The wide-record rule for a command that sorts a regular file in memory.
bool wide_records_go_to_cpu(const PlanRequest& job, const MachineFacts& m) {
  if (job.stream || job.sort.record_size <= kCpuWiderThanBytes || m.threads < kCpuFromThreads) return false;
  if (job.command == CommandKind::sort) return cpu_sorts_in_memory(job, m);
  if (job.command != CommandKind::dedupe || job.dedupe.assume_sorted) return false;  // dedupe --assume-sorted sorts nothing
  try {
    return cpu_sorts_in_memory(job, m);
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage) throw;
    return false;  // dedupe's own plan says what its budget allows (plan_dedupe)
  }
}

}  // namespace

DeviceChoice choose_backend(const PlanRequest& job, const MachineFacts& m) {
  if (job.device != Device::automatic) return {job.device, DeviceReason::asked};
  if (job.distributed) return {Device::automatic, DeviceReason::rank_of_distributed};
  // The rules before the GPU's presence: `plan` says why the CPU sorts on any machine.
  if (wide_records_go_to_cpu(job, m)) return {Device::cpu, DeviceReason::wide_records};
  if (job.command == CommandKind::bfs && job.graph_known && job.vertices > m.max_device_vertices)
    return {Device::cpu, DeviceReason::graph_too_large};
  if (!m.gpu) return {Device::cpu, DeviceReason::no_gpu};
  return {Device::automatic, DeviceReason::asked};
}

}  // namespace gxsort
