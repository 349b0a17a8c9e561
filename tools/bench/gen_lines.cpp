// Random text lines for tools/bench/lines.sh: CSV-like lines of mixed lengths and fields,
// about 100 bytes each, a quarter of them repeats of others (so that -u has work):
//   <word>,<signed integer>,<decimal>,<words ...>
// Usage: gen_lines OUT BYTES [SEED]: lines until at least BYTES bytes are written.
// Line i is made from hash(SEED, i) alone, so blocks of lines are made on all cores.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gxsort/options.hpp"
#include "parallel/parallel_for.hpp"

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Draws {  // a stream of random numbers from one seed
  uint64_t state;
  uint64_t next() { return state = mix(state); }
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
};

void append_word(std::string& s, Draws& d, unsigned lo, unsigned hi) {
  const unsigned n = lo + d.below(hi - lo + 1);
  for (unsigned i = 0; i < n; ++i) s += static_cast<char>('a' + d.below(26));
}

// Line `i` of a text whose lines are drawn from `distinct` different ones.
void append_line(std::string& s, uint64_t seed, uint64_t i, uint64_t distinct) {
  Draws d{mix(seed ^ mix(i)) % distinct + seed};
  append_word(s, d, 3, 12);
  s += ',';
  if (d.below(3) == 0) s += '-';
  s += std::to_string(d.next() % (1ULL << (4 + d.below(36))));
  s += ',';
  s += std::to_string(d.below(100000)) + '.' + std::to_string(d.below(100));
  s += ',';
  const unsigned words = 1 + d.below(20);
  for (unsigned w = 0; w < words; ++w) {
    if (w) s += ' ';
    append_word(s, d, 1, 8);
  }
  s += '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_lines OUT BYTES [SEED]\n");
    return 2;
  }
  const uint64_t bytes = std::strtoull(argv[2], nullptr, 10);
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  FILE* out = std::fopen(argv[1], "wb");
  if (!out) {
    std::perror(argv[1]);
    return 3;
  }
  const uint64_t distinct = bytes / 133 + 1;  // ~100-byte lines: about 3/4 of them distinct
  const size_t tasks = 64;
  // Lines a task makes: 2^16, fewer for a small text (a round of ~BYTES, not 360 MB).
  const uint64_t block = std::clamp<uint64_t>(bytes / (100 * tasks), 1, 1 << 16);
  std::vector<std::string> blocks(tasks);
  uint64_t written = 0;
  for (uint64_t first = 0; written < bytes; first += block * tasks) {
    gxsort::parallel::parallel_for(tasks, gxsort::default_threads(), [&](size_t t) {
      blocks[t].clear();
      for (uint64_t i = 0; i < block; ++i) append_line(blocks[t], seed, first + t * block + i, distinct);
    });
    for (const std::string& b : blocks) {
      if (written >= bytes) break;
      if (std::fwrite(b.data(), 1, b.size(), out) != b.size()) {
        std::perror(argv[1]);
        return 3;
      }
      written += b.size();
    }
  }
  return std::fclose(out) == 0 ? 0 : 3;
}
