// The CPU reduction and the host side of every reduction: combining partials and
// printing results. The semantics (and why they make CPU and GPU agree bit for bit)
// are in reduce.hpp and docs/reduce.md.
#include "kernels/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gxsort/error.hpp"

namespace gxsort {

// ---------------------------------------------------------------- ops


// ---------------------------------------------------------------- ExactSum

void ExactSum::normalize() {
  int64_t carry = 0;
  for (int i = 0; i < kExactLimbs - 1; ++i) {
    const int64_t v = limb[i] + carry;
    carry = v >> 32;  // arithmetic shift: floor(v / 2^32)
    limb[i] = v - carry * (int64_t(1) << 32);
  }
  limb[kExactLimbs - 1] += carry;
}

bool ExactSum::is_zero() const {
  ExactSum t = *this;
  t.normalize();
  for (int64_t l : t.limb)
    if (l != 0) return false;
  return true;
}

bool ExactSum::operator==(const ExactSum& o) const {
  ExactSum a = *this, b = o;
  a.normalize();
  b.normalize();
  return std::memcmp(a.limb, b.limb, sizeof a.limb) == 0;
}

double ExactSum::to_double() const {
  ExactSum t = *this;
  t.normalize();
  const bool negative = t.limb[kExactLimbs - 1] < 0;
  if (negative) {
    for (int64_t& l : t.limb) l = -l;
    t.normalize();
  }
  auto bit = [&](int i) -> unsigned { return unsigned(uint64_t(t.limb[i / 32]) >> (i % 32)) & 1u; };
  int top = -1;  // highest set bit
  for (int i = kExactLimbs * 32 - 1; i >= 0; --i)
    if (bit(i)) { top = i; break; }
  double r;
  if (top < 0) {
    r = 0.0;
  } else if (top < 53) {
    // Fewer than 54 significant bits: exactly representable (subnormal or normal).
    const uint64_t v = uint64_t(t.limb[0]) | (uint64_t(t.limb[1]) << 32);
    r = std::ldexp(double(v), -1074);
  } else {
    // 64 bits from the top, a sticky bit below, round to nearest even at 53 bits.
    uint64_t m = 0;
    for (int b = 0; b < 64; ++b) {
      const int i = top - b;
      m = (m << 1) | (i >= 0 ? bit(i) : 0u);
    }
    bool sticky = false;
    for (int i = top - 64; i >= 0 && !sticky; --i) sticky = bit(i) != 0;
    uint64_t m53 = m >> 11;
    const uint64_t rest = m & 0x7ff;
    if (rest > 0x400 || (rest == 0x400 && (sticky || (m53 & 1)))) ++m53;
    // top >= 53 keeps the result in the normal range: no second rounding.
    r = std::ldexp(double(m53), top - 52 - 1074);
  }
  return negative ? -r : r;
}

// ---------------------------------------------------------------- partials

bool ReducePartial::operator==(const ReducePartial& o) const {
  return first == o.first && count == o.count && isum == o.isum && min_order == o.min_order &&
         max_order == o.max_order && fsum == o.fsum && nan_blocks == o.nan_blocks &&
         pinf_blocks == o.pinf_blocks && ninf_blocks == o.ninf_blocks;
}

void check_reducible(const Format& f, uint64_t first_index) {
  if (f.composite() || key_type_width(f.key_type) == 0)
    fail_usage("reduce reduces one typed key (u32, u64, i32, i64, f32 or f64, little-endian), not " + f.key_text() +
               " (give " + option_ref("type") + ", or " + option_ref("key-type") + " with " + option_ref("record-size") + ", or one such " + option_ref("key", "OFFSET:TYPE") + ")");
  if (first_index % kReduceBlock != 0)
    fail_usage("reduce: a chunk starts at record " + std::to_string(first_index) +
               ", not a multiple of " + std::to_string(kReduceBlock));
}

void combine(ReducePartial& into, const ReducePartial& next) {
  if (next.count == 0) return;
  if (into.count == 0) {
    into = next;
    return;
  }
  if (into.first + into.count != next.first)
    fail_usage("reduce: partial results combined out of file order (records " +
               std::to_string(into.first) + "+" + std::to_string(into.count) + " then " +
               std::to_string(next.first) + ")");
  into.count += next.count;
  into.isum += next.isum;
  into.min_order = std::min(into.min_order, next.min_order);
  into.max_order = std::max(into.max_order, next.max_order);
  into.fsum.add(next.fsum);
  into.fsum.normalize();
  into.nan_blocks += next.nan_blocks;
  into.pinf_blocks += next.pinf_blocks;
  into.ninf_blocks += next.ninf_blocks;
}

// ---------------------------------------------------------------- the CPU reduction

namespace {

// The block tree of reduce.hpp, step by step as the GPU block computes it.
// x holds kReduceBlock values (zeros past the data); V keys per 16-byte vector.
double block_tree(const double* x, unsigned V) {
  const unsigned Q = unsigned(kReduceBlock / (kTreeThreads * V));
  double thread_sum[kTreeThreads];
  for (unsigned t = 0; t < kTreeThreads; ++t) {
    double v[16];
    for (unsigned q = 0; q < Q; ++q) {
      const double* e = x + V * (t + kTreeThreads * q);
      v[q] = V == 4 ? (e[0] + e[1]) + (e[2] + e[3]) : e[0] + e[1];
    }
    for (unsigned s = Q / 2; s >= 1; s /= 2)
      for (unsigned q = 0; q < s; ++q) v[q] += v[q + s];
    thread_sum[t] = v[0];
  }
  double warp_sum[kTreeWarps];
  for (unsigned w = 0; w < kTreeWarps; ++w) {
    double* lane = thread_sum + 32 * w;
    for (unsigned s = 16; s >= 1; s /= 2)
      for (unsigned l = 0; l < s; ++l) lane[l] += lane[l + s];
    warp_sum[w] = lane[0];
  }
  for (unsigned s = kTreeWarps / 2; s >= 1; s /= 2)
    for (unsigned w = 0; w < s; ++w) warp_sum[w] += warp_sum[w + s];
  return warp_sum[0];
}

void add_block_sum(ReducePartial& p, double s) {
  if (std::isnan(s)) ++p.nan_blocks;
  else if (std::isinf(s)) ++(s > 0 ? p.pinf_blocks : p.ninf_blocks);
  else p.fsum.add(s);
}

template <KeyType K>
void reduce_cpu(const Format& f, const unsigned char* recs, size_t n, ReducePartial& p) {
  constexpr size_t W = (K == KeyType::u32 || K == KeyType::i32 || K == KeyType::f32) ? 4 : 8;
  using Word = std::conditional_t<W == 4, uint32_t, uint64_t>;
  constexpr bool is_float = K == KeyType::f32 || K == KeyType::f64;
  const size_t rs = f.record_size;
  const unsigned char* keys = recs + f.key_offset;
  auto raw = [&](size_t i) {
    Word w;
    std::memcpy(&w, keys + i * rs, W);
    return w;
  };
  auto order = [](Word w) -> uint64_t {
    if constexpr (W == 4) return order32(K, w, false);
    else return order64(K, w, false);
  };

  uint64_t mn = p.min_order, mx = p.max_order;
  std::vector<double> x(is_float ? kReduceBlock : 0);
  size_t blocks_since_normalize = 0;
  for (size_t b = 0; b < n; b += kReduceBlock) {
    const size_t m = std::min(kReduceBlock, n - b);
    if constexpr (is_float) {
      for (size_t i = 0; i < m; ++i) {
        const Word w = raw(b + i);
        const uint64_t o = order(w);
        mn = std::min(mn, o);
        mx = std::max(mx, o);
        if constexpr (W == 4) {
          float v;
          std::memcpy(&v, &w, 4);
          x[i] = double(v);
        } else {
          double v;
          std::memcpy(&v, &w, 8);
          x[i] = v;
        }
      }
      std::fill(x.begin() + m, x.end(), 0.0);
      add_block_sum(p, block_tree(x.data(), unsigned(16 / W)));
      if (++blocks_since_normalize == (size_t(1) << 20)) {
        p.fsum.normalize();
        blocks_since_normalize = 0;
      }
    } else {
      // A block's 32-bit keys fit a 64-bit sum; 64-bit keys go to 128 bits directly.
      unsigned __int128 s = 0;
      for (size_t i = 0; i < m; ++i) {
        const Word w = raw(b + i);
        const uint64_t o = order(w);
        mn = std::min(mn, o);
        mx = std::max(mx, o);
        if constexpr (K == KeyType::i32) s += (unsigned __int128)(__int128)int32_t(w);
        else if constexpr (K == KeyType::i64) s += (unsigned __int128)(__int128)int64_t(w);
        else s += w;
      }
      p.isum += s;
    }
  }
  p.min_order = mn;
  p.max_order = mx;
  p.fsum.normalize();
}

}  // namespace

ReducePartial reduce_chunk_cpu(const Format& f, const unsigned char* records, size_t n,
                               uint64_t first_index) {
  check_reducible(f, first_index);
  ReducePartial p;
  p.first = first_index;
  p.count = n;
  if (n == 0) return p;
  switch (f.key_type) {
    case KeyType::u32: reduce_cpu<KeyType::u32>(f, records, n, p); break;
    case KeyType::i32: reduce_cpu<KeyType::i32>(f, records, n, p); break;
    case KeyType::f32: reduce_cpu<KeyType::f32>(f, records, n, p); break;
    case KeyType::u64: reduce_cpu<KeyType::u64>(f, records, n, p); break;
    case KeyType::i64: reduce_cpu<KeyType::i64>(f, records, n, p); break;
    case KeyType::f64: reduce_cpu<KeyType::f64>(f, records, n, p); break;
    default: fail_usage("reduce needs a typed key");
  }
  return p;
}

// ---------------------------------------------------------------- values

namespace {

bool is_signed_int(KeyType t) { return t == KeyType::i32 || t == KeyType::i64; }
bool is_float_key(KeyType t) { return t == KeyType::f32 || t == KeyType::f64; }

ReduceValue integer_value(bool negative, unsigned __int128 magnitude) {
  ReduceValue v;
  v.kind = ReduceValue::Kind::integer;
  v.negative = negative && magnitude != 0;
  v.magnitude = magnitude;
  return v;
}

// A two's complement 128-bit integer as sign and magnitude (-2^127 included).
ReduceValue signed_value(unsigned __int128 bits) {
  const bool negative = __int128(bits) < 0;
  return integer_value(negative, negative ? ~bits + 1 : bits);
}

ReduceValue real_value(double d, int digits) {
  ReduceValue v;
  v.kind = ReduceValue::Kind::real;
  v.real = d;
  v.digits = digits;
  return v;
}

// A sum or a mean: NaN whatever its sign bit is the positive NaN.
ReduceValue real_result(double d) { return real_value(std::isnan(d) ? std::nan("") : d, 17); }

// A key from its (reverse=false) order word.
ReduceValue key_value(KeyType t, uint64_t order) {
  switch (t) {
    case KeyType::u32: return integer_value(false, unorder32(t, uint32_t(order), false));
    case KeyType::i32: return signed_value(static_cast<unsigned __int128>(__int128(int32_t(unorder32(t, uint32_t(order), false)))));
    case KeyType::u64: return integer_value(false, unorder64(t, order, false));
    case KeyType::i64: return signed_value(static_cast<unsigned __int128>(__int128(int64_t(unorder64(t, order, false)))));
    case KeyType::f32: {
      const uint32_t b = unorder32(t, uint32_t(order), false);
      float v;
      std::memcpy(&v, &b, 4);
      return real_value(double(v), 9);  // float -> double is exact; NaN keeps its sign
    }
    case KeyType::f64: {
      const uint64_t b = unorder64(t, order, false);
      double v;
      std::memcpy(&v, &b, 8);
      return real_value(v, 17);
    }
    default: return ReduceValue{};
  }
}

}  // namespace

double partial_sum_as_double(const Format& f, const ReducePartial& p) {
  if (!is_float_key(f.key_type))
    return is_signed_int(f.key_type) ? double(__int128(p.isum)) : double(p.isum);
  if (p.nan_blocks > 0 || (p.pinf_blocks > 0 && p.ninf_blocks > 0)) return std::nan("");
  if (p.pinf_blocks > 0) return HUGE_VAL;
  if (p.ninf_blocks > 0) return -HUGE_VAL;
  return p.fsum.to_double();
}

std::vector<ReduceValue> reduce_values(const Format& f, ReduceOp op, const ReducePartial& p) {
  if (key_type_width(f.key_type) == 0) fail_usage("reduce needs a typed key");
  const KeyType t = f.key_type;
  switch (op) {
    case ReduceOp::count: return {integer_value(false, p.count)};
    case ReduceOp::sum:
      if (is_float_key(t)) return {real_result(partial_sum_as_double(f, p))};
      return {is_signed_int(t) ? signed_value(p.isum) : integer_value(false, p.isum)};
    case ReduceOp::min: return {p.count ? key_value(t, p.min_order) : ReduceValue{}};
    case ReduceOp::max: return {p.count ? key_value(t, p.max_order) : ReduceValue{}};
    case ReduceOp::minmax:
      if (!p.count) return {ReduceValue{}, ReduceValue{}};
      return {key_value(t, p.min_order), key_value(t, p.max_order)};
    case ReduceOp::mean:
      if (!p.count) return {ReduceValue{}};
      return {real_result(partial_sum_as_double(f, p) / double(p.count))};
  }
  return {};
}

}  // namespace gxsort
