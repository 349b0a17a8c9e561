// The CPU's key bitmap (kernels/key_bitmap.hpp).
#include "kernels/key_bitmap.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "gxsort/error.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"

namespace gxsort {
namespace {

class CpuKeyBitmap final : public KeyBitmap {
 public:
  CpuKeyBitmap(const Format& f, unsigned threads)
      : f_(f), threads_(std::max(1u, threads)), words_(size_t(kBitmapKeys / 64), 0) {}

  void add(const unsigned char* keys, size_t n) override {
    auto set_range = [&](size_t b, size_t e) {
      uint64_t* w = words_.data();
      for (size_t i = b; i < e; ++i) {
        uint32_t raw;
        std::memcpy(&raw, keys + i * 4, 4);
        const uint32_t k = order32(f_.key_type, raw, f_.reverse);
        const uint64_t bit = uint64_t(1) << (k & 63);
        uint64_t* word = w + (k >> 6);
        // Test first: heavy duplicates then cost a read, not an atomic.
        if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
      }
    };
    const unsigned t = n < (size_t(1) << 16) ? 1 : threads_;
    parallel::parallel_for_ranges(n, t, [&](size_t b, size_t e, unsigned) { set_range(b, e); });
  }

  uint64_t extract(const std::function<void(const unsigned char*, size_t)>& sink) override {
    // Pieces of 2^20 words (2^26 keys at most): each thread counts, then writes, its share
    // of the piece into one buffer at its exclusive prefix; the piece goes to the sink.
    constexpr size_t kPieceWords = size_t(1) << 20;
    const unsigned t = threads_;
    std::vector<uint32_t> out;
    std::vector<uint64_t> counts(t + 1);
    uint64_t total = 0;
    for (size_t p = 0; p < words_.size(); p += kPieceWords) {
      const size_t pe = std::min(words_.size(), p + kPieceWords);
      // Part i holds words [p + b, p + e): the same cut in both passes, so each part writes
      // the keys it counted.
      parallel::parallel_for_ranges(pe - p, t, [&](size_t b, size_t e, unsigned i) {
        uint64_t c = 0;
        for (size_t w = p + b; w < p + e; ++w) c += uint64_t(__builtin_popcountll(words_[w]));
        counts[i + 1] = c;
      });
      counts[0] = 0;
      for (unsigned i = 0; i < t; ++i) counts[i + 1] += counts[i];
      if (counts[t] == 0) continue;
      out.resize(size_t(counts[t]));
      parallel::parallel_for_ranges(pe - p, t, [&](size_t b, size_t e, unsigned i) {
        uint32_t* o = out.data() + counts[i];
        for (size_t w = p + b; w < p + e; ++w) {
          uint64_t bits = words_[w];
          while (bits) {
            const uint32_t k = uint32_t(w * 64 + size_t(__builtin_ctzll(bits)));
            *o++ = unorder32(f_.key_type, k, f_.reverse);
            bits &= bits - 1;
          }
        }
      });
      sink(reinterpret_cast<const unsigned char*>(out.data()), out.size() * 4);
      total += counts[t];
    }
    return total;
  }

 private:
  Format f_;
  unsigned threads_;
  std::vector<uint64_t> words_;
};

}  // namespace

std::unique_ptr<KeyBitmap> make_cpu_key_bitmap(const Format& f, unsigned threads) {
  if (!bitmap_format_ok(f)) fail_usage("the bitmap strategy needs a flat file of 4-byte keys (u32, i32, f32)");
  return std::make_unique<CpuKeyBitmap>(f, threads);
}

}  // namespace gxsort
