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

namespace gxsort::lines {

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
  // Moves to the next line; false at the end of the file.
  bool next();
  std::string_view line() const { return {buf_.get() + cur_, cur_len_}; }
  // The line before line() (when number() > 1).
  std::string_view previous() const { return {buf_.get() + prev_, prev_len_}; }
  uint64_t number() const { return number_; }  // line()'s, from 1
  const std::string& label() const { return label_; }
  uint64_t bytes_read() const { return offset_ - begin_; }

 private:
  void refill();
  size_t read_more(char* dst, size_t n);
  [[noreturn]] void fail_long(uint64_t bytes);

  const io::File& file_;
  std::string label_;
  char terminator_;
  uint64_t max_line_;
  std::unique_ptr<char[]> buf_;
  size_t cap_;
  size_t pos_ = 0, end_ = 0;        // unread bytes of the buffer: [pos_, end_)
  size_t cur_ = 0, cur_len_ = 0;    // line()
  size_t prev_ = 0, prev_len_ = 0;  // previous()
  uint64_t begin_ = 0, end_at_ = UINT64_MAX;  // the bytes of the file read: [begin_, end_at_)
  uint64_t offset_ = 0;             // where the next read starts
  uint64_t number_ = 0;
  bool eof_ = false;
};

}  // namespace gxsort::lines
