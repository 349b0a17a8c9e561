#include "lines/sort_in_memory.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "gxsort/timeline.hpp"
#include "lines/prefix.hpp"
#include "lines/stable_sort.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort::lines {
namespace {

// Groups this small are ordered by compare_lines at once; deeper prefixes of a stage stop
// here (bytes of its text), after which compare_lines finishes what is still tied.
constexpr size_t kSmallGroup = 16;
constexpr size_t kMaxDepth = 256;
// Groups this large go deeper through argsort (on every thread or the GPU), not alone
// on one thread.
constexpr size_t kLargeGroup = size_t(1) << 16;

// Flags of a line's prefix (stage_prefix): ANDed over a group, they say what all hold.
constexpr uint8_t kExhausted = 1, kExact = 2;

// A stable sort of a few elements without the buffer std::stable_sort allocates.
template <class Less>
void insertion_sort(uint64_t* v, size_t n, const Less& less) {
  for (size_t i = 1; i < n; ++i) {
    const uint64_t x = v[i];
    size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// Where prefixes are taken: a stage of the comparison and a depth in its text.
struct Level {
  size_t stage, depth;
};

uint8_t prefix_at(const LineOrder& order, const Level& at, std::string_view line, uint64_t& prefix) {
  bool exhausted, exact;
  prefix = stage_prefix(order, at.stage, line, at.depth, exhausted, exact);
  return uint8_t((exhausted ? kExhausted : 0) | (exact ? kExact : 0));
}

// What orders lines whose prefixes tie at a level: nothing (they are equal: exact at the
// last stage), compare_from(stage), or the prefixes at `next`: the next stage's when all
// are exact (equal at this stage), else deeper in this stage's text.
struct Then {
  enum { keep, compare, prefixes } what;
  Level next;
};

Then after_tie(const LineOrder& order, const Level& at, uint8_t flags) {
  if (flags & kExact) {
    if (at.stage + 1 == stage_count(order)) return {Then::keep, at};
    return {Then::prefixes, {at.stage + 1, 0}};
  }
  if ((flags & kExhausted) || !stage_goes_deeper(order, at.stage) || at.depth + 8 >= kMaxDepth)
    return {Then::compare, at};
  return {Then::prefixes, {at.stage, at.depth + 8}};
}

struct Deeper {
  uint64_t prefix, index;
  uint8_t flags;
};

class GroupSorter {
 public:
  GroupSorter(const LineRefs& lines, const LineOrder& order) : lines_(lines), order_(order) {}

  // Orders idx[0, n): line indices in ascending order whose prefixes agree up to `at`;
  // flags: those all of them hold there.
  void order(uint64_t* idx, size_t n, const Level& at, uint8_t flags) const {
    if (n < 2) return;
    const Then then = after_tie(order_, at, flags);
    if (then.what == Then::keep) return;
    if (then.what == Then::compare || n <= kSmallGroup) return by_compare(idx, n, then.next.stage);
    std::vector<Deeper> d(n);
    for (size_t j = 0; j < n; ++j) {
      d[j].index = idx[j];
      d[j].flags = prefix_at(order_, then.next, lines_[idx[j]].view(), d[j].prefix);
    }
    // (prefix, index): indices ascending within a prefix, so the order stays stable.
    std::sort(d.begin(), d.end(), [](const Deeper& a, const Deeper& b) {
      return a.prefix != b.prefix ? a.prefix < b.prefix : a.index < b.index;
    });
    for (size_t j = 0; j < n; ++j) idx[j] = d[j].index;
    for (size_t s = 0; s < n;) {
      size_t t = s + 1;
      uint8_t tied = d[s].flags;
      for (; t < n && d[t].prefix == d[s].prefix; ++t) tied &= d[t].flags;
      order(idx + s, t - s, then.next, tied);
      s = t;
    }
  }

  // A stable sort by compare_from(stage) (the lines are equal at the stages before) on
  // `threads` threads (a large group no prefix splits); a group already in order (equal
  // lines) is left as it is after one pass (a small one's insertion sort makes that pass
  // itself, and allocates nothing).
  void by_compare(uint64_t* idx, size_t n, size_t stage, unsigned threads = 1) const {
    auto less = [&](uint64_t a, uint64_t b) {
      return compare_from(order_, stage, lines_[a].view(), lines_[b].view()) < 0;
    };
    if (n <= kSmallGroup) return insertion_sort(idx, n, less);
    if (parallel_is_sorted(idx, n, threads, less)) return;
    parallel_stable_sort(idx, n, threads, less);
  }

 private:

  const LineRefs& lines_;
  const LineOrder& order_;
};

// What the parallel passes share.
struct Resolve {
  const LineRefs& lines;
  const LineOrder& order;
  const MemoryOptions& mo;
  const GroupSorter& sorter;
};

// The prefixes at `at` of the lines idx[0, n), and their flags.
void prefixes_at(const Resolve& r, const uint64_t* idx, size_t n, const Level& at, BigVector<uint64_t>& prefixes,
                 BigVector<uint8_t>& flags) {
  prefixes.resize(n);
  flags.resize(n);
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e; ++j) flags[j] = prefix_at(r.order, at, r.lines[idx[j]].view(), prefixes[j]);
  });
}

