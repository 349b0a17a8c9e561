// The GPU BFS's device memory plan: which buffers live on the device, whether the
// neighbor array fits beside them, and if not how large its streamed partitions are.
// Plain host arithmetic, so the CPU suite tests it; cuda/graph/bfs_cuda.cu allocates
// exactly these buffers, in this order, from one DeviceMemory arena.
#include <algorithm>

#include "graph/graph.hpp"

namespace gxsort::graph {
namespace {

// DeviceMemory hands out blocks rounded up to 256 bytes (DeviceMemory::kAlignment; the
// CUDA side static_asserts that the two agree), and serves 0 bytes as one block.
constexpr uint64_t kAlign = 256;
uint64_t block(uint64_t bytes) { return (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign; }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Bytes of the partition flags (one byte per partition) plus the slot buffers.
uint64_t stream_bytes(uint64_t m, uint64_t part_edges) {
  return block(ceil_div(m, part_edges)) + kBfsStreamSlots * block(4 * part_edges);
}

}  // namespace

BfsDevicePlan plan_bfs_device(uint64_t n, uint64_t m, uint64_t budget, uint64_t force_partition_edges) {
  BfsDevicePlan p;
  const uint64_t nq = std::max<uint64_t>(n, 1);
  // offsets, levels, parents, two queues, counters (2 u64), the single-block state (32 B)
  p.resident_bytes = block(8 * (n + 1)) + 4 * block(4 * nq) + block(16) + block(32);
  p.in_memory_bytes = p.resident_bytes + block(4 * std::max<uint64_t>(m, 1));
  const uint64_t min_part = std::max<uint64_t>(1, std::min<uint64_t>(m, kBfsMinPartitionEdges));
  p.min_bytes = std::min(p.in_memory_bytes, p.resident_bytes + stream_bytes(std::max<uint64_t>(m, 1), min_part));
  if (force_partition_edges == 0 && p.in_memory_bytes <= budget) { p.need_bytes = p.in_memory_bytes; return p; }
  p.streamed = true;
  // Read in place over the bus (a search touches each edge at most once, and bottom-up
  // levels few of them) rather than copying every partition a level needs: the
  // partitions stay planned as the fallback, so the budget covers both.
  p.host_mapped = force_partition_edges == 0;
  // The largest partition (a multiple of 64 edges, so slot buffers are whole blocks) whose
  // flags and slot buffers fit in what the resident buffers leave.
  const uint64_t left = budget > p.resident_bytes ? budget - p.resident_bytes : 0;
  uint64_t part = std::max<uint64_t>(min_part, left / (4 * kBfsStreamSlots) / 64 * 64);
  while (part > min_part && stream_bytes(m, part) > left) {
    const uint64_t over = ceil_div(stream_bytes(m, part) - left, 4 * kBfsStreamSlots);
    part = std::max(min_part, part - std::min(part, ceil_div(over, 64) * 64));
  }
  if (force_partition_edges) part = std::min(part, force_partition_edges);
  part = std::max<uint64_t>(1, std::min<uint64_t>(part, m));
  p.partition_edges = part;
  p.partitions = ceil_div(m, part);
  p.need_bytes = p.resident_bytes + stream_bytes(m, part);
  return p;
}

std::string bfs_budget_message(const BfsDevicePlan& plan, uint64_t budget) {
  auto mib = [](uint64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MiB"; };
  return "bfs: " + option_ref("device-memory") + " of " + std::to_string(budget) + " bytes is too small for this graph: its offsets, levels, "
         "parents and frontier queues need " + std::to_string(plan.resident_bytes) + " bytes on the device before any "
         "neighbors are streamed; give at least " + option_ref("device-memory", std::to_string(plan.min_bytes)) + " (" +
         mib(plan.min_bytes) + "), or " + std::to_string(plan.in_memory_bytes) + " to hold the whole graph";
}

}  // namespace gxsort::graph
