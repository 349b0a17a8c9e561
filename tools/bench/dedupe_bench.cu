// dedupe_bench: the PBBS removeDuplicates case on the GPU. 10^8 random u32 keys in
// [0, 10^8), already in device memory; sorted distinct keys out, in device memory.
//   cub       cub::DeviceRadixSort::SortKeys (32 bits) + cub::DeviceSelect::Unique: the reference
//   sort+uniq ours: cuda/sort_unique (the key bit width from a max reduce, a radix sort of
//             bits [L, B) only, the low L bits resolved by a one-pass unique of bit masks)
//   bitmap    ours: cuda/bitmap_dedupe (atomicOr with the key range kept, tile popcount +
//             scan over that range only, coalesced write that also clears the words)
// Also timed, for the breakdown: CUB's radix sort alone over 32 bits and over [L, B), and
// our low-bit unique alone (on the keys sorted over [L, B)).
// Times are the median of several runs (CUDA events); ratio = time / cub's time in this run.
//   usage: dedupe_bench [N] [RANGE] [REPS]
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "bitmap_dedupe.cuh"
#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "sort_unique.cuh"


namespace gc = gxsort::cuda;
using gc::BitmapPolicy;
using gc::DeviceMemory;
using gc::bitmap_scan_bytes;
using gc::bitmap_unique_device;

namespace {

__global__ void gen_kernel(uint32_t* keys, size_t n, uint64_t range, uint64_t seed) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ULL + seed;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  keys[i] = uint32_t(z % range);
}

