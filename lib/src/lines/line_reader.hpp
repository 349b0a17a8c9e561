// One file read line by line through a buffer (a run, or an input of merge or check):
// blocks read in order (a stream too), a line that spans blocks moved to the buffer's
// front, the buffer grown for a line longer than it. The line before the current one
// stays readable, so that a merge can check its inputs' order without copying lines.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/file.hpp"
#include "lines/line_index.hpp"

namespace gxsort::lines {

// A block of lines sorted in memory (the last chunk of a sort, kept instead of written
// as a run): lines[perm[i]] is its line at sorted position i, kept (-u) where keep is
// empty or keep[i] is set. All its lines lie in one text buffer from `text`.
struct SortedLines {
  const char* text = nullptr;
  const LineRefs* lines = nullptr;
  const Permutation* perm = nullptr;
  const KeepFlags* keep = nullptr;
  size_t size() const { return perm->size(); }
  std::string_view line(size_t i) const { return (*lines)[(*perm)[i]].view(); }
  bool kept(size_t i) const { return keep->empty() || (*keep)[i]; }
};

// Throws Error(usage) "LABEL: a line of N bytes is longer than --memory".
[[noreturn]] void fail_long_line(const std::string& label, uint64_t bytes);
// The same for a line of a stream, whose end is not waited for (it may never come): `bytes`
// of it were read.
[[noreturn]] void fail_long_stream_line(const std::string& label, uint64_t bytes);

class LineReader {
 public:
  // `file` from byte 0 (a stream: from where it is), named `label` in messages, in
  // blocks of `buffer_bytes`; a line longer than `max_line` bytes is refused
  // (fail_long_line). The last line may lack its terminator.
  LineReader(const io::File& file, std::string label, char terminator, size_t buffer_bytes, uint64_t max_line);
  // Only bytes [begin, end) of a regular `file` (a part of a run for a parallel merge).
  LineReader(const io::File& file, std::string label, char terminator, size_t buffer_bytes, uint64_t max_line,
             uint64_t begin, uint64_t end);
  // The kept lines of sorted positions [begin, end) of `block`, as if read from the run
  // it would have been written to (bytes_read() counts each line and its terminator).
  LineReader(const SortedLines& block, std::string label, size_t begin, size_t end);
  // Moves to the next line; false at the end of the file.
  bool next() {
    if (block_.perm) return next_in_block();
    return next_in_file();
  }
  std::string_view line() const { return {base_ + cur_, cur_len_}; }
  // The line before line() (when number() > 1).
  std::string_view previous() const { return {base_ + prev_, prev_len_}; }
  uint64_t number() const { return number_; }  // line()'s, from 1
  const std::string& label() const { return label_; }
  uint64_t bytes_read() const { return offset_ - begin_; }

 private:
  bool next_in_file();
  bool next_in_block();
  void refill();
  size_t read_more(char* dst, size_t n);
  [[noreturn]] void fail_long(uint64_t bytes);

  const io::File* file_ = nullptr;  // null: a block's lines
  SortedLines block_;
  std::string label_;
  char terminator_;
  uint64_t max_line_;
  std::unique_ptr<char[]> buf_;
  const char* base_ = nullptr;      // where cur_ and prev_ count from: buf_, or the block's text
  size_t cap_ = 0;
  size_t pos_ = 0, end_ = 0;        // unread bytes of the buffer: [pos_, end_)
  size_t cur_ = 0, cur_len_ = 0;    // line()
  size_t prev_ = 0, prev_len_ = 0;  // previous()
  uint64_t begin_ = 0, end_at_ = UINT64_MAX;  // the bytes of the file read: [begin_, end_at_)
  uint64_t offset_ = 0;             // where the next read starts (a block: the bytes of its lines handed out)
  size_t block_at_ = 0, block_end_ = 0;  // a block's next sorted position, and its end
  uint64_t number_ = 0;
  bool eof_ = false;
};

}  // namespace gxsort::lines
