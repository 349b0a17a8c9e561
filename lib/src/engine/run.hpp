// Sorted runs and the pieces that merge them: a run lives in memory or in a file;
// a cursor walks a slice of a run through a read buffer; a loser tree picks the
// next record of K cursors, stably (ties go to the earlier run).
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "gxsort/format.hpp"
#include "io/file.hpp"
#include "parallel/background_tasks.hpp"

namespace gxsort {

struct RunRef {
  const unsigned char* mem = nullptr;  // in-memory run, or
  const io::File* file = nullptr;      // a file holding the run from byte `offset` on
  uint64_t offset = 0;
  uint64_t records = 0;
  std::string name;                    // for messages (the file's path)
  bool discardable = false;            // our own temp file: consumed parts may be dropped
  bool direct = false;                 // written around the page cache: read around it too
};

// Copies records [index, index + count) of the run into dst.
void read_records(const RunRef& run, size_t record_size, uint64_t index, uint64_t count, unsigned char* dst);

// Walks records [begin, end) of a run. In-memory runs are read in place; file runs in
// blocks through `buffer_bytes` of buffer, a discardable run's records dropped from the
// file once read: a cursor is the last reader of its slice, because the merge computes
// every co-rank cut before any cursor starts (merge_runs). With `reads`, the buffer is
// two blocks and the next block is read on the pool while the merge walks the current
// one (else one block, read when it is needed). Blocks start on whole records, and for a
// direct run on whole 4 KiB blocks of the file too, so that they are read around the
// page cache (a direct run's first block may start up to lcm(record size, 4096) bytes
// before the slice; those records are read and skipped).
class RunCursor {
 public:
  RunCursor(const Format& f, const RunRef& run, uint64_t begin, uint64_t end, size_t buffer_bytes,
            parallel::BackgroundTasks* reads = nullptr);
  RunCursor(RunCursor&&) = default;
  ~RunCursor();  // waits for a read in flight
  bool done() const { return pos_ >= end_; }
  const unsigned char* record() const { return cur_; }
  uint64_t prefix() const { return prefix_; }
  uint64_t position() const { return pos_; }
  // Inline while the next record is in the buffer (the merge calls this per record).
  void next() {
    if (++pos_ < ready_) {
      cur_ += rs_;
      // A merge walks K buffers at once, too many streams for the hardware prefetcher:
      // without this, the first load of each cache line missed (a fifth of the merge).
      __builtin_prefetch(cur_ + 512);
      prefix_ = key_prefix(*f_, cur_);
    } else if (!done()) {
      load();
    }
  }
  const RunRef& run() const { return *run_; }

 private:
  // Records [first, first + count) of the run, in a buffer of block_records_ records.
  struct Block {
    io::AlignedBuffer bytes;
    uint64_t first = 0, count = 0;
  };
  void load();
  const Format* f_;
  const RunRef* run_;
  size_t rs_;
  uint64_t pos_, begin_, end_;
  uint64_t ready_ = 0;  // records before this position are at cur_ onwards without a load
  const unsigned char* cur_ = nullptr;
  uint64_t prefix_ = 0;
  // File runs.
  parallel::BackgroundTasks* reads_ = nullptr;
  bool direct_ = false;
  uint64_t block_records_ = 0;
  uint64_t next_first_ = 0;     // the first record of the block after the current one
  Block block_, ahead_;         // the current block; the next one, read on the pool
  std::future<void> pending_;   // the read of ahead_
};

// Tournament tree of losers over K cursors.
class LoserTree {
 public:
  LoserTree(const Format& f, std::vector<RunCursor>& cursors);
  bool done() const { return winner_ >= cursors_.size(); }
  RunCursor& top() { return cursors_[winner_]; }
  size_t top_index() const { return winner_; }
  // Advances the winning cursor and replays its path.
  void pop() {
    if (!tail_) pop_entries();
    else pop_compared();
  }

 private:
  // Keys that fit the prefix: every node holds its loser as one 128-bit entry, the
  // key prefix above a tag below. The tag is the cursor's index, or k + index once the
  // cursor is exhausted (its key then all ones), so one unsigned comparison of entries
  // orders live before exhausted, then by key, then the earlier run first (stability).
  // The replay is then a compare and two conditional moves per level: the outcome of
  // each comparison is a coin toss a branch predictor loses, and the 3-way test it
  // replaces (exhausted, key, run) made a long dependency chain (32 runs on one core of
  // the 2-core VM: 35 -> 12 ns per record).
  using Entry = unsigned __int128;
  Entry entry(size_t i) const;
  void pop_entries() {
    const size_t k = cursors_.size();
    const size_t w = winner_;
    cursors_[w].next();
    Entry v = entry(w);
    for (size_t n = (w + k) / 2; n >= 1; n /= 2) {
      const Entry o = entry_[n];
      const bool node_wins = o < v;
      entry_[n] = node_wins ? v : o;
      v = node_wins ? o : v;
    }
    const uint64_t tag = uint64_t(v);
    winner_ = tag < k ? size_t(tag) : k;
  }
  // Wide keys: equal prefixes compare the rest of the key through the cursors.
  void pop_compared();
  bool less(size_t a, size_t b) const;
  const Format& f_;
  std::vector<RunCursor>& cursors_;
  bool tail_;             // keys wider than the prefix
  size_t winner_ = 0;     // the winning cursor; cursors_.size() once every one is done
  std::vector<size_t> loser_;  // wide keys: loser_[1..k) are the nodes' losers
  std::vector<Entry> entry_;   // keys that fit the prefix: entry_[1..k) the nodes' losers
};

// For output rank r of the stable merge of `runs`, the number of records each run
// contributes to the first r (multi-sequence selection by co-rank bisection). `lower`,
// when given, is the split of a rank <= r (splits only grow with the rank): the search
// starts there and never reads a record before it.
std::vector<uint64_t> multiway_corank(const Format& f, const std::vector<RunRef>& runs, uint64_t r,
                                      const std::vector<uint64_t>* lower = nullptr);

}  // namespace gxsort
