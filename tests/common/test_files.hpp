// Files for tests: a temporary directory removed with its contents, whole-file reads and
// writes. Shared by the unit suite (tests/unit) and the GPU suite (tests/cuda).
#pragma once
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gxsort_test {

using Bytes = std::vector<unsigned char>;

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& tag = "gxsort-test") {
    std::string t = "/tmp/" + tag + ".XXXXXX";
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
};

inline void write_file(const std::string& p, const Bytes& b) {
  std::ofstream o(p, std::ios::binary);
  o.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
inline Bytes read_file(const std::string& p) {
  std::ifstream i(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(i)), std::istreambuf_iterator<char>());
}
inline std::string read_text(const std::string& p) {
  std::ifstream i(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(i)), std::istreambuf_iterator<char>());
}

}  // namespace gxsort_test
