// The device sort's dispatch: which radix sort passes a format takes, CUB's two-phase radix
// sort over the bits that differ, and the device bytes a sort needs.
#include "sort/sort_dispatch.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <string>

namespace gxsort::cuda {
namespace {

using u32 = uint32_t;
using u64 = uint64_t;

// CUB, two-phase: the size query and the sort share one wrapper so they always agree.
template <class K>
cudaError_t radix_sort(void* temp, size_t& temp_bytes, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<u32>* vals,
                       size_t n, int begin_bit, int end_bit, cudaStream_t s) {
  if (vals)
    return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, *vals, u32(n), begin_bit, end_bit, s);
  return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, u32(n), begin_bit, end_bit, s);
}

// CUB's sort of keys from one buffer into another (its second buffer in `temp`).
template <class K>
cudaError_t radix_sort_into(void* temp, size_t& temp_bytes, const K* in, K* out, size_t n, int begin_bit, int end_bit,
                            cudaStream_t s) {
  return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, u32(n), begin_bit, end_bit, s);
}

template <class K>
size_t radix_temp_bytes(bool pairs, size_t n, int begin_bit, int end_bit) {
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<u32> vals(nullptr, nullptr);
  size_t bytes = 0;
  GXSORT_CUDA_CHECK(radix_sort<K>(nullptr, bytes, keys, pairs ? &vals : nullptr, n, begin_bit, end_bit, nullptr));
  return bytes;
}

size_t radix_temp_bytes(bool wide, bool pairs, size_t n) {
  return wide ? radix_temp_bytes<u64>(pairs, n, 0, 64) : radix_temp_bytes<u32>(pairs, n, 0, 32);
}

// Device bytes of one sort under the allocation order sort_chunk uses (first fit):
//  flat:    keys[2], bits, temp
//  records: records_in, vals[2], bits, then keys[2] + temp while sorting, replaced by
//           records_out for the gather (so the peak is the larger of the two).
size_t device_bytes(const Format& f, size_t n, size_t temp, bool records) {
  auto r = DeviceMemory::round_up;
  const size_t bits = r(2 * sizeof(u64));
  if (!records) return 2 * r(n * f.key_bytes) + bits + r(temp);
  const size_t key_w = any_wide(key_passes(f)) ? 8 : 4;
  return r(n * f.record_size) + 2 * r(n * sizeof(u32)) + bits +
         std::max(2 * r(n * key_w) + r(temp), r(n * f.record_size));
}

// CUB temp storage of the largest pass (full bit range: narrower ranges need no more).
size_t sort_temp_bytes(const Format& f, size_t n, bool records) {
  if (!records) return radix_temp_bytes(f.key_bytes == 8, false, n);
  size_t most = 0;
  bool seen[2] = {false, false};
  for (const KeyPass& p : key_passes(f)) {
    if (seen[p.wide]) continue;
    seen[p.wide] = true;
    most = std::max(most, radix_temp_bytes(p.wide, true, n));
  }
  return most;
}

}  // namespace

// A typed single key is one pass; a byte key, or a composite key's normalized key (a
// byte key of its width: up to 8 bytes one pass, up to 16 two, as one 128-bit key), one
// per 8-byte segment.
std::vector<KeyPass> key_passes(const Format& f) {
  std::vector<KeyPass> passes;
  if (f.key_type != KeyType::bytes) {
    passes.push_back({0, f.key_bytes, f.key_bytes == 8});
    return passes;
  }
  for (size_t s = 0; s < f.key_bytes; s += 8) {
    const size_t len = std::min<size_t>(8, f.key_bytes - s);
    passes.push_back({s, len, len > 4});
  }
  std::reverse(passes.begin(), passes.end());
  return passes;
}

bool any_wide(const std::vector<KeyPass>& passes) {
  for (const KeyPass& p : passes)
    if (p.wide) return true;
  return false;
}

template <class K>
void sort_words(const SortContext& c, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<u32>* vals, size_t n, BitRange r,
                const char* what) {
  size_t temp_bytes = 0;
  GXSORT_CUDA_CHECK(radix_sort<K>(nullptr, temp_bytes, keys, vals, n, r.begin, r.end, c.s[0]));
  DeviceAllocation temp = c.mem->allocate(temp_bytes, std::string("radix sort temp storage (") + what + ")");
  GXSORT_CUDA_CHECK(radix_sort<K>(temp.get(), temp_bytes, keys, vals, n, r.begin, r.end, c.s[0]));
  GXSORT_CUDA_CHECK_LAUNCH("cub::DeviceRadixSort");
  // `temp` goes back to the arena now; later users are queued on s[0] after the sort.
}

template <class K>
void sort_words_into(const SortContext& c, const K* in, K* out, size_t n, BitRange r, const char* what) {
  size_t temp_bytes = 0;
  GXSORT_CUDA_CHECK(radix_sort_into<K>(nullptr, temp_bytes, in, out, n, r.begin, r.end, c.s[0]));
  DeviceAllocation temp = c.mem->allocate(temp_bytes, std::string("radix sort temp storage (") + what + ")");
  GXSORT_CUDA_CHECK(radix_sort_into<K>(temp.get(), temp_bytes, in, out, n, r.begin, r.end, c.s[0]));
  GXSORT_CUDA_CHECK_LAUNCH("cub::DeviceRadixSort");
}

template void sort_words_into<u32>(const SortContext&, const u32*, u32*, size_t, BitRange, const char*);
template void sort_words_into<u64>(const SortContext&, const u64*, u64*, size_t, BitRange, const char*);

template void sort_words<u32>(const SortContext&, cub::DoubleBuffer<u32>&, cub::DoubleBuffer<u32>*, size_t, BitRange,
                              const char*);
template void sort_words<u64>(const SortContext&, cub::DoubleBuffer<u64>&, cub::DoubleBuffer<u32>*, size_t, BitRange,
                              const char*);

size_t sort_working_set(const Format& f, size_t n) {
  return device_bytes(f, n, sort_temp_bytes(f, n, !f.flat()), !f.flat());
}

size_t record_sort_working_set(const Format& f, size_t n) {
  return device_bytes(f, n, sort_temp_bytes(f, n, true), true);
}

size_t flat_in_place_working_set(const Format& f, size_t n) {
  auto r = DeviceMemory::round_up;
  size_t into = 0;  // sort_words_into's temp storage (its second buffer in it)
  GXSORT_CUDA_CHECK(f.key_bytes == 8 ? radix_sort_into<u64>(nullptr, into, nullptr, nullptr, n, 0, 64, nullptr)
                                     : radix_sort_into<u32>(nullptr, into, nullptr, nullptr, n, 0, 32, nullptr));
  return r(2 * sizeof(u64)) + std::max(r(n * f.key_bytes) + r(sort_temp_bytes(f, n, false)), r(into));
}

size_t sort_bytes_per_record(const Format& f) {
  if (f.flat()) return 2 * f.key_bytes;
  return f.record_size + 2 * sizeof(u32) + std::max<size_t>(2 * (any_wide(key_passes(f)) ? 8 : 4), f.record_size);
}

}  // namespace gxsort::cuda
