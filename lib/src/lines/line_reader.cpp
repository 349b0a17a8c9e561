#include "lines/line_reader.hpp"

#include <algorithm>
#include <cstring>

#include "gxsort/error.hpp"

namespace gxsort::lines {

void fail_long_line(const std::string& label, uint64_t bytes) {
  fail_usage(label + ": a line of " + std::to_string(bytes) + " bytes is longer than " + option_ref("memory"));
}

void fail_long_stream_line(const std::string& label, uint64_t bytes) {
  fail_usage(label + ": a line of more than " + std::to_string(bytes) + " bytes is longer than " + option_ref("memory"));
}

LineReader::LineReader(const io::File& file, std::string label, char terminator, size_t buffer_bytes,
                       uint64_t max_line)
    : file_(&file), label_(std::move(label)), terminator_(terminator), max_line_(max_line),
      cap_(std::max<size_t>(buffer_bytes, 4096)) {
  buf_.reset(new char[cap_]);
  base_ = buf_.get();
}

LineReader::LineReader(const io::File& file, std::string label, char terminator, size_t buffer_bytes,
                       uint64_t max_line, uint64_t begin, uint64_t end)
    : LineReader(file, std::move(label), terminator, buffer_bytes, max_line) {
  begin_ = offset_ = begin;
  end_at_ = end;
}

LineReader::LineReader(const SortedLines& block, std::string label, size_t begin, size_t end)
    : block_(block), label_(std::move(label)), terminator_(0), max_line_(UINT64_MAX), base_(block.text),
      block_at_(begin), block_end_(end) {}

// The block's next kept line, where it lies in the block's text (cur_: from base_).
bool LineReader::next_in_block() {
  while (block_at_ < block_end_ && !block_.kept(block_at_)) ++block_at_;
  if (block_at_ == block_end_) return false;
  const std::string_view l = block_.line(block_at_++);
  prev_ = cur_;
  prev_len_ = cur_len_;
  cur_ = size_t(l.data() - base_);
  cur_len_ = l.size();
  offset_ += l.size() + 1;
  ++number_;
  return true;
}

bool LineReader::next_in_file() {
  for (;;) {
    const void* q = pos_ < end_ ? std::memchr(buf_.get() + pos_, terminator_, end_ - pos_) : nullptr;
    if (q || (eof_ && pos_ < end_)) {
      const size_t stop = q ? size_t(static_cast<const char*>(q) - buf_.get()) : end_;
      if (stop - pos_ > max_line_) fail_long_line(label_, stop - pos_);  // whole: its length is known
      prev_ = cur_;
      prev_len_ = cur_len_;
      cur_ = pos_;
      cur_len_ = stop - pos_;
      pos_ = q ? stop + 1 : stop;
      ++number_;
      return true;
    }
    if (eof_) return false;
    refill();
  }
}

// Moves the current line and what follows it to the buffer's front (growing the buffer
// when they fill more than half of it, so that reads stay large), then reads more.
void LineReader::refill() {
  const size_t keep_from = number_ ? cur_ : pos_;
  const size_t kept = end_ - keep_from;
  if (end_ - pos_ > max_line_) fail_long(end_ - pos_);
  if (kept > cap_ / 2) {
    const size_t bigger = cap_ * 2;
    std::unique_ptr<char[]> b(new char[bigger]);
    std::memcpy(b.get(), buf_.get() + keep_from, kept);
    buf_ = std::move(b);
    base_ = buf_.get();
    cap_ = bigger;
  } else if (keep_from > 0) {
    std::memmove(buf_.get(), buf_.get() + keep_from, kept);
  }
  cur_ -= std::min(cur_, keep_from);
  pos_ -= keep_from;
  end_ = kept;
  const size_t got = read_more(buf_.get() + end_, cap_ - end_);
  end_ += got;
  eof_ = got == 0;
}

size_t LineReader::read_more(char* dst, size_t n) {
  if (!file_->is_stream()) {
    const uint64_t stop = std::min(file_->size(), end_at_);
    n = size_t(std::min<uint64_t>(n, stop - std::min(stop, offset_)));
  }
  const size_t got = n ? file_->read_chunk(dst, n, offset_, 1) : 0;
  offset_ += got;
  return got;
}

// A line too long whose end is not read yet: the rest of it read on, to say how long it is
// (a file's; a stream's line may never end).
void LineReader::fail_long(uint64_t bytes) {
  if (file_->is_stream()) fail_long_stream_line(label_, bytes);
  for (;;) {
    pos_ = end_;
    const size_t got = read_more(buf_.get(), cap_);
    if (got == 0) fail_long_line(label_, bytes);
    const void* q = std::memchr(buf_.get(), terminator_, got);
    if (q) fail_long_line(label_, bytes + uint64_t(static_cast<const char*>(q) - buf_.get()));
    bytes += got;
    end_ = got;
  }
}

}  // namespace gxsort::lines
