#include "io/checksum.hpp"

#include <vector>

#define XXH_INLINE_ALL  // the header of Debian's libxxhash-dev, inlined: no library to ship
#include <xxhash.h>

#include "gxsort/error.hpp"
#include "io/file.hpp"

namespace gxsort::io {

struct Xxh3::State {
  XXH3_state_t st;
};

Xxh3::Xxh3() : s_(std::make_unique<State>()) { XXH3_64bits_reset(&s_->st); }
Xxh3::~Xxh3() = default;
Xxh3::Xxh3(Xxh3&&) noexcept = default;
Xxh3& Xxh3::operator=(Xxh3&&) noexcept = default;

void Xxh3::update(const void* data, size_t n) {
  if (n) XXH3_64bits_update(&s_->st, data, n);
}

uint64_t Xxh3::digest() const { return XXH3_64bits_digest(&s_->st); }

uint64_t xxh3_64(const void* data, size_t n) { return XXH3_64bits(data, n); }

uint64_t xxh3_of_file(const File& f, uint64_t n) {
  const size_t block = size_t(8) << 20;
  std::vector<unsigned char> buf(size_t(std::min<uint64_t>(block, std::max<uint64_t>(n, 1))));
  Xxh3 h;
  for (uint64_t off = 0; off < n; off += buf.size()) {
    const size_t len = size_t(std::min<uint64_t>(buf.size(), n - off));
    f.read_at(buf.data(), len, off);
    h.update(buf.data(), len);
  }
  return h.digest();
}

std::string hex64(uint64_t x) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, x >>= 4) s[size_t(i)] = digits[x & 15];
  return s;
}

bool parse_hex64(const std::string& s, uint64_t& x) {
  if (s.size() != 16) return false;
  x = 0;
  for (char c : s) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    x = x << 4 | uint64_t(d);
  }
  return true;
}

}  // namespace gxsort::io
