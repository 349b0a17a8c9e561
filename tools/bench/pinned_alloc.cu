// pinned_alloc: what pinned host memory costs to get and to give back, by way (issue 19:
// every out-of-core process pins its run buffers and merge windows, 1.5-1.9 s a process
// on a 4x H200 host), and whether the copies from it still run at full speed.
//   hostalloc   cudaHostAlloc (the driver allocates, zeroes and pins on one thread), cudaFreeHost
//   register    mmap (huge pages advised), every page touched on T threads, cudaHostRegister;
//               cudaHostUnregister and munmap
//   split P     hostalloc in P pieces, P threads at once
// Each way: seconds to get, H2D of the whole buffer (GB/s), seconds to give back.
// usage: pinned_alloc [GiB=4] [threads=16] [rounds=2]
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cuda_check.cuh"
#include "parallel/parallel_for.hpp"

using namespace gxsort;
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// H2D of `bytes` from p into a device buffer, in GB/s.
double h2d_rate(const void* p, size_t bytes, void* dev) {
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const double t0 = now();
  GXSORT_CUDA_CHECK(cudaMemcpy(dev, p, bytes, cudaMemcpyHostToDevice));
  return double(bytes) / (now() - t0) / 1e9;
}

void hostalloc(size_t bytes, void* dev) {
  void* p = nullptr;
  double t0 = now();
  GXSORT_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
  const double get = now() - t0;
  const double rate = h2d_rate(p, bytes, dev);
  t0 = now();
  GXSORT_CUDA_CHECK(cudaFreeHost(p));
  std::printf("hostalloc:        get %.3f s, H2D %.1f GB/s, give back %.3f s\n", get, rate, now() - t0);
}

void registered(size_t bytes, unsigned threads, void* dev) {
  double t0 = now();
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { std::perror("mmap"); std::exit(1); }
  ::madvise(p, bytes, MADV_HUGEPAGE);
  auto* base = static_cast<unsigned char*>(p);
  constexpr size_t kPart = size_t(16) << 20;
  parallel::parallel_for((bytes + kPart - 1) / kPart, threads, [&](size_t k) {
    for (size_t at = k * kPart; at < std::min(bytes, (k + 1) * kPart); at += 4096) base[at] = 0;
  });
  const double touch = now() - t0;
  t0 = now();
  GXSORT_CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
  const double reg = now() - t0;
  const double rate = h2d_rate(p, bytes, dev);
  t0 = now();
  GXSORT_CUDA_CHECK(cudaHostUnregister(p));
  const double unreg = now() - t0;
  t0 = now();
  ::munmap(p, bytes);
  std::printf("register (T=%u):  get %.3f s (touch %.3f, register %.3f), H2D %.1f GB/s, give back %.3f s (unregister %.3f, munmap %.3f)\n",
              threads, touch + reg, touch, reg, rate, unreg + now() - t0, unreg, now() - t0);
}

void split(size_t bytes, unsigned pieces, void* dev) {
  std::vector<void*> p(pieces, nullptr);
  const size_t each = bytes / pieces;
  double t0 = now();
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < pieces; ++i)
    ts.emplace_back([&, i] { GXSORT_CUDA_CHECK(cudaHostAlloc(&p[i], each, cudaHostAllocPortable)); });
  for (auto& t : ts) t.join();
  const double get = now() - t0;
  const double rate = h2d_rate(p[0], each, dev);
  t0 = now();
  for (void* q : p) GXSORT_CUDA_CHECK(cudaFreeHost(q));
  std::printf("split (P=%u):      get %.3f s, H2D of a piece %.1f GB/s, give back %.3f s\n", pieces, get, rate, now() - t0);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t bytes = size_t(argc > 1 ? std::atof(argv[1]) * 1073741824.0 : 4.0 * 1073741824.0);
  const unsigned threads = argc > 2 ? unsigned(std::atoi(argv[2])) : 16;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 2;
  double t0 = now();
  GXSORT_CUDA_CHECK(cudaFree(nullptr));  // the context first: its start is not the allocation's
  std::printf("pinned_alloc: %.2f GiB, %u threads; context %.3f s\n", double(bytes) / 1073741824.0, threads, now() - t0);
  void* dev = nullptr;
  GXSORT_CUDA_CHECK(cudaMalloc(&dev, bytes));
  for (int r = 0; r < rounds; ++r) {
    hostalloc(bytes, dev);
    registered(bytes, threads, dev);
    split(bytes, 4, dev);
  }
  cudaFree(dev);
  return 0;
}
