// Times the merge kernels on two sorted runs of random keys in device memory (2 x 2^27 by
// default) against thrust::merge (stable, the reference) and cub::DeviceMerge::MergeKeys
// (unstable, for reference), all in one run.
//
//   merge_kernels_bench [--log2n N] [--reps R] [--type u64|u32|pairs]
//
// u64: 8-byte keys; u32: 4-byte keys (the high words of u64 ones); pairs: 16-byte
// key+payload records (KeyIndex: a u64 key, the record's index as payload), compared by key.
// Each type also times the circular policies of its tuning sweep (merge_policy.cuh).
// Each variant: 3 warm-ups, then R timed launches (cudaEvent), interleaved round-robin
// with the other variants so that clock drift hits all alike; the median is reported.
// TB/s counts bytes read and written (2 x 2N x the element size). Every output is compared
// byte for byte with thrust::merge's: the u64 and pairs keys are random 64-bit values (no
// equal keys) and equal u32 keys are equal bytes, so a stable and an unstable merge give the
// same bytes. The stability itself is tested in tests/cuda/test_merge_kernels.cu.
// The last row, "copy", moves the same bytes with two cudaMemcpyAsync (each run to its half
// of the output): the device's own ceiling for a pass that reads and writes them once.
#include <cub/device/device_merge.cuh>
#include "merge/corank.cuh"
#include <cub/device/device_radix_sort.cuh>
#include <thrust/merge.h>
#include <thrust/system/cuda/execution_policy.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>
#include "cuda_check.cuh"
#include "merge/merge.cuh"

namespace gc = gxsort::cuda;

namespace {

__global__ void random_keys_kernel(uint64_t* v, uint64_t n, uint64_t seed) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;  // splitmix64
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    v[i] = x ^ (x >> 31);
  }
}

// KeyIndex runs from sorted keys: the payload is the index in both runs together.
__global__ void pack_pairs_kernel(const uint64_t* keys, uint64_t n, uint64_t first, gc::KeyIndex* out) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = gc::KeyIndex{keys[i], first + i};
}

// u32 runs from sorted u64 keys: their high words stay sorted.
__global__ void high_words_kernel(const uint64_t* keys, uint64_t n, uint32_t* out) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = uint32_t(keys[i] >> 32);
}

struct ByKey {
  __device__ bool operator()(const gc::KeyIndex& x, const gc::KeyIndex& y) const { return x.key < y.key; }
};

__global__ void count_mismatches_kernel(const uint64_t* x, const uint64_t* y, uint64_t n,
                                        unsigned long long* count) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long c = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    c += x[i] != y[i];
  if (c) atomicAdd(count, c);
}

// Random keys, sorted on the device (the bench owns its memory; it may allocate).
void make_sorted_run(uint64_t* d, uint64_t n, uint64_t seed) {
  uint64_t* tmp;
  GXSORT_CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(uint64_t)));
  random_keys_kernel<<<1024, 256>>>(tmp, n, seed);
  GXSORT_CUDA_CHECK_LAUNCH("random_keys_kernel");
  size_t bytes = 0;
  GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, tmp, d, int64_t(n)));
  void* t;
  GXSORT_CUDA_CHECK(cudaMalloc(&t, bytes));
  GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(t, bytes, tmp, d, int64_t(n)));
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  GXSORT_CUDA_CHECK(cudaFree(t));
  GXSORT_CUDA_CHECK(cudaFree(tmp));
}
void make_sorted_run(uint32_t* d, uint64_t n, uint64_t seed) {
  uint64_t* keys;
  GXSORT_CUDA_CHECK(cudaMalloc(&keys, n * sizeof(uint64_t)));
  make_sorted_run(keys, n, seed);
  high_words_kernel<<<1024, 256>>>(keys, n, d);
  GXSORT_CUDA_CHECK_LAUNCH("high_words_kernel");
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  GXSORT_CUDA_CHECK(cudaFree(keys));
}
void make_sorted_run(gc::KeyIndex* d, uint64_t n, uint64_t seed) {
  uint64_t* keys;
  GXSORT_CUDA_CHECK(cudaMalloc(&keys, n * sizeof(uint64_t)));
  make_sorted_run(keys, n, seed);
  pack_pairs_kernel<<<1024, 256>>>(keys, n, (seed - 1) * n, d);
  GXSORT_CUDA_CHECK_LAUNCH("pack_pairs_kernel");
  GXSORT_CUDA_CHECK(cudaDeviceSynchronize());
  GXSORT_CUDA_CHECK(cudaFree(keys));
}

// Hands thrust one preallocated buffer (bump allocation; reset for every call).
struct BumpAllocator {
  using value_type = char;
  char* base;
  size_t size;
  size_t used = 0;
  char* allocate(std::ptrdiff_t bytes) {
    const size_t aligned = (used + 255) / 256 * 256;
    if (aligned + size_t(bytes) > size) throw std::bad_alloc();
    used = aligned + size_t(bytes);
    return base + aligned;
  }
  void deallocate(char*, size_t) {}
};

