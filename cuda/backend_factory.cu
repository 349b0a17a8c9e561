// The entry points the host library calls when gxsort is built with CUDA
// (GXSORT_HAVE_CUDA = 1), declared in lib/src/backend/device_entry.hpp.
#include <cuda_runtime.h>

#include "backend/device_entry.hpp"
#include "cuda_backend.cuh"
#include "cuda_check.cuh"
#include "gxsort/timeline.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort {

int cuda_device_count() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear "no device" / "insufficient driver" so later calls start clean
    return 0;
  }
  return n;
}

bool cuda_device_usable() { return cuda_device_count() > 0; }

// Creating the CUDA context takes ~0.4 s on the GPU machine; started on its own thread
// at process start it overlaps the option parsing, file opening and planning that come
// before the first CUDA call of a command, which then finds the context made.
parallel::OwnThread cuda_start_early(unsigned device, const Context& context) {
  return parallel::OwnThread([device, context] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
      cudaGetLastError();
      return;
    }
    // The device this process's backend takes (make_backend): a context on another one
    // would hold that device's memory for nothing (eight ranks of a host on device 0).
    timeline(context, "device counted (the driver started)");
    if (cudaSetDevice(int(device % unsigned(n))) == cudaSuccess) cudaFree(nullptr);  // makes the primary context
    cudaGetLastError();  // failures show again, with context, on the command's own calls
    timeline(context, "device's context made");
  });
}

std::unique_ptr<Backend> make_cuda_backend(unsigned device, const SizeOption& device_memory) {
  return std::make_unique<cuda::CudaBackend>(device, device_memory);
}

std::shared_ptr<void> cuda_keep_current_device() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // no device: nothing to put back
    return nullptr;
  }
  return std::shared_ptr<void>(nullptr, [device](void*) { cudaSetDevice(device); });
}

std::vector<DeviceInfo> cuda_list_devices(const SizeOption& device_memory) {
  std::vector<DeviceInfo> out;
  if (!cuda_device_usable()) return out;
  int n = 0, previous = 0;
  GXSORT_CUDA_CHECK(cudaGetDeviceCount(&n));
  GXSORT_CUDA_CHECK(cudaGetDevice(&previous));  // cudaMemGetInfo needs each device current; put it back after
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop;
    GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    GXSORT_CUDA_CHECK(cudaSetDevice(d));
    DeviceInfo info;
    info.name = prop.name;
    GXSORT_CUDA_CHECK(cudaMemGetInfo(&info.free_memory, &info.total_memory));
    info.budget = cuda::device_budget(device_memory, info.free_memory, info.total_memory);
    info.multiprocessors = prop.multiProcessorCount;
    info.major = prop.major;
    info.minor = prop.minor;
    out.push_back(info);
  }
  GXSORT_CUDA_CHECK(cudaSetDevice(previous));
  return out;
}

}  // namespace gxsort
