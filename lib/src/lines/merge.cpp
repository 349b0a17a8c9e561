#include "lines/merge.hpp"

#include <algorithm>

#include "gxsort/error.hpp"
#include "lines/merge_split.hpp"
#include "lines/prefix.hpp"

namespace gxsort::lines {
namespace {

// A loser tree over the readers: node 0 holds the winner (the reader whose line comes
// next), nodes 1 .. k-1 the losers of their matches; reader i is leaf k + i. Matches
// compare the lines' 64-bit prefixes first, compare_lines only where they tie.
class LoserTree {
 public:
  LoserTree(std::vector<std::unique_ptr<LineReader>>& readers, const LineOrder& order)
      : readers_(readers), order_(order), k_(readers.size()), live_(k_), prefix_(k_), tree_(std::max<size_t>(k_, 1)) {
    for (size_t i = 0; i < k_; ++i) advance(i);
    if (k_) tree_[0] = build(1);
  }
  // The reader whose line is next, or -1 when every reader ended.
  long winner() const { return k_ && live_[tree_[0]] ? long(tree_[0]) : -1; }
  // The winner's reader moves on to its next line; its matches replayed.
  void replay() {
    size_t cur = tree_[0];
    advance(cur);
    for (size_t node = (cur + k_) / 2; node >= 1; node /= 2)
      if (beats(tree_[node], cur)) std::swap(tree_[node], cur);
    tree_[0] = cur;
  }

 private:
  size_t build(size_t node) {
    if (node >= k_) return node - k_;
    const size_t a = build(2 * node), b = build(2 * node + 1);
    const bool a_wins = beats(a, b);
    tree_[node] = a_wins ? b : a;
    return a_wins ? a : b;
  }
  // Whether reader a's line comes before reader b's: ended readers last, equal lines
  // in reader order.
  bool beats(size_t a, size_t b) const {
    if (!live_[a] || !live_[b]) return live_[a] && !live_[b] ? true : !live_[a] && !live_[b] ? a < b : false;
    if (prefix_[a] != prefix_[b]) return prefix_[a] < prefix_[b];  // prefix.hpp: they order the lines
    const int c = compare_lines(order_, readers_[a]->line(), readers_[b]->line());
    return c < 0 || (c == 0 && a < b);
  }
  // Reader i's next line, and its prefix (one per line read, not one per match).
  void advance(size_t i) {
    live_[i] = readers_[i]->next();
    bool exhausted;
    if (live_[i]) prefix_[i] = line_prefix(order_, readers_[i]->line(), 0, exhausted);
  }

