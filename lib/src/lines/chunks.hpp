// The text of a LineSource cut into chunks of whole lines, each of which the in-memory
// sort can sort within the memory budget: half of it holds the text (a buffer refilled
// from the source, grown to that as the text comes), the other half the chunk's index
// (kIndexBytesPerLine a line), so a chunk of short lines holds fewer bytes. A line longer than the buffer gets a buffer
// of the whole budget for itself; one longer than that is refused.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "lines/line_index.hpp"
#include "lines/line_source.hpp"

namespace gxsort::lines {

// The text a chunk of `src` holds at most in a budget of `memory`: the buffer's size.
size_t chunk_buffer_bytes(const LineSource& src, uint64_t memory);
// The lines a chunk holds at most with a buffer of `buffer` bytes (their index takes the rest).
size_t chunk_max_lines(uint64_t memory, size_t buffer);

class LineChunks {
 public:
  // `from`: the text's byte the source reads from (LineSource::seek_text), where
  // position() starts.
  LineChunks(LineSource& src, char terminator, uint64_t memory, unsigned threads, uint64_t from = 0);
  // The next chunk's lines (into the buffer: valid until the next call); false when
  // the text ended.
  bool next(std::vector<LineRef>& lines);
  // Whether every line was handed out (after next()).
  bool at_end() const { return eof_ && start_ == end_; }
  // Where in the text the next chunk starts: the end of the last one handed out.
  uint64_t position() const { return handed_; }

 private:
  void compact();
  void fill();
  void resize(size_t cap);
  [[noreturn]] void fail_long();

  LineSource& src_;
  char terminator_;
  uint64_t memory_;
  unsigned threads_;
  size_t base_cap_, cap_ = 0;
  std::unique_ptr<char[]> buf_;
  size_t start_ = 0, end_ = 0;  // bytes not handed out yet: [start_, end_)
  bool eof_ = false;
  uint64_t handed_ = 0;
};

}  // namespace gxsort::lines