bool all_equal(const BigVector<uint64_t>& v, unsigned threads) {
  std::atomic<bool> equal{true};
  parallel::parallel_for_ranges(v.size(), threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e && equal.load(std::memory_order_relaxed); ++j)
      if (v[j] != v[0]) equal = false;
  });
  return equal;
}

struct Group {
  size_t start, size;
  uint8_t flags;
};

void resolve(const Resolve& r, uint64_t* idx, size_t n, const Level& at);
void order_large(const Resolve& r, const Group& g, uint64_t* idx, const Level& at);

// The groups of equal prefixes in sorted order (`sorted` holds them): each part of the
// positions orders the groups that start in it (a group may run past its end) unless
// the group is large: those are returned, for passes of their own on every thread.
std::vector<Group> order_groups(const Resolve& r, uint64_t* idx, const BigVector<uint64_t>& sorted,
                                const BigVector<uint8_t>& flags, const Level& at) {
  const size_t n = sorted.size();
  const unsigned parts = std::max(1u, r.mo.threads) * 8;  // tied groups vary in cost: more parts than threads
  std::vector<Group> large;
  std::mutex m;
  parallel::parallel_for(parts, r.mo.threads, [&](size_t part) {
    const auto [b, e] = parallel::part_range(n, parts, unsigned(part));
    size_t s = b;
    while (s < e && s > 0 && sorted[s] == sorted[s - 1]) ++s;  // the group there started in an earlier part
    while (s < e) {
      size_t t = s + 1;
      uint8_t tied = flags[s];
      for (; t < n && sorted[t] == sorted[s]; ++t) tied &= flags[t];
      if (t - s >= kLargeGroup) {
        std::lock_guard<std::mutex> l(m);
        large.push_back({s, t - s, tied});
      } else if (t - s > 1) {
        r.sorter.order(idx + s, t - s, at, tied);
      }
      s = t;
    }
  });
  return large;
}

// Orders idx[0, n) (line indices, ascending, whose prefixes agree before `at`) by their
// prefixes at `at` (argsort: on the GPU, or on every thread), then the lines those leave
// tied. A level where all are equal is skipped without a sort.
void resolve(const Resolve& r, uint64_t* idx, size_t n, const Level& at) {
  const bool first = at.stage == 0 && at.depth == 0;
  BigVector<uint64_t> prefixes;
  BigVector<uint8_t> flags;
  prefixes_at(r, idx, n, at, prefixes, flags);
  if (first) timeline(r.mo.context, "lines: prefixes made");
  if (all_equal(prefixes, r.mo.threads)) {
    uint8_t tied = kExhausted | kExact;
    for (const uint8_t f : flags) tied &= f;
    return order_large(r, {0, n, tied}, idx, at);
  }
  BigVector<uint64_t> perm(n);
  argsort(prefixes.data(), n, Format::typed(KeyType::u64), perm.data(), r.mo);
  throw_if_cancelled(r.mo.cancel);
  if (first) timeline(r.mo.context, "lines: prefixes sorted");
  // The indices, prefixes and flags in sorted order (perm becomes the indices).
  BigVector<uint64_t> sorted(n);
  BigVector<uint8_t> sorted_flags(n);
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e; ++j) {
      sorted[j] = prefixes[perm[j]];
      sorted_flags[j] = flags[perm[j]];
      perm[j] = idx[perm[j]];
    }
  });
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    std::copy(perm.begin() + long(b), perm.begin() + long(e), idx + b);
  });
  BigVector<uint64_t>().swap(prefixes);
  BigVector<uint64_t>().swap(perm);
  for (const Group& g : order_groups(r, idx, sorted, sorted_flags, at)) order_large(r, g, idx, at);
}

// A large group of lines whose prefixes agree up to `at`: the next prefixes sorted on
// every thread, or, where none says more, a stable sort by compare_from on every thread.
void order_large(const Resolve& r, const Group& g, uint64_t* idx, const Level& at) {
  const Then then = after_tie(r.order, at, g.flags);
  if (then.what == Then::keep) return;
  if (then.what == Then::compare) return r.sorter.by_compare(idx + g.start, g.size, at.stage, r.mo.threads);
  resolve(r, idx + g.start, g.size, then.next);
}

}  // namespace

Permutation sorted_permutation(const LineRefs& lines, const LineOrder& order,
                                         const MemoryOptions& mo) {
  Permutation idx(lines.size());
  parallel::parallel_for_ranges(idx.size(), mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i) idx[i] = i;
  });
  const GroupSorter sorter(lines, order);
  const Resolve r{lines, order, mo, sorter};
  if (!idx.empty()) resolve(r, idx.data(), idx.size(), Level{0, 0});
  timeline(mo.context, "lines: ties ordered");
  return idx;
}

KeepFlags unique_flags(const LineRefs& lines, const Permutation& perm,
                                  const LineOrder& order, unsigned threads) {
  KeepFlags keep(perm.size());
  parallel::parallel_for_ranges(perm.size(), threads, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i)
      keep[i] = i == 0 || compare_line_keys(order, lines[perm[i - 1]].view(), lines[perm[i]].view()) != 0;
  });
  return keep;
}

}  // namespace gxsort::lines
