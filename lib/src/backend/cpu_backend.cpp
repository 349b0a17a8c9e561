// The CPU backend: parallel LSD radix sort on transformed keys.
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "backend/backend.hpp"
#include "gxsort/error.hpp"
#include "plan/sizes.hpp"
#include "sort/bitmap_dedupe.hpp"
#include "sort/radix_sort.hpp"

namespace gxsort {
namespace {

void free_aligned(unsigned char* p) { std::free(p); }

// Flat key files: transform the keys in place, sort them as unsigned words, and
// transform back.
template <class K>
void sort_flat(const Format& f, unsigned char* data, size_t n, unsigned char* scratch, unsigned threads) {
  K* keys = reinterpret_cast<K*>(data);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(K) == 4) keys[i] = order32(f.key_type, keys[i], f.reverse);
    else keys[i] = order64(f.key_type, keys[i], f.reverse);
  }
  K* out = radix_sort_keys<K>(keys, reinterpret_cast<K*>(scratch), n, sizeof(K) * 8, threads);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(K) == 4) keys[i] = unorder32(f.key_type, out[i], f.reverse);
    else keys[i] = unorder64(f.key_type, out[i], f.reverse);
  }
}

// Records: sort (key prefix, record index) pairs, finish ties of wide keys on the
// key tail, then gather the records through the scratch buffer.
void sort_records(const Format& f, unsigned char* data, size_t n, unsigned char* scratch, unsigned threads) {
  const size_t rs = f.record_size;
  unsigned char* gathered = scratch;
  auto* keys = reinterpret_cast<uint64_t*>(scratch + n * rs);
  auto* ktmp = keys + n;
  auto* idx = reinterpret_cast<uint32_t*>(ktmp + n);
  auto* itmp = idx + n;
  for (size_t i = 0; i < n; ++i) {
    keys[i] = key_prefix(f, data + i * rs);
    idx[i] = uint32_t(i);
  }
  // All 64 bits: byte keys shorter than 8 bytes sit in the high bits of the prefix;
  // digits that never vary (the zero high half of a 32-bit key) are skipped anyway.
  if (radix_sort_pairs<uint64_t>(keys, idx, ktmp, itmp, n, 64, threads)) {
    std::swap(keys, ktmp);
    std::swap(idx, itmp);
  }
  if (!f.key_fits_prefix()) {
    // Equal prefixes: order by the rest of the key; stable_sort keeps input order
    // among equal keys because the radix sort left them in index order.
    for (size_t b = 0; b < n;) {
      size_t e = b + 1;
      while (e < n && keys[e] == keys[b]) ++e;
      if (e - b > 1)
        std::stable_sort(idx + b, idx + e, [&](uint32_t x, uint32_t y) {
          return compare_key_tail(f, data + size_t(x) * rs, data + size_t(y) * rs) < 0;
        });
      b = e;
    }
  }
  for (size_t i = 0; i < n; ++i) std::memcpy(gathered + i * rs, data + size_t(idx[i]) * rs, rs);
  std::memcpy(data, gathered, n * rs);
}

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(unsigned threads) : threads_(threads ? threads : hardware_threads()) {}
  std::string name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  HostBuffer allocate_host(size_t bytes) override {
    size_t rounded = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw Error(ExitCode::io, "out of host memory allocating " + format_bytes(bytes) + " (lower --memory)");
    return HostBuffer(static_cast<unsigned char*>(p), bytes, free_aligned);
  }

  size_t sort_scratch_bytes(const Format& f, size_t n) const override {
    return f.flat() ? n * f.record_size : n * (f.record_size + 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t));
  }

  void sort_chunk(const Format& f, unsigned char* data, size_t n, unsigned char* scratch) override {
    if (n < 2) return;
    if (n > UINT32_MAX) throw Error(ExitCode::usage, "internal: chunk of more than 2^32 records");
    if (f.flat()) {
      if (f.key_bytes == 4) sort_flat<uint32_t>(f, data, n, scratch, threads_);
      else sort_flat<uint64_t>(f, data, n, scratch, threads_);
    } else {
      sort_records(f, data, n, scratch, threads_);
    }
  }

  std::unique_ptr<KeyBitmap> make_key_bitmap(const Format& f, size_t, uint64_t host_budget) override {
    if (host_budget < kBitmapBytes) return nullptr;
    return make_cpu_key_bitmap(f, threads_);
  }

  ReducePartial reduce_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index,
                             const std::string&) override {
    return reduce_chunk_cpu(f, records, n, first_index);
  }

 private:
  unsigned threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(unsigned threads) { return std::make_unique<CpuBackend>(threads); }

size_t records_that_fit(const Backend& b, const Format& f, size_t bytes) {
  // Scratch is linear in n for every backend; measure the per-record cost once.
  const size_t probe = 1 << 20;
  size_t per = f.record_size + (b.sort_scratch_bytes(f, probe) + probe - 1) / probe;
  return bytes / per;
}

}  // namespace gxsort
