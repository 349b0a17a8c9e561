// Parallel stable radix sorts of unsigned order words (8-bit digits): keys alone,
// copied from a source into a destination, or keys with a 32-bit satellite index.
// Passes whose digit is equal for every key are skipped, so 32-bit keys held in
// 64-bit words cost four passes, not eight.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "gxsort/error.hpp"
#include "gxsort/format.hpp"
#include "kernels/xor_map.hpp"

namespace gxsort {

// The order-preserving key transform of a flat key type (format.hpp), as a value.
template <class K>
struct KeyOrder {
  KeyType type = sizeof(K) == 4 ? KeyType::u32 : KeyType::u64;
  bool reverse = false;
  K to(K raw) const {
    if constexpr (sizeof(K) == 4) return order32(type, raw, reverse);
    else return order64(type, raw, reverse);
  }
  K from(K u) const {
    if constexpr (sizeof(K) == 4) return unorder32(type, u, reverse);
    else return unorder64(type, u, reverse);
  }
  // to() and from() as XorMaps (unit-tested equal to them). With S the sign bit:
  // integers flip S (signed) or nothing; floats flip S when the top bit is clear and
  // every bit when it is set (a = S, b = ~S); reversing complements the result.
  XorMap<K> to_map() const {
    const K sign = K(K(1) << (8 * sizeof(K) - 1));
    XorMap<K> m;
    if (type == KeyType::i32 || type == KeyType::i64) m.a = sign;
    if (type == KeyType::f32 || type == KeyType::f64) { m.a = sign; m.b = K(~sign); }
    if (reverse) m.a = K(~m.a);
    return m;
  }
  // The inverse: from an order word with its top bit set a float loses S, otherwise
  // every bit flips (a = ~0, b = ~S). Reversed, the word is complemented first, which
  // turns (a, b) into (~a ^ b, b).
  XorMap<K> from_map() const {
    const K sign = K(K(1) << (8 * sizeof(K) - 1));
    XorMap<K> m;
    if (type == KeyType::i32 || type == KeyType::i64) m.a = sign;
    if (type == KeyType::f32 || type == KeyType::f64) { m.a = K(~K(0)); m.b = K(~sign); }
    if (reverse) m.a = K(~m.a ^ m.b);
    return m;
  }
};

// Thrown by a sort whose source changed while it was read: its passes disagreed on the
// keys (a mapped input that another process writes). What it wrote is not sorted; the
// caller names the file.
class SourceChanged : public Error {
 public:
  SourceChanged() : Error(ExitCode::io, "input changed while it was read") {}
};

// Tests only (tests/cli/test_hostile_inputs.sh): a sort that reads its source more than
// once (radix_sort_copy's count and scatter, a record sort's keys and gather) calls its
// hook (TestHooks::between_passes) after its first read, so that a test changes the
// input in between without racing the sort. Null: none.
using PassHook = std::function<void()>;
inline void test_pause_between_passes(const PassHook& hook) {
  if (hook) hook();
}

// Sorts the n raw keys of src into dst (the two must not overlap): keys are transformed
// on the way in, sorted as unsigned words and transformed back. One parallel MSD pass
// scatters src into dst; each MSD bucket is then LSD-sorted in dst (a bucket sorted by
// one thread first takes more MSD passes while it is larger than a core's L2; one too
// large for one thread is LSD-sorted by all of them) with a scratch of the bucket's size:
// `scratch` (n keys; it may be src itself, which only the MSD pass reads) or, when
// null, buffers allocated for the buckets. So a mapped input sorts into
// a mapped output with no other input-sized buffer, touching almost no fresh memory.
// Stable; raw equal keys are equal bits, so the result is unique. src may change while
// it is read (a mapped input): then SourceChanged, never a write outside dst. `sorted`, when set,
// is called (from any thread) with each range [first, first + count) of dst that holds
// its final keys, as soon as it does. The MSD pass takes 8 to 10 bits, as many as
// it needs for buckets of at most `bucket_keys` keys on average (tests lower it to reach
// the wider digits with small inputs). `between_passes`: test_pause_between_passes.
using SortedRange = std::function<void(size_t first, size_t count)>;
constexpr size_t kMsdBucketKeys = size_t(1) << 18;
template <class K>
void radix_sort_copy(const K* src, K* dst, size_t n, KeyOrder<K> order, unsigned threads, K* scratch = nullptr,
                     const SortedRange& sorted = {}, size_t bucket_keys = kMsdBucketKeys,
                     const PassHook& between_passes = {});

// Sorts (keys, idx) pairs by key, stably; the result ends in (keys, idx).
template <class K>
void radix_sort_pairs(K* keys, uint32_t* idx, K* ktmp, uint32_t* itmp, size_t n, unsigned threads);

}  // namespace gxsort
