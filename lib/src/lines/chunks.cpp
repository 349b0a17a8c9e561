#include "lines/chunks.hpp"

#include <algorithm>
#include <cstring>

#include "lines/line_reader.hpp"

namespace gxsort::lines {
namespace {

// The buffer starts this small and doubles as it fills, up to the chunk's size: a small
// stream never takes the budget's half (nor its pages from a strict overcommit).
constexpr size_t kFirstBuffer = size_t(1) << 20;

}  // namespace

unsigned sort_chunk_slots(const LineSource& src, uint64_t memory, size_t fan_in) {
  if (!src.all_regular()) return 1;
  const uint64_t chunk = chunk_buffer_bytes(src, memory, 2);
  return (src.regular_bytes() + chunk - 1) / chunk <= fan_in ? 2 : 1;
}

size_t chunk_buffer_bytes(const LineSource& src, uint64_t memory, unsigned slots) {
  const size_t half = size_t(std::max<uint64_t>(memory / slots / 2, 4096));
  // Room for all of small regular inputs, their owed terminators and a byte more, so
  // that their end is seen as the buffer fills (one chunk: sorted straight into the output).
  if (src.all_regular()) return size_t(std::min<uint64_t>(half, src.regular_bytes() + src.inputs() + 1));
  return half;
}

size_t chunk_max_lines(uint64_t memory, size_t buffer, unsigned slots) {
  const uint64_t index_room = memory / slots - std::min<uint64_t>(memory / slots, buffer);
  return size_t(std::max<uint64_t>(1, index_room / kIndexBytesPerLine));
}

LineChunks::LineChunks(LineSource& src, char terminator, uint64_t memory, unsigned threads, uint64_t from,
                       unsigned slots)
    : src_(src), terminator_(terminator), memory_(memory), threads_(threads), slots_(slots), handed_(from) {
  base_cap_ = chunk_buffer_bytes(src, memory, slots);
  resize(std::min(base_cap_, kFirstBuffer));
}

void LineChunks::resize(size_t cap) {
  BigVector<char> b(cap);
  if (end_ > start_) std::memcpy(b.data(), buf_.data() + start_, end_ - start_);
  end_ -= start_;
  start_ = 0;
  buf_ = std::move(b);
  cap_ = cap;
}

// Two slots: the chunk just handed out stays where it is (its run may still be written
// from it); the bytes after it go to the start of the other buffer, whose chunk the
// caller is done with.
void LineChunks::switch_buffers() {
  const size_t left = end_ - start_;
  const size_t cap = std::max(std::min(cap_, base_cap_), left);  // a long line's buffer is not kept
  if (spare_.size() != cap) BigVector<char>(cap).swap(spare_);
  if (left) std::memcpy(spare_.data(), buf_.data() + start_, left);
  buf_.swap(spare_);
  cap_ = cap;
  start_ = 0;
  end_ = left;
}

// The chunks handed out before are no longer used (their run written): the other
// buffer is freed.
void LineChunks::give_up_spare() {
  if (slots_ == 2 && release_) release_();
  BigVector<char>().swap(spare_);
}

void LineChunks::compact() {
  if (slots_ == 2 && start_ > 0 && cap_ <= base_cap_) return switch_buffers();
  // After a long line, its buffer is given back as what follows it is handed out (with
  // two slots, once the run of its chunk is written: one slot's rules, the whole budget,
  // until the buffer is a slot's again).
  if (cap_ > base_cap_) {
    give_up_spare();
    return resize(std::max(base_cap_, end_ - start_));
  }
  if (start_ == 0) return;
  std::memmove(buf_.data(), buf_.data() + start_, end_ - start_);
  end_ -= start_;
  start_ = 0;
}

void LineChunks::fill() {
  for (;;) {
    while (end_ < cap_ && !eof_) {
      const size_t got = src_.read(buf_.data() + end_, cap_ - end_, threads_);
      if (got == 0) eof_ = true;
      end_ += got;
    }
    if (eof_ || cap_ >= base_cap_) return;
    resize(std::min(base_cap_, cap_ * 2));
  }
}

bool LineChunks::next(LineRefs& lines) {
  lines.clear();
  compact();
  fill();
  // The source ends every input with a terminator: the buffer's lines end at its last.
  const void* last = nullptr;
  while (end_ > 0 && !(last = ::memrchr(buf_.data(), terminator_, end_))) {
    if (cap_ + kIndexBytesPerLine >= memory_) fail_long();
    give_up_spare();  // the whole budget: the chunk before given up
    resize(size_t(memory_ - kIndexBytesPerLine));
    fill();
  }
  if (!last) return false;
  const size_t whole = size_t(static_cast<const char*>(last) - buf_.data()) + 1;
  start_ = index_lines(buf_.data(), whole, terminator_, threads_, lines, chunk_max_lines(memory_, cap_, cap_ > base_cap_ ? 1 : slots_));
  handed_ += start_;  // compact() put the chunk at the buffer's start
  return true;
}

// No terminator in a buffer of the whole budget: the line's length read on, for the message
// (a file's; a stream's line may never end: /dev/zero, `yes | tr -d '\n'`).
void LineChunks::fail_long() {
  uint64_t bytes = end_;
  if (src_.current_is_stream()) fail_long_stream_line(src_.current_label(), bytes);
  for (;;) {
    const size_t got = src_.read(buf_.data(), cap_, threads_);
    const void* q = got ? std::memchr(buf_.data(), terminator_, got) : nullptr;
    if (q || got == 0) fail_long_line(src_.current_label(), bytes + (q ? uint64_t(static_cast<const char*>(q) - buf_.data()) : 0));
    bytes += got;
  }
}

}  // namespace gxsort::lines
