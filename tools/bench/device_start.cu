// device_start: what a process pays to start a GPU and reserve its memory (issue 20: the
// in-memory sort's "open and start the device" took 0.55-0.70 s on a 2x H200 host against
// 0.3-0.4 s on a one-GPU host). Prints, in order, the seconds of: cuInit and the device
// count, the primary context (cudaFree(nullptr)), then for each size cudaMalloc of that many
// GiB, a memset of its first 64 MiB, and cudaFree.
// usage: device_start [device=0] [GiB...=1 16 64 <80% of total>]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv) {
  const int device = argc > 1 ? std::atoi(argv[1]) : 0;
  double t = now();
  int count = 0;
  GXSORT_CUDA_CHECK(cudaGetDeviceCount(&count));
  std::printf("devices %d: init and count %.3f s\n", count, now() - t);
  t = now();
  GXSORT_CUDA_CHECK(cudaSetDevice(device));
  GXSORT_CUDA_CHECK(cudaFree(nullptr));
  std::printf("primary context of device %d: %.3f s\n", device, now() - t);
  size_t free_b = 0, total_b = 0;
  GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::vector<double> gib;
  for (int i = 2; i < argc; ++i) gib.push_back(std::atof(argv[i]));
  if (gib.empty()) gib = {1, 16, 64, 0.8 * double(total_b) / double(1ull << 30)};
  for (double g : gib) {
    const size_t bytes = size_t(g * double(1ull << 30));
    void* p = nullptr;
    t = now();
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();
      std::printf("%.1f GiB: cudaMalloc failed\n", g);
      continue;
    }
    const double alloc = now() - t;
    t = now();
    GXSORT_CUDA_CHECK(cudaMemset(p, 0, std::min(bytes, size_t(64) << 20)));
    GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const double first = now() - t;
    t = now();
    GXSORT_CUDA_CHECK(cudaFree(p));
    std::printf("%.1f GiB: cudaMalloc %.3f s, first 64 MiB written %.3f s, cudaFree %.3f s\n", g, alloc, first, now() - t);
  }
  return 0;
}
