// CudaBackend: `gxsort bfs` on the device, in the backend's arena.
#include <cuda_runtime.h>

#include "cuda_backend.cuh"
#include "graph/bfs_cuda.cuh"

namespace gxsort::cuda {

uint64_t CudaBackend::max_bfs_vertices() const { return UINT32_MAX; }

uint64_t CudaBackend::device_budget() const { return mem_->budget(); }

std::vector<graph::BfsRun> CudaBackend::bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources,
                                            const graph::BfsDevicePlan& plan) {
  std::lock_guard<std::mutex> lk(sort_mu_);  // the search may use the whole budget
  set_device();
  try {
    return graph::bfs_on_device(*mem_, g, sources, plan, host_threads(), context());
  } catch (...) {
    // The search queues work on the default stream and the neighbor streams: none of it
    // may outlive the lock, after which others may take the freed buffers.
    cudaDeviceSynchronize();
    throw;
  }
}

}  // namespace gxsort::cuda
