// A key transform of the form x ^ (a ^ (b & s)), s all ones when x's top bit is set:
// every order transform of format.hpp and its inverse, for every key type and direction,
// takes this form (KeyOrder in radix_sort.hpp builds them). Two constants and three
// operations, no branch and no load, where the transforms themselves switch on the key
// type for every key; the AVX-512 networks apply it in registers.
#pragma once

namespace gxsort {

// TopBit false: b is 0 (integer keys, either direction), and the map is one xor.
template <class K, bool TopBit = true>
struct XorMap {
  K a = 0, b = 0;
  K operator()(K x) const {
    if constexpr (TopBit) return x ^ (a ^ (b & K(K(0) - (x >> (8 * sizeof(K) - 1)))));
    else return x ^ a;
  }
};

template <class Map>
constexpr bool is_xor_map_v = false;
template <class K, bool TopBit>
constexpr bool is_xor_map_v<XorMap<K, TopBit>> = true;

}  // namespace gxsort
