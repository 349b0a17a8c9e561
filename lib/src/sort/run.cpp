#include "sort/run.hpp"

#include <algorithm>
#include <cstring>

#include "gxsort/error.hpp"

namespace gxsort {

void read_records(const RunRef& run, size_t rs, uint64_t index, uint64_t count, unsigned char* dst) {
  if (count == 0) return;
  if (run.mem) std::memcpy(dst, run.mem + index * rs, count * rs);
  else run.file->read_at(dst, count * rs, run.offset + index * rs);
}

RunCursor::RunCursor(const Format& f, const RunRef& run, uint64_t begin, uint64_t end, size_t buffer_bytes)
    : f_(&f), run_(&run), rs_(f.record_size), pos_(begin), end_(end) {
  // The buffer never exceeds the slice it walks: tiny inputs keep tiny buffers.
  const uint64_t want = std::max<uint64_t>(1, std::min<uint64_t>(buffer_bytes / f.record_size, end > begin ? end - begin : 1));
  if (!run.mem) buf_.resize(size_t(want) * f.record_size);
  if (!done()) load();
}

void RunCursor::load() {
  const size_t rs = f_->record_size;
  if (run_->mem) {
    cur_ = run_->mem + pos_ * rs;
    ready_ = end_;
  } else {
    if (pos_ < buf_first_ || pos_ >= buf_first_ + buf_count_) {
      buf_first_ = pos_;
      buf_count_ = std::min<uint64_t>(buf_.size() / rs, end_ - pos_);
      read_records(*run_, rs, buf_first_, buf_count_, buf_.data());
      // Our own temp run is never read here again: its pages are freed now, so the
      // output's pages reuse them (fresh memory is slow to touch on some VMs) and, once
      // punched, they are not written back later (ext4 and XFS first write a range that
      // is still dirty). A page shared with a neighbouring slice is kept, and so is the
      // page straddling two refills (about one page a buffer).
      if (run_->discardable && run_->file) run_->file->discard(run_->offset + buf_first_ * rs, buf_count_ * rs);
    }
    cur_ = buf_.data() + (pos_ - buf_first_) * rs;
    ready_ = buf_first_ + buf_count_;
  }
  prefix_ = key_prefix(*f_, cur_);
}

LoserTree::LoserTree(const Format& f, std::vector<RunCursor>& cursors)
    : f_(f), cursors_(cursors), key_(cursors.size()), done_(cursors.size()), tail_(!f.key_fits_prefix()) {
  const int k = int(cursors.size());
  tree_.assign(size_t(std::max(k, 1)), 0);
  if (k == 0) return;
  for (int i = 0; i < k; ++i) cache(i);
  std::vector<int> win(size_t(2 * k));
  for (int i = 0; i < k; ++i) win[size_t(k + i)] = i;
  for (int n = k - 1; n >= 1; --n) {
    int a = win[size_t(2 * n)], b = win[size_t(2 * n + 1)];
    if (less(b, a)) { win[size_t(n)] = b; tree_[size_t(n)] = a; }
    else { win[size_t(n)] = a; tree_[size_t(n)] = b; }
  }
  tree_[0] = win[1];
  if (!tail_) {
    node_.resize(size_t(k));
    for (int n = 1; n < k; ++n) {
      const int l = tree_[size_t(n)];
      node_[size_t(n)] = Node{key_[size_t(l)], uint32_t(l), done_[size_t(l)]};
    }
  }
}

void LoserTree::cache(int i) {
  const RunCursor& c = cursors_[size_t(i)];
  done_[size_t(i)] = c.done();
  key_[size_t(i)] = c.done() ? 0 : c.prefix();
}

bool LoserTree::less(int a, int b) const {
  const bool da = done_[size_t(a)], db = done_[size_t(b)];
  if (da || db) return !da;  // an exhausted cursor loses to every live one
  const uint64_t ka = key_[size_t(a)], kb = key_[size_t(b)];
  if (ka != kb) return ka < kb;
  if (tail_) {
    int c = compare_key_tail(f_, cursors_[size_t(a)].record(), cursors_[size_t(b)].record());
    if (c != 0) return c < 0;
  }
  return a < b;  // stability: the earlier run wins ties
}

void LoserTree::pop() {
  const int k = int(cursors_.size());
  int winner = tree_[0];
  RunCursor& c = cursors_[size_t(winner)];
  c.next();
  if (!tail_) {
    // The replay selects with masks, not branches (the outcome of each comparison is a
    // coin toss the branch predictor loses). Order: live before exhausted, then key,
    // then the earlier run (stability).
    uint32_t dw = c.done(), iw = uint32_t(winner);
    uint64_t kw = dw ? 0 : c.prefix();
    for (int n = (winner + k) / 2; n >= 1; n /= 2) {
      Node& o = node_[size_t(n)];
      const uint64_t ko = o.key;
      const uint32_t dO = o.done, io = o.idx;
      const uint64_t sw = uint64_t((dO < dw) | ((dO == dw) & ((ko < kw) | ((ko == kw) & (io < iw)))));
      const uint64_t m = uint64_t(0) - sw;  // all ones when the node's loser wins
      const uint64_t dk = (ko ^ kw) & m;
      const uint32_t di = (io ^ iw) & uint32_t(m), dd = (dO ^ dw) & uint32_t(m);
      o.key = ko ^ dk;
      o.idx = io ^ di;
      o.done = dO ^ dd;
      kw ^= dk;
      iw ^= di;
      dw ^= dd;
    }
    tree_[0] = int(iw);
    return;
  }
  cache(winner);
  for (int n = (winner + k) / 2; n >= 1; n /= 2) {
    if (less(tree_[size_t(n)], winner)) std::swap(tree_[size_t(n)], winner);
  }
  tree_[0] = winner;
}

namespace {

// Reads single records for the co-rank searches.
struct Probe {
  const Format& f;
  std::vector<unsigned char> a, b;
  explicit Probe(const Format& fmt) : f(fmt), a(fmt.record_size), b(fmt.record_size) {}
  const unsigned char* at(const RunRef& run, uint64_t i, std::vector<unsigned char>& buf) {
    if (run.mem) return run.mem + i * f.record_size;
    read_records(run, f.record_size, i, 1, buf.data());
    return buf.data();
  }
};

}  // namespace

std::vector<uint64_t> multiway_corank(const Format& f, const std::vector<RunRef>& runs, uint64_t r,
                                      const std::vector<uint64_t>* lower) {
  const size_t k = runs.size();
  std::vector<uint64_t> lo(k, 0), hi(k);
  uint64_t total = 0, below = 0;
  for (size_t i = 0; i < k; ++i) {
    if (lower) { lo[i] = (*lower)[i]; below += lo[i]; }
    total += runs[i].records;
  }
  // No run gives more than the r - (records below the lower split) it could still give.
  for (size_t i = 0; i < k; ++i) hi[i] = std::min(runs[i].records, lo[i] + (r > below ? r - below : 0));
  if (r >= total) { for (size_t i = 0; i < k; ++i) lo[i] = runs[i].records; return lo; }
  Probe probe(f);
  // Invariant: the true split s satisfies lo <= s <= hi in every run. Each step takes
  // the middle record x of the widest range and counts, in every run, the records that
  // precede x in the stable merge order (run i < j: keys <= x; run i > j: keys < x).
  while (true) {
    size_t j = k;
    uint64_t widest = 0;
    for (size_t i = 0; i < k; ++i)
      if (hi[i] - lo[i] > widest) { widest = hi[i] - lo[i]; j = i; }
    if (j == k) break;
    uint64_t p = lo[j] + (hi[j] - lo[j]) / 2;
    const unsigned char* xp = probe.at(runs[j], p, probe.a);
    std::vector<unsigned char> xbuf(xp, xp + f.record_size);
    const unsigned char* x = xbuf.data();
    std::vector<uint64_t> cnt(k);
    uint64_t rank = 0;
    for (size_t i = 0; i < k; ++i) {
      if (i == j) { cnt[i] = p; rank += p; continue; }
      // The count of run i's records that precede x, clamped to [lo, hi]: by the
      // invariant the clamp changes nothing below, so the search can stay in range.
      uint64_t a = lo[i], b = hi[i];
      while (a < b) {
        uint64_t m = a + (b - a) / 2;
        int c = compare_keys(f, probe.at(runs[i], m, probe.b), x);
        bool before = i < j ? c <= 0 : c < 0;
        if (before) a = m + 1; else b = m;
      }
      cnt[i] = a;
      rank += a;
    }
    if (rank < r) {  // x is among the first r records
      for (size_t i = 0; i < k; ++i) lo[i] = std::max(lo[i], cnt[i]);
      lo[j] = std::max(lo[j], p + 1);
    } else {
      for (size_t i = 0; i < k; ++i) hi[i] = std::min(hi[i], cnt[i]);
      hi[j] = std::min(hi[j], p);
    }
  }
  return lo;
}

}  // namespace gxsort
