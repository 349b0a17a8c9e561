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
std::vector<std::string_view> choose_splitters(const std::vector<RunIndex>& indexes, const LineOrder& order,
                                               size_t parts) {
  std::vector<std::string_view> all;
  for (const RunIndex& index : indexes)
    for (const RunSample& s : index.samples) all.push_back(s.line);
  std::sort(all.begin(), all.end(),
            [&](std::string_view a, std::string_view b) { return compare_lines(order, a, b) < 0; });
  std::vector<std::string_view> chosen;
  for (size_t p = 1; p < parts && !all.empty(); ++p) {
    const std::string_view s = all[p * all.size() / parts];
    if (chosen.empty() || compare_lines(order, chosen.back(), s) < 0) chosen.push_back(s);
  }
  return chosen;
}

// Where `run` is cut by `splitter`: the offset of its first line after the splitter (its
// size when none). Its samples bound the block read: the cut is after the last sample
// not after the splitter, and not after the sample that follows it.
uint64_t find_cut(const io::TempFile& run, const RunIndex& index, std::string_view splitter,
                  const MergeSetup& setup) {
  const LineOrder& order = *setup.order;
  const auto& s = index.samples;
  const auto after = std::upper_bound(s.begin(), s.end(), splitter, [&](std::string_view v, const RunSample& x) {
    return compare_lines(order, v, x.line) < 0;
  });
  uint64_t at = after == s.begin() ? 0 : std::prev(after)->offset;
  const uint64_t to = after == s.end() ? index.bytes : after->offset;
  LineReader r(run.file(), run.path(), order.terminator, kCutBuffer, setup.max_line, at, to);
  while (r.next()) {
    if (compare_lines(order, r.line(), splitter) > 0) return at;
    at += r.line().size() + 1;  // every line of a run ends with its terminator
  }
  return to;
}

// cuts[p][r]: where part p of the output starts in run r (cuts[parts][r]: its size).
std::vector<std::vector<uint64_t>> find_cuts(const std::vector<io::TempFile>& runs,
                                             const std::vector<RunIndex>& indexes,
                                             const std::vector<std::string_view>& splitters,
                                             const MergeSetup& setup) {
  const size_t k = runs.size(), parts = splitters.size() + 1;
  std::vector<std::vector<uint64_t>> cuts(parts + 1, std::vector<uint64_t>(k, 0));
  for (size_t r = 0; r < k; ++r) cuts[parts][r] = indexes[r].bytes;
  parallel::parallel_for(splitters.size() * k, setup.threads, [&](size_t task) {
    const size_t p = task / k, r = task % k;
    cuts[p + 1][r] = find_cut(runs[r], indexes[r], splitters[p], setup);
  });
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

}  // namespace

MergeCounts merge_split(const std::vector<io::TempFile>& runs, const std::vector<RunIndex>& indexes,
                        const io::File& out, const MergeSetup& setup) {
  const unsigned threads = std::max(1u, setup.threads);
  const std::vector<std::string_view> splitters = choose_splitters(indexes, *setup.order, threads * kPartsPerThread);
  const auto cuts = find_cuts(runs, indexes, splitters, setup);
  const size_t k = runs.size(), parts = splitters.size() + 1;
  // The buffers of the one merge's readers and writer shared by the parts merged at once.
  const size_t buffer = std::max(setup.buffer_bytes / threads, kMinBuffer);
  SummedProgress progress(setup, parts);
  std::atomic<uint64_t> lines{0}, bytes{0};
  parallel::parallel_for(parts, threads, [&](size_t p) {
    std::vector<std::unique_ptr<LineReader>> readers;
    uint64_t offset = 0;  // the part's output starts after every run's bytes before it
    for (size_t r = 0; r < k; ++r) {
      const uint64_t b = cuts[p][r], e = cuts[p + 1][r];
      offset += b;
      if (e > b)  // ties go to the lower reader: the runs stay in order
        readers.push_back(std::make_unique<LineReader>(runs[r].file(), runs[r].path(), setup.order->terminator,
                                                       size_t(std::min<uint64_t>(buffer, e - b + 1)),
                                                       setup.max_line, b, e));
    }
    MergeSetup part = setup;
    part.progress = progress.part(p);
    LineWriter w(out, offset, setup.order->terminator, buffer, setup.cancel);
    const MergeCounts n = merge_lines_into(readers, w, part);
    lines += n.lines;
    bytes += n.bytes;
  });
  return {lines.load(), bytes.load(), parts};
}

}  // namespace gxsort::lines
