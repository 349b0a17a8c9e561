#include "io/checksum.hpp"

#include <algorithm>
#include <vector>

#define XXH_INLINE_ALL  // the header of Debian's libxxhash-dev, inlined: no library to ship
#include <xxhash.h>

#include "gxsort/error.hpp"
#include "io/file.hpp"
#include "parallel/parallel_for.hpp"

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
void Xxh3::reset() { XXH3_64bits_reset(&s_->st); }

uint64_t xxh3_64(const void* data, size_t n) { return XXH3_64bits(data, n); }

uint64_t xxh3_of_file(const File& f, uint64_t n, uint64_t offset) {
  const size_t len = size_t(std::min<uint64_t>(uint64_t(8) << 20, std::max<uint64_t>(n, 1)));
  // process-wide: one buffer a thread, kept: the pool's threads hash many blocks, and
  // fresh pages for each would cost a fault a page (no call's data is read from it).
  thread_local std::vector<unsigned char> buf;
  if (buf.size() < len) buf.resize(len);
  Xxh3 h;
  for (uint64_t off = 0; off < n; off += len) {
    const size_t part = size_t(std::min<uint64_t>(len, n - off));
    f.read_at(buf.data(), part, offset + off);
    h.update(buf.data(), part);
  }
  return h.digest();
}

std::vector<uint64_t> block_sums(const void* data, size_t n, uint64_t block, unsigned threads) {
  std::vector<uint64_t> sums(size_t((n + block - 1) / block));
  parallel::parallel_for(sums.size(), threads, [&](size_t i) {
    const size_t at = size_t(i * block);
    sums[i] = xxh3_64(static_cast<const unsigned char*>(data) + at, size_t(std::min<uint64_t>(block, n - at)));
  });
  return sums;
}

namespace {
std::vector<uint64_t> block_sums_at(const File& f, uint64_t offset, uint64_t n, uint64_t block, uint64_t first_block,
                                    unsigned threads) {
  std::vector<uint64_t> sums(size_t((n + block - 1) / block));
  const size_t first = size_t(std::min<uint64_t>(first_block, sums.size()));
  parallel::parallel_for(sums.size() - first, threads, [&](size_t t) {
    const size_t i = first + t;
    sums[i] = xxh3_of_file(f, std::min<uint64_t>(block, n - i * block), offset + i * block);
  });
  return sums;
}
}  // namespace

std::vector<uint64_t> block_sums_of_file(const File& f, uint64_t n, uint64_t block, uint64_t first_block, unsigned threads) {
  return block_sums_at(f, 0, n, block, first_block, threads);
}

namespace {
constexpr uint64_t kSumBlock = uint64_t(4) << 20;  // the blocks of xxh3_blocks
}

uint64_t xxh3_blocks_of_file(const File& f, uint64_t n, uint64_t offset, unsigned threads, uint64_t block) {
  const std::vector<uint64_t> sums = block_sums_at(f, offset, n, block ? block : kSumBlock, 0, threads);
  return xxh3_64(sums.data(), sums.size() * sizeof(uint64_t));
}

uint64_t xxh3_blocks(const void* data, size_t n, unsigned threads) {
  const std::vector<uint64_t> sums = block_sums(data, n, kSumBlock, threads);
  return xxh3_64(sums.data(), sums.size() * sizeof(uint64_t));
}

void Xxh3Blocks::update(const void* data, size_t n) {
  const unsigned char* at = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const size_t take = size_t(std::min<uint64_t>(n, kSumBlock - in_block_));
    block_.update(at, take);
    at += take;
    n -= take;
    in_block_ += take;
    if (in_block_ == kSumBlock) {
      sums_.push_back(block_.digest());
      block_.reset();
      in_block_ = 0;
    }
  }
}

uint64_t Xxh3Blocks::digest() const {
  std::vector<uint64_t> sums = sums_;
  if (in_block_ > 0) sums.push_back(block_.digest());  // the last block, short
  return xxh3_64(sums.data(), sums.size() * sizeof(uint64_t));
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
