// Scattering keys to `Buckets` buckets in memory far larger than the caches, whole cache lines
// at a time: each bucket's keys gather in a buffer of a few lines and a full buffer goes
// out in non-temporal writes. A plain scatter reads every destination line
// before writing it (the store's read for ownership) and keeps 256 streams of partly
// written lines in the caches. (Measured on the 2-core VM, one thread, 2^28 u64 keys to
// 256 buckets: 4.3-4.8 ns per key plain, 3.0-3.2 through the lines with plain 64-byte
// copies, 2.4-2.5 with non-temporal ones.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gxsort {

template <class K, size_t Buckets = 256>
class LineScatter {
 public:
  static constexpr size_t kLineBytes = 64;
  // Each bucket's buffer: four lines, written out together. With one line the branch
  // "buffer full" is taken on every eighth u64 key at random and mispredicted about as
  // often; with four, a quarter as often, and the buffers (64 KiB for 256 buckets of u64
  // keys, 256 KiB for 1024) still sit in L2.
  // (Measured on the 2-core VM, one thread, 2^27 u64 keys to 256 buckets, best of 8:
  // 2.70 ns per key with one line, 2.22 with two, 1.95 with four, 1.90 with eight.)
  static constexpr size_t kBlockBytes = 4 * kLineBytes;
  static constexpr size_t kBlockKeys = kBlockBytes / sizeof(K);

  // Keys will go to dst: this scatterer owns positions [first[d], end[d]) of bucket d
  // (other threads may own the rest of a block at either end). dst holds K-aligned keys.
  LineScatter(K* dst, const size_t* first, const size_t* end) : dst_(dst), first_(first), end_(end) {}

  // Stores key at dst[pos], pos the next position of bucket d. A position at or past
  // end[d] (keys that changed since they were counted: a mapped input another process
  // writes) writes nothing there, and overflowed() says so.
  void put(unsigned d, size_t pos, K key) {
    const size_t slot = block_slot(pos);
    block_[d][slot] = key;
    if (slot + 1 < kBlockKeys) return;
    if (pos >= end_[d]) {  // checked once a block, where it goes out: no cost per key
      overflowed_ = true;
      return;
    }
    if (pos + 1 - first_[d] >= kBlockKeys) {  // the whole block is ours
      write_block(dst_ + pos + 1 - kBlockKeys, block_[d]);
    } else {  // the bucket's first block, shared with positions owned by others
      for (size_t p = first_[d]; p <= pos; ++p) dst_[p] = block_[d][block_slot(p)];
    }
  }

  bool overflowed() const { return overflowed_; }

  // Writes what the blocks still hold: end[d] is one past bucket d's last position, at
  // most the constructor's end[d].
  void finish(const size_t* end) {
    for (size_t d = 0; d < Buckets; ++d) {
      const size_t e = end[d], in_block = block_slot(e);  // positions of the open block
      const size_t from = e - first_[d] > in_block ? e - in_block : first_[d];
      for (size_t p = from; p < e; ++p) dst_[p] = block_[d][block_slot(p)];
    }
#if defined(__SSE2__)
    _mm_sfence();  // the non-temporal writes are visible before the caller's next step
#endif
  }

 private:
  // The slot of position pos in its kBlockBytes-aligned block of dst.
  size_t block_slot(size_t pos) const {
    return (reinterpret_cast<uintptr_t>(dst_ + pos) % kBlockBytes) / sizeof(K);
  }

  static void write_block(K* to, const K* from) {
#if defined(__SSE2__)
    const __m128i* s = reinterpret_cast<const __m128i*>(from);
    __m128i* t = reinterpret_cast<__m128i*>(to);
    for (size_t i = 0; i < kBlockBytes / sizeof(__m128i); ++i) _mm_stream_si128(t + i, _mm_load_si128(s + i));
#else
    std::memcpy(to, from, kBlockBytes);
#endif
  }

  K* dst_;
  const size_t* first_;
  const size_t* end_;
  bool overflowed_ = false;
  alignas(kBlockBytes) K block_[Buckets][kBlockKeys];
};

}  // namespace gxsort
