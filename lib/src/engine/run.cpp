#include "engine/run.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "gxsort/error.hpp"

namespace gxsort {

void read_records(const RunRef& run, size_t rs, uint64_t index, uint64_t count, unsigned char* dst) {
  if (count == 0) return;
  if (run.mem) std::memcpy(dst, run.mem + index * rs, count * rs);
  else run.file->read_at(dst, count * rs, run.offset + index * rs);
}

namespace {

// Reads records [first, first + count) of a file run into dst (around the page cache
// when `direct`), then drops those from record `drop_from` on from a discardable
// run: records before it belong to the slice before (a direct block's aligned start).
// Free of the cursor, so that it can run on the read-ahead pool.
void read_block(const RunRef& run, size_t rs, bool direct, uint64_t drop_from, unsigned char* dst, uint64_t first,
                uint64_t count) {
  const uint64_t offset = run.offset + first * rs;
  if (direct) run.file->read_direct_at(dst, count * rs, offset);
  else run.file->read_at(dst, count * rs, offset);
  // Our own temp run is never read here again: its pages are freed now, so the
  // output's pages reuse them (fresh memory is slow to touch on some VMs) and, once
  // punched, they are not written back later (ext4 and XFS first write a range that
  // is still dirty). A page shared with a neighbouring slice is kept, and so is, for a
  // cached run, the page straddling two blocks (about one page a block).
  const uint64_t from = std::max(first, drop_from);
  if (run.discardable && first + count > from) run.file->discard(run.offset + from * rs, (first + count - from) * rs);
}

}  // namespace

RunCursor::RunCursor(const Format& f, const RunRef& run, uint64_t begin, uint64_t end, size_t buffer_bytes,
                     parallel::BackgroundTasks* reads)
    : f_(&f), run_(&run), rs_(f.record_size), pos_(begin), begin_(begin), end_(end) {
  if (done()) return;
  if (!run.mem) {
    reads_ = reads;
    const uint64_t per_block = std::max<uint64_t>(reads ? buffer_bytes / 2 : buffer_bytes, rs_);
    // A direct block is whole units of lcm(record size, 4096) bytes: each starts on a
    // record and on a 4 KiB block of the file.
    const uint64_t unit = rs_ / std::gcd(rs_, io::kDirectBlock) * io::kDirectBlock;
    const uint64_t unit_records = unit / rs_;
    direct_ = run.direct && run.offset % io::kDirectBlock == 0 && per_block >= unit;
    next_first_ = direct_ ? begin / unit_records * unit_records : begin;
    // Never more than the slice: tiny inputs keep tiny buffers (a shorter block is the
    // slice's only one, so its length needs no alignment).
    block_records_ = std::min(direct_ ? per_block / unit * unit_records : per_block / rs_, end - next_first_);
  }
  load();
}

RunCursor::~RunCursor() {
  if (pending_.valid()) pending_.wait();  // the read writes into ahead_'s buffer
}

void RunCursor::load() {
  if (run_->mem) {
    cur_ = run_->mem + pos_ * rs_;
    ready_ = end_;
    prefix_ = key_prefix(*f_, cur_);
    return;
  }
  // pos_ is the slice's first record or the first record past the current block.
  if (pending_.valid()) {
    pending_.get();  // rethrows a failed read
    std::swap(block_, ahead_);
  } else {
    if (!block_.bytes.data()) block_.bytes = io::AlignedBuffer(size_t(block_records_) * rs_);
    block_.first = next_first_;
    block_.count = std::min(block_records_, end_ - next_first_);
    read_block(*run_, rs_, direct_, begin_, block_.bytes.data(), block_.first, block_.count);
  }
  next_first_ = block_.first + block_.count;
  if (reads_ && next_first_ < end_) {
    if (!ahead_.bytes.data()) ahead_.bytes = io::AlignedBuffer(size_t(block_records_) * rs_);
    ahead_.first = next_first_;
    ahead_.count = std::min(block_records_, end_ - next_first_);
    pending_ = reads_->submit([run = run_, rs = rs_, direct = direct_, begin = begin_, dst = ahead_.bytes.data(),
                               first = ahead_.first, count = ahead_.count] {
      read_block(*run, rs, direct, begin, dst, first, count);
    });
  }
  cur_ = block_.bytes.data() + (pos_ - block_.first) * rs_;
  ready_ = block_.first + block_.count;
  prefix_ = key_prefix(*f_, cur_);
}

LoserTree::LoserTree(const Format& f, std::vector<RunCursor>& cursors)
    : f_(f), cursors_(cursors), tail_(!f.key_fits_prefix()) {
  const size_t k = cursors.size();
  if (k == 0) return;
  std::vector<size_t> win(2 * k), loser(std::max<size_t>(k, 1));
  for (size_t i = 0; i < k; ++i) win[k + i] = i;
  for (size_t n = k - 1; n >= 1; --n) {
    const size_t a = win[2 * n], b = win[2 * n + 1];
    if (less(b, a)) { win[n] = b; loser[n] = a; }
    else { win[n] = a; loser[n] = b; }
  }
  winner_ = cursors[win[1]].done() ? k : win[1];
  if (tail_) {
    loser_ = std::move(loser);
  } else {
    entry_.resize(k);
    for (size_t n = 1; n < k; ++n) entry_[n] = entry(loser[n]);
  }
}

LoserTree::Entry LoserTree::entry(size_t i) const {
  const RunCursor& c = cursors_[i];
  const size_t k = cursors_.size();
  if (c.done()) return (Entry(~uint64_t(0)) << 64) | (k + i);
  return (Entry(c.prefix()) << 64) | i;
}

bool LoserTree::less(size_t a, size_t b) const {
  const RunCursor& ca = cursors_[a];
  const RunCursor& cb = cursors_[b];
  if (ca.done() || cb.done()) return !ca.done();  // an exhausted cursor loses to every live one
  if (ca.prefix() != cb.prefix()) return ca.prefix() < cb.prefix();
  if (tail_) {
    const int c = compare_key_tail(f_, ca.record(), cb.record());
    if (c != 0) return c < 0;
  }
  return a < b;  // stability: the earlier run wins ties
}

void LoserTree::pop_compared() {
  const size_t k = cursors_.size();
  size_t winner = winner_;
  cursors_[winner].next();
  for (size_t n = (winner + k) / 2; n >= 1; n /= 2)
    if (less(loser_[n], winner)) std::swap(loser_[n], winner);
  winner_ = cursors_[winner].done() ? k : winner;
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
