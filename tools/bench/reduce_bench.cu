// reduce_bench: 2^28 u64 keys (2 GiB) in device memory, reduced by the flat, nested
// and cub algorithms of cuda/reduce and by plain cub::DeviceReduce::Sum (64-bit,
// wrapping: the peer figure). Every variant is timed as one call that leaves its
// result on the host (cudaEvents around it; median of 15 after 3 warm-ups), and the
// results are checked against each other first. Prints ms, TB/s read and the ratio
// of each variant's throughput to cub::DeviceReduce::Sum's (goal: flat >= 0.95).
// f64 rows show the cost of the fixed float-sum tree.
//
//   build*/bench/reduce_bench [log2_n]
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "reduce/reduce_kernels.cuh"

// No "using namespace gxsort": CUB's generated stubs name ::cuda, which gxsort::cuda would shadow.
using gxsort::Format;
using gxsort::KeyType;
using gxsort::ReduceOp;
using gxsort::ReducePartial;
using gxsort::ReduceValue;
using gxsort::ReduceAlgo;
namespace gcuda = gxsort::cuda;

namespace {

// The values of `op` on one line, to eyeball (gxsort reduce prints them exactly).
std::string values_text(const Format& f, ReduceOp op, const ReducePartial& p) {
  std::string line;
  for (const ReduceValue& v : gxsort::reduce_values(f, op, p)) {
    char b[64];
    if (v.kind == ReduceValue::Kind::real) std::snprintf(b, sizeof b, " %.*g", v.digits, v.real);
    else if (v.kind == ReduceValue::Kind::integer) std::snprintf(b, sizeof b, " %s%.20Lg", v.negative ? "-" : "", (long double)v.magnitude);
    else std::snprintf(b, sizeof b, " none");
    line += b;
  }
  return line;
}

__global__ void fill_kernel(unsigned long long* d, size_t n, bool as_f64) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = i + 0x9e3779b97f4a7c15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    if (as_f64) {
      const double v = double(z >> 11) * 0x1p-53 - 0.5;  // [-0.5, 0.5)
      z = (unsigned long long)__double_as_longlong(v);
    }
    d[i] = z;
  }
}

float median_ms(const std::function<void()>& call) {
  cudaEvent_t a, b;
  GXSORT_CUDA_CHECK(cudaEventCreate(&a));
  GXSORT_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) {
    GXSORT_CUDA_CHECK(cudaEventRecord(a));
    call();
    GXSORT_CUDA_CHECK(cudaEventRecord(b));
    GXSORT_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    GXSORT_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
    const size_t n = size_t(1) << lg;
    cudaDeviceProp prop;
    GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("reduce_bench: %s, %d SMs, n = 2^%d keys (%.2f GiB)\n", prop.name, prop.multiProcessorCount, lg,
                n * 8.0 / (1 << 30));

    unsigned long long* d_keys = nullptr;
    GXSORT_CUDA_CHECK(cudaMalloc(&d_keys, n * 8));
    unsigned long long* d_sum = nullptr;
    GXSORT_CUDA_CHECK(cudaMalloc(&d_sum, 8));
    size_t temp_bytes = 0;
    for (ReduceAlgo a : {ReduceAlgo::flat, ReduceAlgo::nested, ReduceAlgo::cub})
      for (KeyType t : {KeyType::u64, KeyType::f64})
        temp_bytes = std::max(temp_bytes, gcuda::reduce_gpu_temp_bytes(a, Format::typed(t), n));
    size_t cub_bytes = 0;
    GXSORT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, d_keys, d_sum, n));
    temp_bytes = std::max(temp_bytes, cub_bytes);
    void* d_temp = nullptr;
    GXSORT_CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    const auto* bytes = reinterpret_cast<const unsigned char*>(d_keys);

    struct Row { std::string name; float ms; };
    std::vector<Row> rows;
    bool ok = true;
    for (KeyType t : {KeyType::u64, KeyType::f64}) {
      const Format f = Format::typed(t);
      const char* tn = t == KeyType::u64 ? "u64" : "f64";
      fill_kernel<<<prop.multiProcessorCount * 8, 256>>>(d_keys, n, t == KeyType::f64);
      GXSORT_CUDA_CHECK(cudaGetLastError());
      GXSORT_CUDA_CHECK(cudaDeviceSynchronize());

      ReducePartial ref;
      for (ReduceAlgo a : {ReduceAlgo::flat, ReduceAlgo::nested, ReduceAlgo::cub}) {
        const ReducePartial p = gcuda::reduce_chunk_gpu(a, f, bytes, n, 0, d_temp, temp_bytes, 0);
        if (a == ReduceAlgo::flat) ref = p;
        else if (!(p == ref)) { std::printf("MISMATCH: %s %s differs from flat\n", tn, gcuda::reduce_algo_name(a)); ok = false; }
        std::printf("  %s %-6s: sum%s | minmax%s\n", tn, gcuda::reduce_algo_name(a),
                    values_text(f, ReduceOp::sum, p).c_str(), values_text(f, ReduceOp::minmax, p).c_str());
        rows.push_back({std::string(tn) + " " + gcuda::reduce_algo_name(a) + " (sum+min+max)",
                        median_ms([&] { gcuda::reduce_chunk_gpu(a, f, bytes, n, 0, d_temp, temp_bytes, 0); })});
      }
      if (t == KeyType::u64) {
        unsigned long long s = 0;
        auto cub_sum = [&] {
          size_t tb = temp_bytes;
          GXSORT_CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, tb, d_keys, d_sum, n));
          GXSORT_CUDA_CHECK(cudaMemcpy(&s, d_sum, 8, cudaMemcpyDeviceToHost));
        };
        cub_sum();
        if (s != (unsigned long long)ref.isum) { std::printf("MISMATCH: cub::DeviceReduce::Sum low 64 bits\n"); ok = false; }
        rows.push_back({"u64 cub::DeviceReduce::Sum (64-bit)", median_ms(cub_sum)});
      }
    }

    const float cub_ms = rows[3].ms;  // u64 cub::DeviceReduce::Sum
    std::printf("\n%-40s %9s %8s %10s\n", "variant", "ms", "TB/s read", "vs cub Sum");
    for (const Row& r : rows)
      std::printf("%-40s %9.4f %8.3f %9.3fx\n", r.name.c_str(), r.ms, n * 8.0 / (r.ms * 1e-3) / 1e12, cub_ms / r.ms);
    std::printf("flat/cub throughput ratio (u64): %.3f (goal >= 0.95)\n", cub_ms / rows[0].ms);
    cudaFree(d_temp);
    cudaFree(d_sum);
    cudaFree(d_keys);
    std::printf(ok ? "results agree\n" : "RESULTS DISAGREE\n");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reduce_bench: %s\n", e.what());
    return 4;
  }
}
