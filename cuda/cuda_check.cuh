// Every CUDA call and launch is checked; failures become gxsort::Error (exit code 4)
// naming the call and the CUDA error. Debug builds also synchronize after launches.
#pragma once
#include <cuda_runtime.h>
#include <string>
#include "gxsort/error.hpp"

namespace gxsort::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw Error(ExitCode::device, std::string("CUDA error in ") + what + " (" + file + ":" +
                                    std::to_string(line) + "): " + cudaGetErrorName(e) + ": " +
                                    cudaGetErrorString(e));
}

}  // namespace gxsort::cuda

#define GXSORT_CUDA_CHECK(call)                                                  \
  do {                                                                           \
    cudaError_t gxsort_e_ = (call);                                              \
    if (gxsort_e_ != cudaSuccess) ::gxsort::cuda::throw_cuda(gxsort_e_, #call, __FILE__, __LINE__); \
  } while (0)

#ifdef NDEBUG
#define GXSORT_CUDA_CHECK_LAUNCH(name) GXSORT_CUDA_CHECK(cudaGetLastError())
#else
#define GXSORT_CUDA_CHECK_LAUNCH(name)         \
  do {                                         \
    GXSORT_CUDA_CHECK(cudaGetLastError());     \
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
#endif
