// Random records, the stable-sort + unique oracle and CPU engine options, shared by the
// unit tests of the sort engine's commands (dedupe, the partition sort).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gxsort/format.hpp"
#include "gxsort/gxsort.hpp"
#include "oracle_sort.hpp"
#include "test_files.hpp"

namespace gxsort_test {

using gxsort::Format;
using gxsort::KeyType;
using gxsort::compare_keys;

// The stable sorting permutation of the records of `in` (std::stable_sort of their
// indices by compare_keys, on several threads): the oracle of every sort, argsort and unique.
inline std::vector<uint64_t> stable_order(const Format& f, const Bytes& in) {
  const size_t rs = f.record_size, n = in.size() / rs;
  std::vector<uint64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  oracle_stable_sort(idx.begin(), idx.end(), [&](uint64_t a, uint64_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) < 0; });
  return idx;
}

// What unique gives, from the stable order: the first record of each group of equal
// keys, the group's size and that record's index (np.unique's return_counts and
// return_index): the oracle of the memory API's unique, host and device.
struct Groups {
  Bytes records;
  std::vector<uint64_t> counts, first;
  bool operator==(const Groups& o) const { return records == o.records && counts == o.counts && first == o.first; }
};

inline Groups unique_oracle(const Format& f, const Bytes& data) {
  const size_t rs = f.record_size, n = data.size() / rs;
  const std::vector<uint64_t> perm = stable_order(f, data);
  Groups want;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* r = &data[perm[i] * rs];
    if (i == 0 || !gxsort::same_key(f, &data[perm[i - 1] * rs], r)) {
      want.records.insert(want.records.end(), r, r + rs);
      want.counts.push_back(0);
      want.first.push_back(perm[i]);
    }
    ++want.counts.back();
  }
  return want;
}

// The oracle: the records in stable order, one per group of equal keys (the first or
// the last in input order), optionally followed by its count.
inline Bytes oracle(const Format& f, const Bytes& in, bool count, bool keep_last) {
  const size_t rs = f.record_size, n = in.size() / rs;
  const std::vector<uint64_t> idx = stable_order(f, in);
  auto eq = [&](size_t a, size_t b) { return compare_keys(f, &in[a * rs], &in[b * rs]) == 0; };
  Bytes out;
  for (size_t b = 0; b < n;) {
    size_t e = b + 1;
    while (e < n && eq(idx[b], idx[e])) ++e;
    const size_t pick = keep_last ? idx[e - 1] : idx[b];
    out.insert(out.end(), in.begin() + long(pick * rs), in.begin() + long((pick + 1) * rs));
    if (count) {
      uint64_t c = e - b;
      for (int i = 0; i < 8; ++i) out.push_back(uint8_t(c >> (8 * i)));
    }
    b = e;
  }
  return out;
}

// Random records; `distinct` keys at most (0: full range); payload = index (shows which
// record of a group was kept).
inline Bytes make_input(const Format& f, size_t n, uint64_t distinct, std::mt19937_64& rng, bool special = false) {
  const size_t rs = f.record_size;
  Bytes v(n * rs);
  for (size_t i = 0; i < n; ++i) {
    unsigned char* r = &v[i * rs];
    for (size_t b = 0; b < rs; ++b) r[b] = uint8_t(rng());
    if (rs > f.key_bytes) std::memcpy(r + (f.key_offset ? 0 : f.key_bytes), &i, std::min<size_t>(rs - f.key_bytes, 4));
    uint64_t x = distinct ? rng() % distinct : rng();
    if (special) {
      static const uint32_t f32s[] = {0x7fc00001u, 0xffc00000u, 0x80000000u, 0, 0x7f800000u, 0xff800000u, 0x3f800000u, 0x7fc00000u};
      static const uint64_t f64s[] = {0x7ff8000000000001ULL, 0xfff8000000000000ULL, 0x8000000000000000ULL, 0, 0x7ff0000000000000ULL};
      x = f.key_bytes == 4 ? f32s[rng() % 8] : f64s[rng() % 5];
    }
    if (f.key_type == KeyType::bytes) {
      for (size_t b = 0; b < f.key_bytes; ++b) r[f.key_offset + b] = uint8_t(b < 8 ? x >> (8 * b) : 0);
    } else {
      std::memcpy(r + f.key_offset, &x, f.key_bytes);
    }
  }
  return v;
}

// Engine options for the CPU backend on 2 threads, unsynced output.
inline gxsort::EngineOptions cpu_opts(const Format& f, const std::string& memory = "") {
  gxsort::EngineOptions o;
  o.format = f;
  o.device = gxsort::Device::cpu;
  o.threads = 2;
  if (!memory.empty()) o.memory = gxsort::parse_size_option(memory, "--memory");
  o.fsync = false;
  return o;
}

}  // namespace gxsort_test
