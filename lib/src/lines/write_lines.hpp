// Writing lines out: a sorted block of lines gathered into a file on several threads,
// and a buffered writer for the merge, both adding the terminator after every line.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "gxsort/cancel.hpp"
#include "io/checksum.hpp"
#include "io/file.hpp"
#include "lines/line_index.hpp"
#include "lines/run_index.hpp"

namespace gxsort::lines {

// Writes lines[perm[i]] for every i (where keep is empty or keep[i] is set), each
// followed by `terminator`, into `out` from byte `offset`: each of `threads` parts of
// the positions is copied into a buffer of its own (`buffer_bytes`) and written at its
// place. Returns the bytes written. With an `index` (its budget set), the lines written
// are sampled into it (a run's: offsets from `offset`).
uint64_t write_sorted(const io::File& out, uint64_t offset, const LineRefs& lines,
                      const Permutation& perm, const KeepFlags& keep, char terminator,
                      unsigned threads, size_t buffer_bytes, RunIndex* index = nullptr);

// Lines appended to a file through a buffer, written when full (and polled for
// cancellation there).
class LineWriter {
 public:
  LineWriter(const io::File& out, uint64_t offset, char terminator, size_t buffer_bytes, const CancelToken* cancel);
  // One that writes nothing, only counts bytes() (the size of a merge's output).
  LineWriter(char terminator, size_t buffer_bytes, const CancelToken* cancel);
  void put(std::string_view line) {
    if (used_ + line.size() + 1 > cap_) return put_slow(line);
    std::memcpy(buf_.get() + used_, line.data(), line.size());
    used_ += line.size();
    buf_[used_++] = terminator_;
  }
  void flush();
  // Bytes written (flushed or not).
  uint64_t bytes() const { return written_ + used_; }
  // The bytes written from now on hashed as they go to the file (a resumable merge's
  // part); checksum(), once flushed: their io::xxh3_blocks.
  void hash_blocks() { sum_ = std::make_unique<io::Xxh3Blocks>(); }
  uint64_t checksum() const { return sum_ ? sum_->digest() : 0; }

 private:
  void put_slow(std::string_view line);
  const io::File* out_;  // null: counting only
  uint64_t offset_, written_ = 0;
  char terminator_;
  size_t cap_, used_ = 0;
  std::unique_ptr<char[]> buf_;
  const CancelToken* cancel_;
  std::unique_ptr<io::Xxh3Blocks> sum_;  // null: not hashed
};

}  // namespace gxsort::lines
