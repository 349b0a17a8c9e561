// The inputs of a lines command, opened up front (a missing file, a directory: an error
// naming it before any work) and read as one text, as GNU sort reads several files: in
// order, each one's last line ended by the terminator where it had none. Regular files
// may also be read whole (the in-memory sort); standard input and other streams are
// read in blocks, in order, never sized or sought.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <vector>

#include "io/file.hpp"
#include "platform/big_vector.hpp"

namespace gxsort::lines {

class LineSource {
 public:
  LineSource(const std::vector<std::string>& inputs, char terminator);

  // Whether every input is a regular file (sized), and their bytes.
  bool all_regular() const { return all_regular_; }
  uint64_t regular_bytes() const { return regular_bytes_; }
  size_t inputs() const { return files_.size(); }
  const io::File& file(size_t k) const { return files_[k]; }
  // The name of input k in messages (standard input: "-").
  const std::string& label(size_t k) const { return labels_[k]; }

  // Reads up to `cap` (>= 1) more bytes of the text into dst, a terminator added after
  // an input that does not end with one; 0 at the end of the last input. `threads`
  // read a regular file's block.
  size_t read(char* dst, size_t cap, unsigned threads);
  // The input the last read took its bytes from (for messages about them).
  const std::string& current_label() const { return labels_[current_ < files_.size() ? current_ : files_.size() - 1]; }
  // Whether that input is a stream (its lines cannot be read on to their end for a message:
  // a stream may never end).
  bool current_is_stream() const { return file(current_ < files_.size() ? current_ : files_.size() - 1).is_stream(); }
  // Bytes read from the inputs so far (terminators added not counted).
  uint64_t bytes_read() const { return bytes_read_; }
  // Throws Error(io) naming a regular input that changed while it was read.
  void check_unchanged() const;
  // Regular inputs: the next read() starts at byte `at` of the text (the inputs one
  // after another, each with the terminator it was owed), a line's start. False (the
  // source untouched) when `at` is past the text or not after a terminator.
  bool seek_text(uint64_t at);

 private:
  std::vector<io::File> files_;
  std::vector<std::string> labels_;
  bool all_regular_ = true;
  uint64_t regular_bytes_ = 0;
  char terminator_;
  size_t current_ = 0;        // the input being read
  uint64_t offset_ = 0;       // bytes of it read
  bool ended_ = false;        // it ended (its terminator, if owed, is still to come)
  bool owes_terminator_ = false;
  uint64_t bytes_read_ = 0;
};

// The regular inputs of `src` read whole into private memory, one after another, on
// `threads` threads. Not mapped: another process may write a file while it is sorted,
// and a comparison sort whose lines change between two comparisons can run out of its
// bounds (an insertion sort trusts what it compared before); private bytes cannot change.
struct InputText {
  BigVector<char> bytes;
  std::vector<size_t> sizes;  // input k's bytes, from bytes + sum of the sizes before it
};
InputText read_inputs(const LineSource& src, unsigned threads);

}  // namespace gxsort::lines
