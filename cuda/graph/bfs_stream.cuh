// Streaming the CSR's neighbor array through the device when it does not fit beside the
// resident BFS arrays (--device-memory smaller than the graph).
//
// The neighbors are cut into partitions of `part_edges` consecutive edges (the last may
// be shorter). A partition is a range of edges, not of vertices: a high-degree vertex's
// list may span several partitions, each launch expanding the part it holds, so a
// partition never has to grow past the budget for a hub. On each level the driver asks
// for the partitions it needs (top-down: those holding an edge of a frontier vertex;
// bottom-up: all); they go through the chunk scheduler (lib/src/pipeline): the read
// stage copies a partition from the host CSR into a pinned staging slot (several
// threads), the compute stage queues the slot's host-to-device copy and the level's
// kernel on that slot's stream, and the write stage waits for the copy so the staging
// slot can be refilled. With two slots and a stream each, copying partition i + 1
// overlaps expanding partition i. Device buffers come from the run's DeviceMemory.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "backend/backend.hpp"
#include "device_memory.cuh"
#include "graph/bfs_kernels.cuh"
#include "graph/graph.hpp"

namespace gxsort::graph {

class NeighborStream {
 public:
  using Launch = std::function<void(const kernels::EdgeWindow& w, uint64_t partition, cudaStream_t stream)>;

  // copy_threads: the threads that copy a partition into its pinned slot.
  NeighborStream(const CsrGraph& g, cuda::DeviceMemory& mem, uint64_t part_edges, unsigned copy_threads);
  ~NeighborStream();
  NeighborStream(const NeighborStream&) = delete;
  NeighborStream& operator=(const NeighborStream&) = delete;

  uint64_t partitions() const { return parts_; }
  uint64_t part_edges() const { return part_edges_; }
  // The vertices with an edge in partition p lie in [first_vertex(p), end_vertex(p)).
  uint64_t first_vertex(uint64_t p) const { return v_first_[p]; }
  uint64_t end_vertex(uint64_t p) const { return v_end_[p]; }
  // One byte per partition on the device (launch_mark_partitions).
  unsigned char* device_flags() const { return flags_.data(); }

  // Brings the listed partitions (any order) to the device one after another and calls
  // `launch` for each once its edges are there; returns when every launch has finished.
  void run(const std::vector<uint64_t>& parts, const Launch& launch);

  uint64_t bytes_copied = 0;       // since construction
  uint64_t partitions_copied = 0;

 private:
  const CsrGraph& g_;
  int device_;
  unsigned copy_threads_;
  uint64_t part_edges_, parts_;
  std::vector<uint64_t> v_first_, v_end_;
  cuda::device_buffer<unsigned char> flags_;
  std::vector<cuda::device_buffer<uint32_t>> dev_;
  std::vector<HostBuffer> pinned_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> copied_;
};

}  // namespace gxsort::graph
