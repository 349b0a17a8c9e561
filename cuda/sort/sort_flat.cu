// The device sort of flat typed keys: copy the keys in (through host_staging.cuh), turn
// them into order words in place (order32 / order64 from format.hpp),
// cub::DeviceRadixSort::SortKeys over the bits that differ, turn them back, copy out.
// The transform is a bijection, so equal order words are equal bytes and the output is
// byte-identical to any stable host sort.
#include <algorithm>

#include "host_staging.cuh"
#include "sort/sort_dispatch.cuh"
#include "sort/sort_kernels.cuh"

namespace gxsort::cuda {
namespace {

template <class K>
void sort_flat_impl(const SortContext& c, const Format& f, const unsigned char* in, unsigned char* out, size_t n,
                    DeviceAllocation& a0, DeviceAllocation& a1) {
  K* keys0 = static_cast<K*>(a0.get());
  K* keys1 = static_cast<K*>(a1.get());
  const size_t slice = SortPolicy::kSliceBytes / sizeof(K);
  HostStaging staging(in, out, n * sizeof(K), slice * sizeof(K), c.host_threads);

  c.reset_bits(c.s[0]);
  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t cnt = std::min(slice, n - lo);
    cudaStream_t st = c.s[k & 1];
    staging.upload(keys0 + lo, in + lo * sizeof(K), cnt * sizeof(K), st);
    launch_order_flat<K>(keys0 + lo, cnt, f.key_type, f.reverse, c.bits, c.grid(cnt), st);
  }
  c.join(c.s[1], c.s[0]);
  const BitRange r = c.read_bits();
  if (r.empty() && out == in) return;  // every key equal: already in order where it lies
  K* sorted = keys0;  // out is written from what was read once (`in` may be changing: a mapping)
  if (!r.empty()) {
    cub::DoubleBuffer<K> keys(keys0, keys1);
    sort_words<K>(c, keys, nullptr, n, r, "flat keys");
    sorted = keys.Current();
  }

  c.join(c.s[0], c.s[1]);
  for (size_t lo = 0, k = 0; lo < n; lo += slice, ++k) {
    const size_t cnt = std::min(slice, n - lo);
    cudaStream_t st = c.s[k & 1];
    launch_unorder_flat<K>(sorted + lo, cnt, f.key_type, f.reverse, c.grid(cnt), st);
    staging.download(out + lo * sizeof(K), sorted + lo, cnt * sizeof(K), st);
  }
  staging.finish();
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[1]));
}

// In place: the order words made where the keys lie (or from `from` into there), sorted
// against one more buffer, and turned back where the sort left them (copied back when
// that is the second buffer).
template <class K>
void sort_flat_in_place_impl(const SortContext& c, const Format& f, const K* from, K* keys, size_t n,
                             DeviceAllocation& other) {
  c.reset_bits(c.s[0]);
  launch_order_flat_from<K>(from, keys, n, f.key_type, f.reverse, c.bits, c.grid(n), c.s[0]);
  const BitRange r = c.read_bits();
  K* out = keys;
  if (!r.empty()) {  // else every key is equal: already in order
    cub::DoubleBuffer<K> words(keys, static_cast<K*>(other.get()));
    sort_words<K>(c, words, nullptr, n, r, "flat keys in place");
    out = words.Current();
  }
  launch_unorder_flat<K>(out, n, f.key_type, f.reverse, c.grid(n), c.s[0]);
  if (out != keys) GXSORT_CUDA_CHECK(cudaMemcpyAsync(keys, out, n * sizeof(K), cudaMemcpyDeviceToDevice, c.s[0]));
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
}

// A sorted copy of unsigned ascending keys: one read for the bits that differ, then
// CUB's sort from `from` into `keys`, whose first pass is the copy.
template <class K>
void sort_flat_copy_impl(const SortContext& c, const K* from, K* keys, size_t n) {
  c.reset_bits(c.s[0]);
  launch_flat_bits<K>(from, n, c.bits, c.grid(n), c.s[0]);
  const BitRange r = c.read_bits();
  if (r.empty()) GXSORT_CUDA_CHECK(cudaMemcpyAsync(keys, from, n * sizeof(K), cudaMemcpyDeviceToDevice, c.s[0]));
  else sort_words_into<K>(c, from, keys, n, r, "flat keys into a copy");
  GXSORT_CUDA_CHECK(cudaStreamSynchronize(c.s[0]));
}

}  // namespace

void sort_flat_in_place_on_device(SortContext c, const Format& f, const unsigned char* from, unsigned char* keys,
                                  size_t n, SortBuffers& w) {
  c.take_bits(w.bits);
  if (from != keys && words_are_keys(f.key_type, f.reverse)) {
    if (f.key_bytes == 4)
      return sort_flat_copy_impl<uint32_t>(c, reinterpret_cast<const uint32_t*>(from),
                                           reinterpret_cast<uint32_t*>(keys), n);
    return sort_flat_copy_impl<uint64_t>(c, reinterpret_cast<const uint64_t*>(from), reinterpret_cast<uint64_t*>(keys),
                                         n);
  }
  w.keys[1] = c.mem->allocate(n * f.key_bytes, "flat keys (radix sort double buffer)");
  if (f.key_bytes == 4)
    sort_flat_in_place_impl<uint32_t>(c, f, reinterpret_cast<const uint32_t*>(from), reinterpret_cast<uint32_t*>(keys),
                                      n, w.keys[1]);
  else
    sort_flat_in_place_impl<uint64_t>(c, f, reinterpret_cast<const uint64_t*>(from), reinterpret_cast<uint64_t*>(keys),
                                      n, w.keys[1]);
}

void sort_flat_on_device(SortContext c, const Format& f, const unsigned char* in, unsigned char* out, size_t n,
                         SortBuffers& w) {
  const size_t bytes = n * f.key_bytes;
  w.keys[0] = c.mem->allocate(bytes, "flat keys");
  w.keys[1] = c.mem->allocate(bytes, "flat keys (radix sort double buffer)");
  c.take_bits(w.bits);
  if (f.key_bytes == 4) sort_flat_impl<uint32_t>(c, f, in, out, n, w.keys[0], w.keys[1]);
  else sort_flat_impl<uint64_t>(c, f, in, out, n, w.keys[0], w.keys[1]);
}

}  // namespace gxsort::cuda