struct Variant {
  std::string name;
  std::function<void()> launch;
  std::vector<float> ms;
  unsigned long long mismatches = 0;
  bool merges = true;  // false: the copy (the ceiling) and the partitions alone: no output to compare
};

}  // namespace

namespace {

template <class T>
int run(int log2n, int reps, const char* what) {
  const uint64_t n = 1ull << log2n, total = 2 * n;
  const double bytes = 2.0 * double(total) * sizeof(T);

  cudaDeviceProp prop;
  GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("merge_kernels_bench: %s, 2 x 2^%d sorted random, %s (%d SMs), %s\n", what, log2n,
              prop.name, prop.multiProcessorCount, date);

  T *a, *b, *out, *ref;
  unsigned long long* d_count;
  GXSORT_CUDA_CHECK(cudaMalloc(&a, n * sizeof(T)));
  GXSORT_CUDA_CHECK(cudaMalloc(&b, n * sizeof(T)));
  GXSORT_CUDA_CHECK(cudaMalloc(&out, total * sizeof(T)));
  GXSORT_CUDA_CHECK(cudaMalloc(&ref, total * sizeof(T)));
  GXSORT_CUDA_CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  make_sorted_run(a, n, 1);
  make_sorted_run(b, n, 2);

  // Temp: the largest our kernels ask for, and CUB's.
  size_t temp_bytes = 0;
  for (auto k : {gxsort::MergeKernel::basic, gxsort::MergeKernel::tiled, gxsort::MergeKernel::circular})
    temp_bytes = std::max(temp_bytes, gc::merge_temp_bytes<T>(k, n, n));
  auto cub_merge = [&](void* t, size_t& tb, cudaStream_t st) {
    if constexpr (std::is_same_v<T, gc::KeyIndex>)
      return cub::DeviceMerge::MergeKeys(t, tb, a, int64_t(n), b, int64_t(n), out, ByKey{}, st);
    else
      return cub::DeviceMerge::MergeKeys(t, tb, a, int64_t(n), b, int64_t(n), out, {}, st);
  };
  size_t cub_bytes = 0;
  GXSORT_CUDA_CHECK(cub_merge(nullptr, cub_bytes, nullptr));
  temp_bytes = std::max({temp_bytes, cub_bytes, size_t(64) << 20});
  void* temp;
  GXSORT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  cudaStream_t s;
  GXSORT_CUDA_CHECK(cudaStreamCreate(&s));

  gc::merge<T>(gxsort::MergeKernel::thrust, a, n, b, n, ref, nullptr, 0, s);
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));

  auto ours = [&](gxsort::MergeKernel k) {
    return [=] { gc::merge<T>(k, a, n, b, n, out, temp, temp_bytes, s); };
  };
  auto circ = [&](auto policy) {
    using P = decltype(policy);
    return [=] { gc::merge_circular<T, P>(a, n, b, n, out, temp, temp_bytes, s); };
  };
  std::vector<Variant> vs;
  vs.push_back({"basic", ours(gxsort::MergeKernel::basic)});
  vs.push_back({"tiled", ours(gxsort::MergeKernel::tiled)});
  {
    using P = typename gc::DefaultMergePolicy<T>::circular;
    vs.push_back({"circular (default " + std::to_string(P::threads) + "x" +
                      std::to_string(P::items_per_thread) + " s" + std::to_string(P::stages) + ")",
                  ours(gxsort::MergeKernel::circular)});
  }
  {
    using P = typename gc::DefaultMergePolicy<T>::circular_fallback;
    vs.push_back({"circular (fallback " + std::to_string(P::threads) + "x" + std::to_string(P::items_per_thread) + ")",
                  circ(P{})});
  }
  auto policy_name = [](auto policy) {
    using P = decltype(policy);
    return "circular " + std::to_string(P::threads) + "x" + std::to_string(P::items_per_thread) +
           " s" + std::to_string(P::stages);
  };
