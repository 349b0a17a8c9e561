#include "lines/line_index.hpp"

#include <algorithm>
#include <cstring>

#include "parallel/parallel_for.hpp"

namespace gxsort::lines {
namespace {

// Pieces of text each thread scans (a few per thread, for balance).
constexpr size_t kMinPieceBytes = size_t(1) << 20;

struct Piece {
  size_t count = 0;      // terminators in it
  size_t last_end = 0;   // one past its last terminator (0: none)
};

size_t count_in(const char* b, const char* e, char t, size_t& last_end, const char* text) {
  size_t c = 0;
  for (const char* p = b; p < e;) {
    const void* q = std::memchr(p, t, size_t(e - p));
    if (!q) break;
    p = static_cast<const char*>(q) + 1;
    last_end = size_t(p - text);
    ++c;
  }
  return c;
}

}  // namespace

size_t index_lines(const char* text, size_t n, char terminator, unsigned threads, LineRefs& out,
                   size_t max_lines) {
  if (n == 0 || max_lines == 0) return 0;
  const size_t pieces = std::max<size_t>(1, std::min<size_t>(size_t(threads) * 4, n / kMinPieceBytes));
  std::vector<Piece> piece(pieces);
  parallel::parallel_for(pieces, threads, [&](size_t k) {
    const parallel::Range r = parallel::part_range(n, unsigned(pieces), unsigned(k));
    piece[k].count = count_in(text + r.begin, text + r.end, terminator, piece[k].last_end, text);
  });
  // Where each piece's first line starts, and where its lines go in `out` (the pieces
  // past max_lines cut short).
  std::vector<size_t> first_start(pieces), first_slot(pieces);
  size_t start = 0, slot = out.size(), taken = 0;
  for (size_t k = 0; k < pieces; ++k) {
    first_start[k] = start;
    first_slot[k] = slot;
    if (piece[k].count > max_lines - taken) piece[k].count = max_lines - taken;
    taken += piece[k].count;
    slot += piece[k].count;
    if (piece[k].count) start = piece[k].last_end;
  }
  const bool tail = start < n && taken < max_lines;  // bytes after the last terminator: a line without one
  out.resize(slot + (tail ? 1 : 0));
  parallel::parallel_for(pieces, threads, [&](size_t k) {
    const parallel::Range r = parallel::part_range(n, unsigned(pieces), unsigned(k));
    LineRef* o = out.data() + first_slot[k];
    size_t line_start = first_start[k];
    for (size_t i = 0; i < piece[k].count; ++i) {
      const char* q = static_cast<const char*>(std::memchr(text + std::max(line_start, r.begin), terminator,
                                                           r.end - std::max(line_start, r.begin)));
      o[i] = {text + line_start, uint64_t(q - text) - line_start};
      line_start = size_t(q - text) + 1;
    }
  });
  if (!tail) return taken ? size_t(out.back().data - text) + size_t(out.back().size) + 1 : 0;
  out.back() = {text + start, uint64_t(n - start)};
  return n;
}

uint64_t written_bytes(const LineRef* lines, size_t n, unsigned threads) {
  std::vector<uint64_t> part(std::max(1u, threads), 0);
  parallel::parallel_for_ranges(n, unsigned(part.size()), [&](size_t b, size_t e, unsigned p) {
    uint64_t bytes = e - b;
    for (size_t i = b; i < e; ++i) bytes += lines[i].size;
    part[p] = bytes;
  });
  uint64_t total = 0;
  for (const uint64_t bytes : part) total += bytes;
  return total;
}

}  // namespace gxsort::lines
