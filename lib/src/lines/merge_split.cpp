#include "lines/merge_split.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "parallel/parallel_for.hpp"

namespace gxsort::lines {
namespace {

constexpr unsigned kPartsPerThread = 4;
constexpr size_t kCutBuffer = size_t(64) << 10;  // a reader's buffer while a cut is found
constexpr size_t kMinBuffer = size_t(4) << 10;

// Up to parts - 1 splitters, evenly spaced in the sorted samples of all runs, each
// after the one before it (equal samples give one splitter).
std::vector<std::string_view> choose_splitters(const std::vector<RunIndex>& indexes, const SortedLines* block,
                                               const LineOrder& order, size_t parts) {
  std::vector<std::string_view> all;
  for (const RunIndex& index : indexes)
    for (size_t i = 0; i < index.size(); ++i) all.push_back(index.line(i));
  if (block && block->size() > 0) {  // as many samples as a run's on average
    const size_t samples = std::max<size_t>(1, all.size() / std::max<size_t>(1, indexes.size()));
    for (size_t s = 0; s < samples; ++s) all.push_back(block->line(s * block->size() / samples));
  }
  std::sort(all.begin(), all.end(),
            [&](std::string_view a, std::string_view b) { return compare_lines(order, a, b) < 0; });
  std::vector<std::string_view> chosen;
  for (size_t p = 1; p < parts && !all.empty(); ++p) {
    const std::string_view s = all[p * all.size() / parts];
    if (chosen.empty() || compare_lines(order, chosen.back(), s) < 0) chosen.push_back(s);
  }
  return chosen;
}

// The first of n sorted lines (line_at(i)) after `splitter`: a binary search.
template <class LineAt>
size_t first_after(size_t n, std::string_view splitter, const LineOrder& order, const LineAt& line_at) {
  size_t after = 0;
  while (n > 0) {
    const size_t half = n / 2;
    if (compare_lines(order, splitter, line_at(after + half)) < 0) {
      n = half;
    } else {
      after += half + 1;
      n -= half + 1;
    }
  }
  return after;
}

// Where `run` is cut by `splitter`: the offset of its first line after the splitter (its
// size when none). Its samples bound the block read: the cut is after the last sample
// not after the splitter, and not after the sample that follows it.
uint64_t find_cut(const io::TempFile& run, const RunIndex& index, std::string_view splitter,
                  const MergeSetup& setup) {
  const LineOrder& order = *setup.order;
  const size_t after = first_after(index.size(), splitter, order, [&](size_t i) { return index.line(i); });
  uint64_t at = after == 0 ? 0 : index.offsets[after - 1];
  const uint64_t to = after == index.size() ? index.bytes : index.offsets[after];
  LineReader r(run.file(), run.path(), order.terminator, kCutBuffer, setup.max_line, at, to);
  while (r.next()) {
    if (compare_lines(order, r.line(), splitter) > 0) return at;
    at += r.line().size() + 1;  // every line of a run ends with its terminator
  }
  return to;
}

// Where the block is cut by `splitter`: its first sorted position after the splitter.
size_t find_block_cut(const SortedLines& block, std::string_view splitter, const LineOrder& order) {
  return first_after(block.size(), splitter, order, [&](size_t i) { return block.line(i); });
}

// The runs merged: the files (each with its index) and the block of lines sorted in
// memory after them (null: none).
struct SplitInputs {
  const std::vector<io::TempFile>& runs;
  const std::vector<RunIndex>& indexes;
  const SortedLines* block;
  size_t count() const { return runs.size() + (block ? 1 : 0); }
};

// at[p][r]: where part p of the output starts in run r (at[parts][r]: its size); the
// block's column (last) holds sorted positions, block_bytes[p] the bytes of its lines
// before cut p (without -u: part_offsets adds them up).
struct Cuts {
  CutTable at;
  std::vector<uint64_t> block_bytes;
  size_t parts() const { return at.size() - 1; }
};

// The bytes the block's kept lines take (each with its terminator) before each cut.
std::vector<uint64_t> block_bytes_before(const SortedLines& block, const Cuts& cuts, unsigned threads) {
  const size_t parts = cuts.parts(), column = cuts.at[0].size() - 1;
  std::vector<uint64_t> bytes(parts + 1, 0);
  parallel::parallel_for(parts, threads, [&](size_t p) {
    for (uint64_t i = cuts.at[p][column]; i < cuts.at[p + 1][column]; ++i)
      if (block.kept(size_t(i))) bytes[p + 1] += block.line(size_t(i)).size() + 1;
  });
  for (size_t p = 0; p < parts; ++p) bytes[p + 1] += bytes[p];
  return bytes;
}

Cuts find_cuts(const SplitInputs& in, const std::vector<std::string_view>& splitters, const MergeSetup& setup) {
  const size_t k = in.runs.size(), columns = in.count(), parts = splitters.size() + 1;
  Cuts cuts;
  cuts.at.assign(parts + 1, std::vector<uint64_t>(columns, 0));
  for (size_t r = 0; r < k; ++r) cuts.at[parts][r] = in.indexes[r].bytes;
  if (in.block) cuts.at[parts][k] = in.block->size();
  parallel::parallel_for(splitters.size() * columns, setup.threads, [&](size_t task) {
    const size_t p = task / columns, r = task % columns;
    cuts.at[p + 1][r] = r < k ? find_cut(in.runs[r], in.indexes[r], splitters[p], setup)
                              : find_block_cut(*in.block, splitters[p], *setup.order);
  });
  if (in.block && !setup.order->unique) cuts.block_bytes = block_bytes_before(*in.block, cuts, setup.threads);
  return cuts;
}

// Sums each part's bytes read into one count for setup.progress (parts report from
// several threads: one at a time).
class SummedProgress {
 public:
  SummedProgress(const MergeSetup& setup, size_t parts) : setup_(setup), seen_(parts, 0) {}
  std::function<void(uint64_t)> part(size_t p) {
    if (!setup_.progress) return nullptr;
    return [this, p](uint64_t read) {
      std::lock_guard<std::mutex> lock(mutex_);
      total_ += read - seen_[p];
      seen_[p] = read;
      setup_.progress(total_);
    };
  }

