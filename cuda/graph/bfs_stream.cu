// NeighborStream (bfs_stream.cuh): partitions of the neighbor array streamed through
// pinned staging slots and the chunk scheduler.
#include <algorithm>
#include <cstring>

#include "cuda_check.cuh"
#include "graph/bfs_stream.cuh"
#include "io/file.hpp"
#include "pinned_pool.cuh"
#include "pipeline/chunk_scheduler.hpp"

namespace gxsort::graph {

NeighborStream::NeighborStream(const CsrGraph& g, cuda::DeviceMemory& mem, uint64_t part_edges, unsigned copy_threads)
    : g_(g), device_(mem.device()), copy_threads_(copy_threads), part_edges_(std::max<uint64_t>(part_edges, 1)), parts_((g.m + part_edges_ - 1) / part_edges_) {
  v_first_.resize(parts_);
  v_end_.resize(parts_);
  for (uint64_t p = 0; p < parts_; ++p) {
    const uint64_t e0 = p * part_edges_, e1 = std::min(g.m, e0 + part_edges_);
    // first vertex whose list holds edge e0; end: the first vertex whose list starts at or after e1
    v_first_[p] = uint64_t(std::upper_bound(g.offsets.begin(), g.offsets.end(), e0) - g.offsets.begin()) - 1;
    v_end_[p] = std::min<uint64_t>(g.n, uint64_t(std::lower_bound(g.offsets.begin(), g.offsets.end(), e1) - g.offsets.begin()));
  }
  // Allocated in the order plan_bfs_device counts them.
  flags_ = mem.buffer<unsigned char>(std::max<uint64_t>(parts_, 1), "BFS partition flags");
  for (unsigned s = 0; s < kBfsStreamSlots; ++s) {
    dev_.push_back(mem.buffer<uint32_t>(part_edges_, "BFS neighbor partition"));
    pinned_.push_back(cuda::allocate_pinned(4 * part_edges_));
    cudaStream_t st;
    GXSORT_CUDA_CHECK(cudaStreamCreate(&st));  // blocking: ordered after default-stream work
    streams_.push_back(st);
    cudaEvent_t ev;
    GXSORT_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    copied_.push_back(ev);
  }
}

NeighborStream::~NeighborStream() {
  for (cudaStream_t s : streams_) { cudaStreamSynchronize(s); cudaStreamDestroy(s); }
  for (cudaEvent_t e : copied_) cudaEventDestroy(e);
}

void NeighborStream::run(const std::vector<uint64_t>& parts, const Launch& launch) {
  if (parts.empty()) return;
  const size_t slot_bytes = size_t(4 * part_edges_);
  std::vector<unsigned char*> slots;
  for (auto& b : pinned_) slots.push_back(b.data());
  auto edges_of = [&](size_t index, uint64_t& e0, uint64_t& e1) {
    e0 = parts[index] * part_edges_;
    e1 = std::min(g_.m, e0 + part_edges_);
  };
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) {
    uint64_t e0, e1;
    edges_of(c.index, e0, e1);
    // Pageable to pinned on several threads: one thread's memcpy runs well below the
    // 55 GB/s of a pinned copy to the device (shared/ANCHORS.md).
    io::parallel_copy(c.data, g_.ids32.data() + e0, size_t(4 * (e1 - e0)), copy_threads_);
  };
  st.compute = [&](pipeline::Chunk& c) {
    GXSORT_CUDA_CHECK(cudaSetDevice(device_));  // a scheduler thread: make the device current
    uint64_t e0, e1;
    edges_of(c.index, e0, e1);
    uint32_t* d = dev_[c.slot].data();
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(d, c.data, size_t(4 * (e1 - e0)), cudaMemcpyHostToDevice, streams_[c.slot]));
    GXSORT_CUDA_CHECK(cudaEventRecord(copied_[c.slot], streams_[c.slot]));
    launch(kernels::EdgeWindow{d, e0, e1}, parts[c.index], streams_[c.slot]);
  };
  // The staging slot goes back to the reader once its copy is done; the device buffer's
  // next copy is queued behind this kernel on the same stream.
  st.write = [&](pipeline::Chunk& c) { GXSORT_CUDA_CHECK(cudaEventSynchronize(copied_[c.slot])); };
  pipeline::Config cfg;
  cfg.total_bytes = uint64_t(parts.size()) * slot_bytes;
  cfg.chunk_bytes = slot_bytes;
  cfg.phase = "bfs partitions";
  pipeline::run_chunks(cfg, slots, st, nullptr);
  for (cudaStream_t s : streams_) GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  for (uint64_t p : parts) bytes_copied += 4 * (std::min(g_.m, (p + 1) * part_edges_) - p * part_edges_);
  partitions_copied += parts.size();
}

}  // namespace gxsort::graph