  std::vector<std::unique_ptr<LineReader>>& readers_;
  const LineOrder& order_;
  size_t k_;
  std::vector<char> live_;
  std::vector<uint64_t> prefix_;  // each reader's line's prefix at depth 0
  std::vector<size_t> tree_;
};

// Lines between two progress reports of a merge.
constexpr uint64_t kReportLines = uint64_t(1) << 16;

uint64_t bytes_read(const std::vector<std::unique_ptr<LineReader>>& readers) {
  uint64_t read = 0;
  for (const auto& r : readers) read += r->bytes_read();
  return read;
}

void check_order(const LineReader& r, const LineOrder& order) {
  if (r.number() > 1 && compare_lines(order, r.previous(), r.line()) > 0)
    fail_usage(r.label() + ": not sorted at line " + std::to_string(r.number()));
}

}  // namespace

MergeCounts merge_lines_into(std::vector<std::unique_ptr<LineReader>>& readers, LineWriter& out,
                             const MergeSetup& setup) {
  const LineOrder& order = *setup.order;
  LoserTree tree(readers, order);
  MergeCounts n;
  std::string last_kept;  // -u: the keys of what follows are compared with it
  bool any = false;
  for (long w; (w = tree.winner()) >= 0;) {
    LineReader& r = *readers[size_t(w)];
    if (setup.check_sorted) check_order(r, order);
    const std::string_view line = r.line();
    if (!order.unique || !any || compare_line_keys(order, last_kept, line) != 0) {
      out.put(line);
      if (order.unique) last_kept.assign(line.data(), line.size());
      any = true;
      if (++n.lines % kReportLines == 0 && setup.progress) setup.progress(bytes_read(readers));
    }
    tree.replay();
  }
  out.flush();
  n.bytes = out.bytes();
  if (setup.progress) setup.progress(bytes_read(readers));
  return n;
}

namespace {

// Runs [b, e) merged into `out` from byte 0; the bytes read from inputs counted. A group
// of the merge's own temp files only is sorted: its order is not checked.
MergeCounts merge_group(std::vector<MergeRun>& runs, size_t b, size_t e, const io::File& out,
                        const MergeSetup& setup) {
  std::vector<std::unique_ptr<LineReader>> readers;
  MergeSetup group = setup;
  group.check_sorted = false;
  for (size_t i = b; i < e; ++i) {
    if (runs[i].block) {
      readers.push_back(std::make_unique<LineReader>(*runs[i].block, runs[i].label, 0, runs[i].block->size()));
      continue;
    }
    const std::string& label = runs[i].input ? runs[i].label : runs[i].temp.path();
    readers.push_back(std::make_unique<LineReader>(runs[i].file(), label, setup.order->terminator,
                                                   setup.buffer_bytes, setup.max_line));
    group.check_sorted |= setup.check_sorted && runs[i].input;
  }
  LineWriter w(out, 0, setup.order->terminator, setup.buffer_bytes, setup.cancel);
  MergeCounts n = merge_lines_into(readers, w, group);
  for (size_t i = b; i < e; ++i)
    if (runs[i].input) n.input_bytes += readers[i - b]->bytes_read();
  return n;
}

}  // namespace

// The passes before the last are not resumable (a killed sort forms their runs again);
// the last, split over the threads, is (merge_split.hpp: SplitKeeper).
size_t merge_passes(size_t runs, size_t fan_in) {
  fan_in = std::max<size_t>(fan_in, 2);
  size_t passes = 1;
  for (; runs > fan_in; ++passes) runs = (runs + fan_in - 1) / fan_in;
  return passes;
}

MergeCounts merge_runs(std::vector<io::TempFile> runs, const io::File& out, size_t fan_in,
                       const std::vector<std::string>& tmp_dirs, const Context& context, const MergeSetup& setup,
                       size_t& levels, const std::vector<RunIndex>& indexes, SplitKeeper* keeper,
                       const SortedLines* last) {
  fan_in = std::max<size_t>(fan_in, 2);
  const size_t count = runs.size() + (last ? 1 : 0);
  // -u's split merges twice (merge_split.hpp): worth it from 4 threads.
  if (indexes.size() == runs.size() && count <= fan_in && setup.threads >= (setup.order->unique ? 4u : 2u)) {
    levels = 1;
    return merge_split(runs, indexes, out, setup, keeper, last);
  }
  std::vector<MergeRun> owned(count);
  for (size_t i = 0; i < runs.size(); ++i) owned[i].temp = std::move(runs[i]);
  if (last) {
    owned.back().block = last;
    owned.back().label = "the last chunk";
  }
  return merge_inputs(std::move(owned), out, fan_in, tmp_dirs, context, setup, levels);
}

MergeCounts merge_inputs(std::vector<MergeRun> runs, const io::File& out, size_t fan_in,
                         const std::vector<std::string>& tmp_dirs, const Context& context, const MergeSetup& setup,
                         size_t& levels) {
  fan_in = std::max<size_t>(fan_in, 2);
  levels = merge_passes(runs.size(), fan_in);
  MergeSetup pass = setup;  // the passes before the last report no progress: the last merge's is the phase's
  pass.progress = nullptr;
  uint64_t input_bytes = 0;  // read by the passes before the last
  size_t next_dir = 0;
  while (runs.size() > fan_in) {
    std::vector<MergeRun> merged;
    for (size_t b = 0; b < runs.size(); b += fan_in) {
      throw_if_cancelled(setup.cancel);
      const size_t e = std::min(runs.size(), b + fan_in);
      if (e - b == 1) {
        merged.push_back(std::move(runs[b]));
        continue;
      }
      MergeRun t;
      t.temp = io::TempFile::create(context, tmp_dirs[next_dir++ % tmp_dirs.size()], "lines");
      input_bytes += merge_group(runs, b, e, t.temp.file(), pass).input_bytes;
      for (size_t i = b; i < e; ++i)
        if (!runs[i].input && !runs[i].block) runs[i].temp.remove();
      merged.push_back(std::move(t));
    }
    runs = std::move(merged);
  }
  MergeCounts n = merge_group(runs, 0, runs.size(), out, setup);
  n.input_bytes += input_bytes;
  return n;
}

}  // namespace gxsort::lines
