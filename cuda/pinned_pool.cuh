// Pinned (page-locked) host memory for staging chunks to and from the GPU.
//
// Copies from pinned memory run at full PCIe speed (55 GB/s on the H200 machine) and
// can overlap kernels; pageable memory runs at about 8.5 GB/s and serializes
// (shared/ANCHORS.md). Pinned memory is taken out of the host's pageable pool, so the
// process counts every pinned byte it holds: the caller charges pinned_bytes_in_use()
// against the host --memory budget.
//
// A buffer is anonymous pages touched on 16 threads, then pinned by cudaHostRegister
// (portable, mapped): cudaHostAlloc zeroes its pages on one thread, 2.2 s for 4 GiB
// against 0.2 s this way on the 4x H200 host (tools/bench/pinned_alloc). Buffers are
// handed out as the project's HostBuffer, whose release function unregisters and unmaps
// them. HostBuffer's release hook carries no context, so the byte count lives in a
// process-wide registry (pointer -> size) guarded by a mutex. There is no reuse cache:
// the chunk scheduler allocates its slots once per run, and the pinning is paid once.
//
// Plain C++ header: host code may include it.
#pragma once
#include <cstddef>

#include "backend/backend.hpp"

namespace gxsort::cuda {

// `bytes` of pinned host memory (portable: usable with every device). A 0-byte request
// gives an empty HostBuffer. Throws Error(io) when the host cannot pin that much.
HostBuffer allocate_pinned(size_t bytes);

size_t pinned_bytes_in_use();  // bytes held by live pinned HostBuffers of this process
size_t pinned_bytes_peak();    // the most pinned_bytes_in_use() has been

}  // namespace gxsort::cuda
