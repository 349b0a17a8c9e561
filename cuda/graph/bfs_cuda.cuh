// The GPU BFS (bfs_cuda.cu), run by CudaBackend::bfs in the backend's device memory.
#pragma once
#include <cstdint>
#include <vector>

#include "device_memory.cuh"
#include "graph/graph.hpp"

namespace gxsort::graph {

// One search of g per source on one upload of the graph into `mem` (on mem.device()),
// laid out as plan_bfs_device says for mem's budget; returns one BfsRun each, with levels
// and parents for a single source, summaries only for several. Needs n < 2^32 and every
// source < n (else Error(usage)); a budget below the plan's minimum is Error(usage) too.
// Bottom-up steps are used only when g.symmetric. `force_partition_edges` > 0 streams
// the neighbors in partitions of that many edges even when they fit (tests).
std::vector<BfsRun> bfs_on_device(cuda::DeviceMemory& mem, const CsrGraph& g, const std::vector<uint64_t>& sources,
                                  uint64_t force_partition_edges = 0);
// The same, laid out as `plan` says (make_plan of bfs: plan_bfs_device of mem's budget);
// a streamed graph's pieces are copied to pinned memory on `copy_threads` threads.
// `context`: the switch points' overrides and the profile (Context::tuning).
std::vector<BfsRun> bfs_on_device(cuda::DeviceMemory& mem, const CsrGraph& g, const std::vector<uint64_t>& sources,
                                  const BfsDevicePlan& plan, unsigned copy_threads = 1,
                                  const Context& context = Context());

}  // namespace gxsort::graph
