// Entry points the host library's make_backend() / list_devices() call when gxsort is
// built with CUDA (GXSORT_HAVE_CUDA = 1). Declared in cuda_backend.cuh.
#include <cuda_runtime.h>

#include "cuda_backend.cuh"
#include "cuda_check.cuh"

namespace gxsort {

bool cuda_device_usable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear "no device" / "insufficient driver" so later calls start clean
    return false;
  }
  return n > 0;
}

std::unique_ptr<Backend> make_cuda_backend(unsigned device, const std::string& device_memory) {
  return std::make_unique<cuda::CudaBackend>(device, device_memory);
}

std::vector<DeviceInfo> cuda_list_devices(const std::string& device_memory) {
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
    info.budget = cuda::parse_device_budget(device_memory, info.free_memory, info.total_memory);
    info.multiprocessors = prop.multiProcessorCount;
    info.major = prop.major;
    info.minor = prop.minor;
    out.push_back(info);
  }
  GXSORT_CUDA_CHECK(cudaSetDevice(previous));
  return out;
}

}  // namespace gxsort
