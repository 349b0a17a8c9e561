#include "lines/line_source.hpp"

#include <algorithm>

#include "gxsort/error.hpp"

namespace gxsort::lines {

LineSource::LineSource(const std::vector<std::string>& inputs, char terminator) : terminator_(terminator) {
  if (inputs.empty()) fail_usage("no input given");
  for (const std::string& path : inputs) {
    files_.push_back(io::File::open_input(path));
    labels_.push_back(path);
    if (files_.back().is_stream()) all_regular_ = false;
    else regular_bytes_ += files_.back().size();
  }
}

size_t LineSource::read(char* dst, size_t cap, unsigned threads) {
  while (current_ < files_.size()) {
    const io::File& f = files_[current_];
    if (!ended_) {
      size_t want = cap;
      if (!f.is_stream()) want = size_t(std::min<uint64_t>(cap, f.size() - offset_));
      const size_t got = want ? f.read_chunk(dst, want, offset_, threads) : 0;
      if (got > 0) {
        offset_ += got;
        bytes_read_ += got;
        owes_terminator_ = dst[got - 1] != terminator_;
        return got;
      }
      ended_ = true;
    }
    const bool owed = owes_terminator_;
    ++current_;
    offset_ = 0;
    ended_ = false;
    owes_terminator_ = false;
    if (owed) {
      dst[0] = terminator_;
      return 1;
    }
  }
  return 0;
}

void LineSource::check_unchanged() const {
  for (const io::File& f : files_) f.check_unchanged();
}

bool LineSource::seek_text(uint64_t at) {
  uint64_t before = 0;  // input bytes before input k
  for (size_t k = 0; k < files_.size(); ++k) {
    const io::File& f = files_[k];
    char last = terminator_;
    if (f.size() > 0) f.read_at(&last, 1, f.size() - 1);
    if (at < f.size() || (at == f.size() && last == terminator_)) {
      char before_at = terminator_;  // the text's start, or the byte before `at` in this input
      if (at > 0) f.read_at(&before_at, 1, at - 1);
      if (before_at != terminator_) return false;
      current_ = at < f.size() ? k : k + 1;
      offset_ = at < f.size() ? at : 0;
      ended_ = owes_terminator_ = false;
      bytes_read_ = before + (at < f.size() ? at : f.size());
      return true;
    }
    if (at == f.size()) return false;  // before the terminator this input is owed
    at -= f.size() + (last != terminator_);  // a terminator owed is a byte of the text
    before += f.size();
  }
  if (at > 0) return false;
  current_ = files_.size();  // after the owed terminator of the last input: the end
  bytes_read_ = before;
  return true;
}

InputText read_inputs(const LineSource& src, unsigned threads) {
  InputText text;
  try {
    text.bytes.resize(size_t(std::max<uint64_t>(src.regular_bytes(), 1)));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(src.regular_bytes());
  }
  size_t at = 0;
  for (size_t k = 0; k < src.inputs(); ++k) {
    const size_t n = size_t(src.file(k).size());
    src.file(k).read_at_parallel(text.bytes.data() + at, n, 0, threads);
    text.sizes.push_back(n);
    at += n;
  }
  return text;
}

}  // namespace gxsort::lines
