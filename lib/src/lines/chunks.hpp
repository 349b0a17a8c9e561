// The text of a LineSource cut into chunks of whole lines, each of which the in-memory
// sort can sort within the memory budget: half of it holds the text (a buffer refilled
// from the source, grown to that as the text comes), the other half the chunk's index
// (kIndexBytesPerLine a line), so a chunk of short lines holds fewer bytes. A line longer than the buffer gets a buffer
// of the whole budget for itself; one longer than that is refused.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lines/line_index.hpp"
#include "lines/line_source.hpp"

namespace gxsort::lines {

// How many chunks a sort of `src` holds at once in a budget of `memory`: two of regular
// inputs (a run is written from one while the next is read and sorted: each gets half
// the budget) while their runs, by bytes, stay within the fan-in (twice the runs past it
// would cost a merge pass more); one of a stream (whose whole text may fit that one and
// be sorted in memory).
unsigned sort_chunk_slots(const LineSource& src, uint64_t memory, size_t fan_in);
// The text a chunk of `src` holds at most in a budget of `memory` shared by `slots`
// chunks: the buffer's size.
size_t chunk_buffer_bytes(const LineSource& src, uint64_t memory, unsigned slots = 1);
// The lines a chunk holds at most with a buffer of `buffer` bytes (their index takes the
// rest of its part of the budget).
size_t chunk_max_lines(uint64_t memory, size_t buffer, unsigned slots = 1);

class LineChunks {
 public:
  // `from`: the text's byte the source reads from (LineSource::seek_text), where
  // position() starts.
  // `slots` 2: the chunks alternate between two buffers, so that a chunk's lines stay
  // valid while the next one is read (until the call after).
  LineChunks(LineSource& src, char terminator, uint64_t memory, unsigned threads, uint64_t from = 0,
             unsigned slots = 1);
  // The next chunk's lines (into the buffer: valid until the next call, or the one after
  // with two slots); false when the text ended.
  bool next(LineRefs& lines);
  // Two slots: called before a line longer than a slot's buffer takes the whole budget,
  // and before that buffer is given back (the chunks handed out before must no longer be
  // used once this returns); meanwhile chunks take one slot's share of the budget.
  void on_long_line(std::function<void()> release) { release_ = std::move(release); }
  // Whether every line was handed out (after next()).
  bool at_end() const { return eof_ && start_ == end_; }
  // Where in the text the next chunk starts: the end of the last one handed out.
  uint64_t position() const { return handed_; }
  // The bytes of the buffer that holds the chunk handed out last.
  size_t buffer_bytes() const { return cap_; }
  // Two slots: the other buffer (the chunk handed out before) freed, once the release
  // callback said it is no longer used.
  void give_up_spare();

 private:
  void compact();
  void fill();
  void resize(size_t cap);
  void switch_buffers();
  [[noreturn]] void fail_long();

  LineSource& src_;
  char terminator_;
  uint64_t memory_;
  unsigned threads_;
  size_t base_cap_, cap_ = 0;
  unsigned slots_;
  BigVector<char> buf_;
  BigVector<char> spare_;  // two slots: the buffer of the chunk handed out before
  std::function<void()> release_;
  size_t start_ = 0, end_ = 0;  // bytes not handed out yet: [start_, end_)
  bool eof_ = false;
  uint64_t handed_ = 0;
};

}  // namespace gxsort::lines
