#include "lines/write_lines.hpp"

#include <algorithm>
#include <cstring>

#include "parallel/parallel_for.hpp"

namespace gxsort::lines {
namespace {

// The bytes part [b, e) of the sorted positions writes.
uint64_t part_bytes(const LineRefs& lines, const Permutation& perm,
                    const KeepFlags& keep, size_t b, size_t e) {
  uint64_t bytes = 0;
  for (size_t i = b; i < e; ++i)
    if (keep.empty() || keep[i]) bytes += lines[perm[i]].size + 1;
  return bytes;
}

// Part [b, e) of the sorted positions written through `w` (its first byte at `start` of
// the run), a line sampled into `samples` every `every` bytes while they take less than
// `budget` bytes.
void put_sampled(LineWriter& w, const LineRefs& lines, const Permutation& perm,
                 const KeepFlags& keep, size_t b, size_t e, uint64_t start, uint64_t every,
                 uint64_t budget, RunIndex& samples) {
  uint64_t next = 0, taken = 0;  // next: where (in the part) a line is sampled from
  for (size_t i = b; i < e; ++i) {
    if (!keep.empty() && !keep[i]) continue;
    const std::string_view line = lines[perm[i]].view();
    if (w.bytes() >= next && line.size() <= kMaxSampleLine && taken < budget) {
      samples.add(start + w.bytes(), line);
      taken += sample_bytes(line.size());
      next = w.bytes() + every;
    }
    w.put(line);
  }
}

}  // namespace

uint64_t write_sorted(const io::File& out, uint64_t offset, const LineRefs& lines,
                      const Permutation& perm, const KeepFlags& keep, char terminator,
                      unsigned threads, size_t buffer_bytes, RunIndex* index) {
  const unsigned parts = std::max(1u, threads);
  std::vector<uint64_t> at(parts + 1, 0);
  parallel::parallel_for_ranges(perm.size(), parts, [&](size_t b, size_t e, unsigned p) {
    at[p + 1] = part_bytes(lines, perm, keep, b, e);
  });
  for (unsigned p = 0; p < parts; ++p) at[p + 1] += at[p];
  std::vector<RunIndex> samples(index ? parts : 0);
  const uint64_t every = index ? sample_interval(at[parts], perm.size(), index->budget) : 0;
  parallel::parallel_for_ranges(perm.size(), parts, [&](size_t b, size_t e, unsigned p) {
    LineWriter w(out, offset + at[p], terminator, buffer_bytes, nullptr);
    if (index) {
      put_sampled(w, lines, perm, keep, b, e, at[p], every, index->budget / parts, samples[p]);
    } else {
      for (size_t i = b; i < e; ++i)
        if (keep.empty() || keep[i]) w.put(lines[perm[i]].view());
    }
    w.flush();
  });
  if (index) {
    index->bytes = at[parts];
    index->append(samples);
  }
  return at[parts];
}

LineWriter::LineWriter(const io::File& out, uint64_t offset, char terminator, size_t buffer_bytes,
                       const CancelToken* cancel)
    : out_(&out), offset_(offset), terminator_(terminator), cap_(std::max<size_t>(buffer_bytes, 4096)),
      buf_(new char[cap_]), cancel_(cancel) {}

LineWriter::LineWriter(char terminator, size_t buffer_bytes, const CancelToken* cancel)
    : out_(nullptr), offset_(0), terminator_(terminator), cap_(std::max<size_t>(buffer_bytes, 4096)),
      buf_(new char[cap_]), cancel_(cancel) {}

void LineWriter::flush() {
  throw_if_cancelled(cancel_);
  if (used_ == 0) return;
  if (out_) out_->write_at(buf_.get(), used_, offset_ + written_);
  if (sum_) sum_->update(buf_.get(), used_);
  written_ += used_;
  used_ = 0;
}

// A line that does not fit what is left of the buffer: the buffer written first; a line
// longer than the whole buffer goes straight to the file.
void LineWriter::put_slow(std::string_view line) {
  flush();
  if (line.size() + 1 <= cap_) return put(line);
  if (out_) {
    out_->write_at(line.data(), line.size(), offset_ + written_);
    out_->write_at(&terminator_, 1, offset_ + written_ + line.size());
  }
  if (sum_) {
    sum_->update(line.data(), line.size());
    sum_->update(&terminator_, 1);
  }
  written_ += line.size() + 1;
}

}  // namespace gxsort::lines
