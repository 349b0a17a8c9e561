// Embedding gxsort through its public headers only: an in-memory array sorted, its
// stable permutation and distinct values, and a file sorted by the out-of-core engine.
//   sort_array DIR    (DIR: where the example writes its file, then removes it)
#include <gxsort/gxsort.hpp>
#include <gxsort/memory.hpp>
#include <gxsort/signals.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

void print(const char* what, const std::vector<double>& v) {
  std::printf("%s:", what);
  for (double x : v) std::printf(" %g", x);
  std::printf("\n");
}

// Records of 16 bytes: an i64 key, then a u64 payload (the record's number).
struct Record {
  int64_t key;
  uint64_t payload;
};

int sort_a_file(const std::string& dir) {
  const std::string in = dir + "/sort_array_in.bin", out = dir + "/sort_array_out.bin";
  const std::vector<Record> records = {{5, 0}, {-2, 1}, {5, 2}, {0, 3}, {-2, 4}};
  std::ofstream(in, std::ios::binary)
      .write(reinterpret_cast<const char*>(records.data()), std::streamsize(records.size() * sizeof(Record)));
  gxsort::EngineOptions opt;
  opt.format = gxsort::Format::of_keys(sizeof(Record), {gxsort::Format::single_field(gxsort::KeyType::i64, 0)}, false);
  opt.fsync = false;
  const gxsort::RunStats stats = gxsort::sort_file(in, out, opt);
  std::vector<Record> sorted(records.size());
  std::ifstream(out, std::ios::binary).read(reinterpret_cast<char*>(sorted.data()), std::streamsize(sorted.size() * sizeof(Record)));
  std::printf("file (%s, %llu records):", stats.mode.c_str(), static_cast<unsigned long long>(stats.records));
  for (const Record& r : sorted) std::printf(" %lld/%llu", static_cast<long long>(r.key), static_cast<unsigned long long>(r.payload));
  std::printf("\n");
  std::remove(in.c_str());
  std::remove(out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sort_array DIR\n");
    return 2;
  }
  gxsort::install_mapping_guard();  // a file that shrinks while it is mapped: an error, not SIGBUS
  try {
    const gxsort::Format f64 = gxsort::Format::typed(gxsort::KeyType::f64);
    gxsort::MemoryOptions o;
    o.device = gxsort::Device::cpu;  // the same bytes on a GPU; the CPU keeps the example's output fixed
    std::vector<double> v = {3.5, -1.0, 2.0, -0.0, 0.0, 3.5, -7.25};
    print("input", v);
    std::vector<uint64_t> perm(v.size());
    gxsort::argsort(v.data(), v.size(), f64, perm.data(), o);
    std::printf("argsort:");
    for (uint64_t i : perm) std::printf(" %llu", static_cast<unsigned long long>(i));
    std::printf("\n");
    std::vector<double> distinct(v.size());
    std::vector<uint64_t> counts(v.size());
    distinct.resize(gxsort::unique(v.data(), v.size(), f64, distinct.data(), counts.data(), nullptr, o));
    print("unique", distinct);
    gxsort::sort(v.data(), v.size(), f64, o);
    print("sorted", v);
    return sort_a_file(argv[1]);
  } catch (const gxsort::Error& e) {
    std::fprintf(stderr, "sort_array: %s\n", e.what());
    return int(e.code());
  }
}
