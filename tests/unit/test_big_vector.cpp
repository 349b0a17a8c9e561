// platform/big_vector.hpp: a vector whose large blocks are mapped with huge pages advised
// and whose resize leaves elements for the caller to fill.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>

#include "platform/big_vector.hpp"

namespace gxsort {

TEST_CASE("BigVector: small and mapped blocks hold, grow and keep their elements") {
  for (size_t n : {size_t(0), size_t(1), size_t(1000), (BigAllocator<uint64_t>::kBigBlock / 8) + 3}) {
    BigVector<uint64_t> v(n);
    std::iota(v.begin(), v.end(), uint64_t(7));
    v.push_back(1);  // grows: the elements move to a new block
    REQUIRE(v.size() == n + 1);
    for (size_t i = 0; i < n; i += 4099) CHECK(v[i] == i + 7);
    CHECK(v.back() == 1);
    BigVector<uint64_t> w;
    w.swap(v);
    CHECK(w.size() == n + 1);
    v = w;  // a copy of a mapped block
    CHECK(v == w);
  }
}

TEST_CASE("BigVector: elements made from arguments, and filled by the caller") {
  struct Pair {
    const char* p;
    uint64_t n;
  };
  BigVector<Pair> v;
  v.push_back({"ab", 2});
  v.emplace_back(Pair{"c", 1});
  CHECK(v[0].n == 2);
  CHECK(v[1].p[0] == 'c');
  BigVector<uint8_t> flags(5);
  for (auto& f : flags) f = 1;
  CHECK(std::accumulate(flags.begin(), flags.end(), 0) == 5);
}

}  // namespace gxsort