 private:
  const MergeSetup& setup_;
  std::mutex mutex_;
  uint64_t total_ = 0;
  std::vector<uint64_t> seen_;
};

// Part p's readers: its byte range of every run that has lines in it, in run order (ties
// go to the lower reader: the runs stay in order).
std::vector<std::unique_ptr<LineReader>> part_readers(const SplitInputs& in, const CutTable& cuts, size_t p,
                                                      size_t buffer, const MergeSetup& setup) {
  std::vector<std::unique_ptr<LineReader>> readers;
  const auto& runs = in.runs;
  for (size_t r = 0; r < runs.size(); ++r) {
    const uint64_t b = cuts[p][r], e = cuts[p + 1][r];
    if (e > b)
      readers.push_back(std::make_unique<LineReader>(runs[r].file(), runs[r].path(), setup.order->terminator,
                                                     size_t(std::min<uint64_t>(buffer, e - b + 1)),
                                                     setup.max_line, b, e));
  }
  const size_t k = runs.size();
  if (in.block && cuts[p + 1][k] > cuts[p][k])
    readers.push_back(std::make_unique<LineReader>(*in.block, "the last chunk", size_t(cuts[p][k]),
                                                   size_t(cuts[p + 1][k])));
  return readers;
}

// Where each part's output starts (and, last, the output's size). Without -u every line
// is written: a part starts after every run's bytes before it. With -u a part's size is
// known once merged: a first merge of the parts counts their bytes, writing nothing
// (the merge's work twice, on every thread, rather than once on one).
std::vector<uint64_t> part_offsets(const SplitInputs& in, const Cuts& cuts, size_t buffer,
                                   const MergeSetup& setup) {
  const size_t parts = cuts.parts();
  std::vector<uint64_t> at(parts + 1, 0);
  if (!setup.order->unique) {
    for (size_t p = 0; p <= parts; ++p) {
      for (size_t r = 0; r < in.runs.size(); ++r) at[p] += cuts.at[p][r];
      if (in.block) at[p] += cuts.block_bytes[p];
    }
    return at;
  }
  MergeSetup count = setup;
  count.progress = nullptr;
  parallel::parallel_for(parts, setup.threads, [&](size_t p) {
    auto readers = part_readers(in, cuts.at, p, buffer, setup);
    LineWriter w(setup.order->terminator, buffer, setup.cancel);
    at[p + 1] = merge_lines_into(readers, w, count).bytes;
  });
  for (size_t p = 0; p < parts; ++p) at[p + 1] += at[p];
  return at;
}

// The split of the runs and the block: the one a killed run of a resumable job made
// (`keeper`; the block, sorted again, is the same lines in the same order), else made from
// the runs' indexes and the block's lines (and given to the keeper: a resume merges by it
// again, since the indexes it rebuilds from the runs sample other lines).
Split split_runs(const SplitInputs& in, size_t buffer, const MergeSetup& setup, SplitKeeper* keeper) {
  Split split;
  split.files = in.runs.size();
  std::vector<uint64_t> sizes;
  for (const RunIndex& index : in.indexes) sizes.push_back(index.bytes);
  if (in.block) sizes.push_back(in.block->size());
  if (!keeper || !keeper->kept_split(sizes, split)) {
    const unsigned threads = std::max(1u, setup.threads);
    const std::vector<std::string_view> splitters =
        choose_splitters(in.indexes, in.block, *setup.order, threads * kPartsPerThread);
    Cuts cuts = find_cuts(in, splitters, setup);
    split.at = part_offsets(in, cuts, buffer, setup);
    split.cuts = std::move(cuts.at);
    if (keeper) keeper->keep_split(split);
  }
  return split;
}

}  // namespace

uint64_t part_input(const Split& split, size_t p) {
  uint64_t n = 0;
  for (size_t r = 0; r < split.files; ++r) n += split.cuts[p + 1][r] - split.cuts[p][r];
  return n;
}

MergeCounts merge_split(const std::vector<io::TempFile>& runs, const std::vector<RunIndex>& indexes,
                        const io::File& out, const MergeSetup& setup, SplitKeeper* keeper, const SortedLines* last) {
  const unsigned threads = std::max(1u, setup.threads);
  const SplitInputs in{runs, indexes, last};
  // The buffers of the one merge's readers and writer shared by the parts merged at once.
  const size_t buffer = std::max(setup.buffer_bytes / threads, kMinBuffer);
  const Split split = split_runs(in, buffer, setup, keeper);
  const size_t parts = split.parts();
  SummedProgress progress(setup, parts);
  std::atomic<uint64_t> lines{0}, bytes{0};
  parallel::parallel_for(parts, threads, [&](size_t p) {
    uint64_t kept_lines = 0;
    if (keeper && keeper->kept_part(p, split, out, kept_lines)) {  // written by a killed run
      if (const auto report = progress.part(p)) report(part_input(split, p));
      lines += kept_lines;
      bytes += split.at[p + 1] - split.at[p];
      return;
    }
    auto readers = part_readers(in, split.cuts, p, buffer, setup);
    MergeSetup part = setup;
    part.progress = progress.part(p);
    LineWriter w(out, split.at[p], setup.order->terminator, buffer, setup.cancel);
    if (keeper) w.hash_blocks();  // the part's checksum for the journal, as it is written
    const MergeCounts n = merge_lines_into(readers, w, part);
    if (keeper) keeper->keep_part(p, split, w.checksum(), n.lines);
    lines += n.lines;
    bytes += n.bytes;
  });
  return {lines.load(), bytes.load(), parts};
}

}  // namespace gxsort::lines
