// The lines of a block of text: where each starts and how long it is (its terminator
// not counted), found on several threads. What the in-memory sort orders.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "platform/big_vector.hpp"

namespace gxsort::lines {

// One line: its bytes without the terminator (the output writes one after every line,
// so a last line that had none gets one).
struct LineRef {
  const char* data;
  uint64_t size;
  std::string_view view() const { return {data, size_t(size)}; }
};
// The lines of a text: gigabytes, filled on every thread (big_vector.hpp).
using LineRefs = BigVector<LineRef>;
// A sorted order of lines (their indices) and -u's flags (1: the line is kept), a line each.
using Permutation = BigVector<uint64_t>;
using KeepFlags = BigVector<uint8_t>;

// The bytes every line costs the in-memory sort beside its text at its peak (argsort of
// the prefixes): its LineRef (16), its index in the order (8), its prefix (8) and
// flags (1: exhausted, exact), argsort's permutation (8) and its prefix-and-index records with
// their sort scratch (32); rounded up.
constexpr uint64_t kIndexBytesPerLine = 80;

// Appends to `out` the lines of text[0, n), in order, at most `max_lines` of them: each
// ends at a `terminator`; bytes after the last terminator are a line too. Counted then
// filled on `threads` threads. Returns the bytes of text the appended lines cover (their
// terminators included): n when all of them were taken.
size_t index_lines(const char* text, size_t n, char terminator, unsigned threads, LineRefs& out,
                   size_t max_lines = SIZE_MAX);

// The number of bytes the lines take written out, a terminator after each.
uint64_t written_bytes(const LineRef* lines, size_t n, unsigned threads = 1);

}  // namespace gxsort::lines