#define GXSORT_BENCH_TUNE(P) vs.push_back({policy_name(gc::P{}), circ(gc::P{})});
  if constexpr (std::is_same_v<T, uint64_t>) {
    GXSORT_CIRCULAR_TUNE_LIST(GXSORT_BENCH_TUNE)
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    GXSORT_CIRCULAR_TUNE_LIST_U32(GXSORT_BENCH_TUNE)
  } else {
    GXSORT_CIRCULAR_TUNE_LIST_PAIRS(GXSORT_BENCH_TUNE)
  }
  vs.push_back({"thrust::merge", ours(gxsort::MergeKernel::thrust)});
  // thrust::merge without its per-call cudaMalloc/cudaFree: its temp comes from `temp`.
  vs.push_back({"thrust::merge (temp given)", [&] {
                  BumpAllocator alloc{static_cast<char*>(temp), temp_bytes};
                  thrust::merge(thrust::cuda::par_nosync(alloc).on(s), a, a + n, b, b + n, out);
                  GXSORT_CUDA_CHECK(cudaGetLastError());
                }});
  vs.push_back({"cub::DeviceMerge (unstable)", [&] {
                  size_t bytes_cub = temp_bytes;
                  GXSORT_CUDA_CHECK(cub_merge(temp, bytes_cub, s));
                }});
  Variant copy{"copy (the ceiling)", [&] {
                 GXSORT_CUDA_CHECK(cudaMemcpyAsync(out, a, n * sizeof(T), cudaMemcpyDeviceToDevice, s));
                 GXSORT_CUDA_CHECK(cudaMemcpyAsync(out + n, b, n * sizeof(T), cudaMemcpyDeviceToDevice, s));
               }};
  copy.merges = false;
  vs.push_back(copy);
  {  // The default circular policy's partition alone (its first phase): one full search per
     // split point, and the two passes the merge uses.
    using P = typename gc::DefaultMergePolicy<T>::circular;
    const uint64_t count = (total + P::tile - 1) / P::tile + 1;
    auto* splits = static_cast<uint64_t*>(temp);
    Variant one{"co-rank splits, one pass", [=] {
                  gc::co_rank_splits_kernel<T><<<unsigned((count + 255) / 256), 256, 0, s>>>(a, n, b, n, P::tile,
                                                                                            count, splits);
                  GXSORT_CUDA_CHECK_LAUNCH("co_rank_splits_kernel");
                }};
    Variant two{"co-rank splits, two passes", [=] {
                  gc::co_rank_splits_two_pass<T>(a, n, b, n, P::tile, count, gc::kCoarseSplitStride, splits, s);
                }};
    one.merges = two.merges = false;
    vs.push_back(one);
    vs.push_back(two);
  }

  cudaEvent_t e0, e1;
  GXSORT_CUDA_CHECK(cudaEventCreate(&e0));
  GXSORT_CUDA_CHECK(cudaEventCreate(&e1));
  for (auto& v : vs) {
    // Check first (also a warm-up), then two more warm-ups.
    GXSORT_CUDA_CHECK(cudaMemsetAsync(out, 0, total * sizeof(T), s));
    v.launch();
    GXSORT_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned long long), s));
    count_mismatches_kernel<<<1024, 256, 0, s>>>(reinterpret_cast<const uint64_t*>(out),
                                                 reinterpret_cast<const uint64_t*>(ref),
                                                 total * sizeof(T) / sizeof(uint64_t), d_count);
    GXSORT_CUDA_CHECK_LAUNCH("count_mismatches_kernel");
    GXSORT_CUDA_CHECK(cudaMemcpyAsync(&v.mismatches, d_count, sizeof v.mismatches,
                                      cudaMemcpyDeviceToHost, s));
    v.launch();
    v.launch();
    GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  for (int r = 0; r < reps; ++r) {
    for (auto& v : vs) {
      GXSORT_CUDA_CHECK(cudaEventRecord(e0, s));
      v.launch();
      GXSORT_CUDA_CHECK(cudaEventRecord(e1, s));
      GXSORT_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      GXSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      v.ms.push_back(ms);
    }
  }
  auto median = [](std::vector<float> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  float thrust_ms = 0;
  for (auto& v : vs)
    if (v.name == "thrust::merge") thrust_ms = median(v.ms);
  float cub_ms = 0;
  for (auto& v : vs)
    if (v.name == "cub::DeviceMerge (unstable)") cub_ms = median(v.ms);
  std::printf("%-30s %9s %8s %10s %8s %s\n", "kernel", "ms", "TB/s", "vs thrust", "vs cub", "check");
  bool ok = true;
  for (auto& v : vs) {
    const float ms = median(v.ms);
    std::printf("%-30s %9.3f %8.3f %9.3fx %7.3fx %s\n", v.name.c_str(), ms,
                bytes / (ms * 1e-3) / 1e12, thrust_ms / ms, cub_ms / ms,
                !v.merges ? "-" : v.mismatches == 0 ? "ok" : "MISMATCH");
    ok = ok && (!v.merges || v.mismatches == 0);
  }
  std::printf("median of %d runs each; TB/s counts %.2f GB read + written\n", reps, bytes / 1e9);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  int log2n = 27, reps = 15;
  std::string type = "u64";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--log2n") log2n = std::atoi(argv[i + 1]);
    else if (arg == "--reps") reps = std::atoi(argv[i + 1]);
    else if (arg == "--type") type = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--log2n N] [--reps R] [--type u64|u32|pairs]\n", argv[0]);
      return 2;
    }
  }
  if (type == "u64") return run<uint64_t>(log2n, reps, "u64 keys");
  if (type == "u32") return run<uint32_t>(log2n, reps, "u32 keys");
  if (type == "pairs") return run<gc::KeyIndex>(log2n, reps, "16-byte key+payload records");
  std::fprintf(stderr, "merge_kernels_bench: --type is u64, u32 or pairs, not %s\n", type.c_str());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "merge_kernels_bench: %s\n", e.what());
  return 4;
}
