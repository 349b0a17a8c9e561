// One value of a reduction (gxsort reduce), as data: the front end renders it.
#pragma once
#include <cstring>

namespace gxsort {

// An integer is exact (a sum of 64-bit keys needs up to 128 bits): its sign and
// magnitude. A float sum, a mean or a float key is a double, with the significant
// digits that give it back (17; 9 for the min or max of f32 keys); a NaN sum or mean
// is the positive NaN. None: the min, max or mean of no records.
struct ReduceValue {
  enum class Kind { none, integer, real };
  Kind kind = Kind::none;
  bool negative = false;
  unsigned __int128 magnitude = 0;
  double real = 0;
  int digits = 17;
};

// Equal bit for bit (a NaN equals the same NaN).
inline bool operator==(const ReduceValue& a, const ReduceValue& b) {
  return a.kind == b.kind && a.negative == b.negative && a.magnitude == b.magnitude && a.digits == b.digits &&
         std::memcmp(&a.real, &b.real, sizeof a.real) == 0;
}
inline bool operator!=(const ReduceValue& a, const ReduceValue& b) { return !(a == b); }

}  // namespace gxsort
