// XXH3-64 checksums (libxxhash, Debian's libxxhash-dev): of run files in a `runs`
// manifest, of a whole file as `check` prints it, of CSR sections. A user recomputes
// them with Python's xxhash package: xxhash.xxh3_64(data).intdigest().
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gxsort::io {

class File;

// A streaming XXH3-64 (seed 0): update() with the bytes in order, then digest().
class Xxh3 {
 public:
  Xxh3();
  ~Xxh3();
  Xxh3(Xxh3&&) noexcept;
  Xxh3& operator=(Xxh3&&) noexcept;
  void update(const void* data, size_t n);
  uint64_t digest() const;
  void reset();  // empty again

 private:
  struct State;
  std::unique_ptr<State> s_;
};

uint64_t xxh3_64(const void* data, size_t n);
// The XXH3-64 of bytes [offset, offset + n) of a file, read in order in large blocks.
uint64_t xxh3_of_file(const File& f, uint64_t n, uint64_t offset = 0);

// The XXH3-64 of each `block` bytes of data[0, n) (the last block may be short): the
// checksums of a resumable job's runs (resume/journal.hpp).
std::vector<uint64_t> block_sums(const void* data, size_t n, uint64_t block, unsigned threads);
// The same for bytes [0, n) of a file, blocks first_block.. only (entries before it 0),
// read on up to `threads` threads.
std::vector<uint64_t> block_sums_of_file(const File& f, uint64_t n, uint64_t block, uint64_t first_block, unsigned threads);
// A checksum of bytes [offset, offset + n) of a file that `threads` threads compute
// together: the XXH3-64 of the XXH3-64s of its 4 MiB blocks (the segments a resumable
// job writes into its output: read back beside a merge that runs at several GB/s, which
// one thread's hash of the bytes themselves could not keep up with).
// `block`: another size of block (0: 4 MiB) -- a CPU merge hashes blocks of whole records.
uint64_t xxh3_blocks_of_file(const File& f, uint64_t n, uint64_t offset, unsigned threads, uint64_t block = 0);
// The same checksum of data[0, n) in memory.
uint64_t xxh3_blocks(const void* data, size_t n, unsigned threads);

// The same checksum (4 MiB blocks) of bytes given in order, as they are written: a
// resumable merge's part hashed from its writer's buffer, not read back.
class Xxh3Blocks {
 public:
  void update(const void* data, size_t n);
  uint64_t digest() const;

 private:
  Xxh3 block_;                  // the block being filled
  uint64_t in_block_ = 0;       // its bytes so far
  std::vector<uint64_t> sums_;  // the XXH3-64s of the blocks filled
};

// 16 lowercase hex digits, as xxhash's hexdigest() prints them; and back (false if not).
std::string hex64(uint64_t x);
bool parse_hex64(const std::string& s, uint64_t& x);

}  // namespace gxsort::io
