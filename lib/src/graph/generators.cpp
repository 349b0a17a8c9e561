// The edge generators of gen --graph (graph.hpp: gen_edge): edge i depends on the seed
// and i only.
#include "graph/graph.hpp"
#include "kernels/record_hash.hpp"

namespace gxsort::graph {
namespace {
// A bijection of [0, 2^scale): odd multiplications and an xorshift, all mod 2^scale.
uint64_t scramble(uint64_t x, unsigned scale, uint64_t seed) {
  if (scale == 0) return 0;
  const uint64_t mask = scale >= 64 ? ~uint64_t(0) : (uint64_t(1) << scale) - 1;
  const uint64_t a = mix64(seed ^ 0x1234567ULL) | 1, b = mix64(seed ^ 0x7654321ULL) | 1;
  x = (x * a) & mask;
  x ^= x >> (scale / 2 + 1);
  x = (x * b) & mask;
  return x;
}
}  // namespace

void gen_edge(bool rmat, unsigned scale, uint64_t seed, uint64_t i, uint64_t& src, uint64_t& dst) {
  uint64_t state = mix64(mix64(seed * 0x9e3779b97f4a7c15ULL + 0x5bd1e995) ^ i);
  auto next = [&state] { state += 0x9e3779b97f4a7c15ULL; return mix64(state); };
  const uint64_t mask = scale >= 64 ? ~uint64_t(0) : (uint64_t(1) << scale) - 1;
  if (!rmat) { src = next() & mask; dst = next() & mask; return; }
  // Graph500 Kronecker initiator A=0.57, B=0.19, C=0.19, D=0.05: at each of the `scale`
  // levels pick a quadrant (as integer thresholds on 2^53).
  constexpr double A = 0.57, B = 0.19, C = 0.19;
  const uint64_t tA = uint64_t(A * 9007199254740992.0), tB = uint64_t((A + B) * 9007199254740992.0),
                 tC = uint64_t((A + B + C) * 9007199254740992.0);
  uint64_t s = 0, d = 0;
  for (unsigned l = 0; l < scale; ++l) {
    const uint64_t r = next() >> 11;
    const uint64_t sb = r >= tB, db = (r >= tA && r < tB) || r >= tC;
    s = (s << 1) | sb;
    d = (d << 1) | db;
  }
  src = scramble(s, scale, seed);
  dst = scramble(d, scale, seed);
}

}  // namespace gxsort::graph