double time_ms(cudaStream_t s, int reps, const std::function<void()>& fn) {
  cudaEvent_t a, b;
  GXSORT_CUDA_CHECK(cudaEventCreate(&a));
  GXSORT_CUDA_CHECK(cudaEventCreate(&b));
  fn();  // warm up
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    GXSORT_CUDA_CHECK(cudaEventRecord(a, s));
    fn();
    GXSORT_CUDA_CHECK(cudaEventRecord(b, s));
    GXSORT_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    GXSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000000;
    const uint64_t range = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000000;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 7;
    cudaDeviceProp prop{};
    GXSORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    size_t free_b = 0, total_b = 0;
    GXSORT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    DeviceMemory mem(0, std::min<size_t>(free_b * 8 / 10, size_t(16) << 30));
    cudaStream_t s;
    GXSORT_CUDA_CHECK(cudaStreamCreate(&s));

    auto keys = mem.buffer<uint32_t>(n, "keys");
    auto sorted = mem.buffer<uint32_t>(n, "sorted keys");
    auto out_cub = mem.buffer<uint32_t>(n, "cub output");
    auto out_sort = mem.buffer<uint32_t>(n, "sort+unique output");
    auto out_bm = mem.buffer<uint32_t>(n, "bitmap output");
    auto counts = mem.buffer<uint32_t>(4, "counts");
    auto bits = mem.buffer<uint32_t>(BitmapPolicy::kWords, "bitmap");
    auto work = mem.allocate(bitmap_scan_bytes(), "bitmap scan");
    auto su_work = mem.allocate(gc::sort_unique_work_bytes(n), "sort+unique work");
    gc::bitmap_clear(bits.data(), s);  // bitmap_unique_device leaves it clear again
    gen_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(keys.data(), n, range, 42);
    GXSORT_CUDA_CHECK_LAUNCH("gen");

    // CUB temp storage: the largest any of the calls needs.
    size_t t_sort = 0, t_sel = 0, t_sort32 = 0, t_sel32 = 0;
    GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, t_sort, keys.data(), sorted.data(), n));
    GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, t_sel, sorted.data(), out_cub.data(), counts.data(), n));
    GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, t_sort32, keys.data(), sorted.data(), int(n)));
    GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, t_sel32, sorted.data(), out_cub.data(), counts.data(), int(n)));
    const size_t t_bytes = std::max({t_sort, t_sel, t_sort32, t_sel32, size_t(1)});
    auto temp = mem.allocate(t_bytes, "cub temp");

    auto cub_run = [&] {
      size_t tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), tb, keys.data(), sorted.data(), n, 0, 32, s));
      tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(temp.get(), tb, sorted.data(), out_cub.data(), counts.data(), n, s));
    };
    // The reference again with 32-bit item counts (CUB's offset type follows num_items).
    auto cub_run32 = [&] {
      size_t tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), tb, keys.data(), sorted.data(), int(n), 0, 32, s));
      tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(temp.get(), tb, sorted.data(), out_cub.data(), counts.data(), int(n), s));
    };
    size_t su_count = 0;
    auto ours_sort = [&] { su_count = gc::sort_unique_u32(keys.data(), n, sorted.data(), out_sort.data(), su_work.get(), s); };
    // The breakdown: CUB's radix sort alone, all 32 bits and the bits sort_unique sorts.
    const int width = range > 1 ? 64 - __builtin_clzll(range - 1) : 0;
    const int low = gc::sort_unique_low_bits(width);
    auto cub_sort32 = [&] {
      size_t tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), tb, keys.data(), sorted.data(), n, 0, 32, s));
    };
    auto cub_sort_range = [&] {
      size_t tb = t_bytes;
      if (width > low)
        GXSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), tb, keys.data(), sorted.data(), n, low, width, s));
    };
    size_t bm_count = 0;
    auto ours_bitmap = [&] {
      bm_count = bitmap_unique_device(keys.data(), n, bits.data(), work.get(), out_bm.data(), gxsort::KeyType::u32, false, s);
    };

    const double ms_cub = time_ms(s, reps, cub_run);
    const double ms_sort = time_ms(s, reps, ours_sort);
    const double ms_bm = time_ms(s, reps, ours_bitmap);
    const double ms_s32 = time_ms(s, reps, cub_sort32);
    // cub_sort32 left the keys sorted in `sorted`: CUB's unique alone.
    auto cub_unique = [&] {
      size_t tb = t_bytes;
      GXSORT_CUDA_CHECK(cub::DeviceSelect::Unique(temp.get(), tb, sorted.data(), out_cub.data(), counts.data(), n, s));
    };
    const double ms_cunique = time_ms(s, reps, cub_unique);
    const double ms_cub32 = time_ms(s, reps, cub_run32);
    const double ms_srange = time_ms(s, reps, cub_sort_range);
    // cub_sort_range left the keys sorted over [L, B) in `sorted`.
    size_t lu_count = 0;
    auto low_unique = [&] { lu_count = gc::low_bit_unique_u32(sorted.data(), n, low, out_sort.data(), su_work.get(), s); };
    const double ms_lunique = time_ms(s, reps, low_unique);

    // The three outputs must agree.
    uint32_t c[2];
    GXSORT_CUDA_CHECK(cudaMemcpy(c, counts.data(), 8, cudaMemcpyDeviceToHost));
    bool ok = size_t(c[0]) == su_count && size_t(c[0]) == bm_count && lu_count == su_count;
    if (ok) {
      std::vector<uint32_t> a(c[0]), b(c[0]), d(c[0]);
      GXSORT_CUDA_CHECK(cudaMemcpy(a.data(), out_cub.data(), size_t(c[0]) * 4, cudaMemcpyDeviceToHost));
      GXSORT_CUDA_CHECK(cudaMemcpy(b.data(), out_sort.data(), size_t(c[0]) * 4, cudaMemcpyDeviceToHost));
      GXSORT_CUDA_CHECK(cudaMemcpy(d.data(), out_bm.data(), size_t(c[0]) * 4, cudaMemcpyDeviceToHost));
      ok = a == b && a == d && std::is_sorted(a.begin(), a.end());
    }
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::printf("dedupe_bench: %zu random u32 in [0, %llu), device-resident; %s, %s; median of %d\n", n,
                (unsigned long long)range, prop.name, date, reps);
    std::printf("distinct keys: %u (cub) %zu (sort+unique) %zu (bitmap): %s\n", c[0], su_count, bm_count,
                ok ? "outputs identical" : "OUTPUTS DIFFER");
    std::printf("| method | ms | ratio vs cub |\n|---|---|---|\n");
    std::printf("| cub::DeviceRadixSort + cub::DeviceSelect::Unique | %.3f | 1.00 |\n", ms_cub);
    std::printf("| ours: radix sort of bits [%d, %d) + low-bit unique | %.3f | %.2f |\n", low, width, ms_sort, ms_sort / ms_cub);
    std::printf("| ours: bitmap dedupe | %.3f | %.2f |\n", ms_bm, ms_bm / ms_cub);
    std::printf("| published: thrust sort + unique, Titan Xp (PBBS) | 55 | %.1f |\n", 55.0 / ms_cub);
    std::printf("| (breakdown) cub radix sort alone, 32 bits | %.3f | %.2f |\n", ms_s32, ms_s32 / ms_cub);
    std::printf("| (reference, int item count) cub sort + unique | %.3f | %.2f |\n", ms_cub32, ms_cub32 / ms_cub);
    std::printf("| (breakdown) cub radix sort alone, bits [%d, %d) | %.3f | %.2f |\n", low, width, ms_srange, ms_srange / ms_cub);
    std::printf("| (breakdown) cub unique alone | %.3f | %.2f |\n", ms_cunique, ms_cunique / ms_cub);
    std::printf("| (breakdown) our low-bit unique alone (%d low bits) | %.3f | %.2f |\n", low, ms_lunique, ms_lunique / ms_cub);
    cudaStreamDestroy(s);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dedupe_bench: %s\n", e.what());
    return 4;
  }
}
