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

// Groups this small are ordered by compare_lines at once; deeper prefixes stop here
// (bytes of the first key), after which compare_lines finishes what is still tied.
constexpr size_t kSmallGroup = 16;
constexpr size_t kMaxDepth = 256;
// Groups this large go deeper through argsort (on every thread or the GPU), not alone
// on one thread.
constexpr size_t kLargeGroup = size_t(1) << 16;

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

struct Deeper {
  uint64_t prefix, index;
  bool exhausted;
};

class GroupSorter {
 public:
  GroupSorter(const std::vector<LineRef>& lines, const LineOrder& order)
      : lines_(lines), order_(order), deeper_(prefix_goes_deeper(order)) {}

  // Orders idx[0, n): line indices in ascending order whose prefixes agree at every
  // depth below `depth` + 8; all_exhausted: no deeper prefix of any of them says more.
  void order(uint64_t* idx, size_t n, size_t depth, bool all_exhausted) const {
    if (n < 2) return;
    if (all_exhausted || !deeper_ || n <= kSmallGroup || depth >= kMaxDepth) return by_compare(idx, n);
    std::vector<Deeper> d(n);
    for (size_t j = 0; j < n; ++j) {
      d[j].index = idx[j];
      d[j].prefix = line_prefix(order_, lines_[idx[j]].view(), depth + 8, d[j].exhausted);
    }
    // (prefix, index): indices ascending within a prefix, so the order stays stable.
    std::sort(d.begin(), d.end(), [](const Deeper& a, const Deeper& b) {
      return a.prefix != b.prefix ? a.prefix < b.prefix : a.index < b.index;
    });
    for (size_t j = 0; j < n; ++j) idx[j] = d[j].index;
    for (size_t s = 0; s < n;) {
      size_t t = s + 1;
      bool exhausted = d[s].exhausted;
      for (; t < n && d[t].prefix == d[s].prefix; ++t) exhausted = exhausted && d[t].exhausted;
      order(idx + s, t - s, depth + 8, exhausted);
      s = t;
    }
  }

  // A stable sort by compare_lines on `threads` threads (a large group no prefix
  // splits); a group already in order (equal lines) is left as it is after one pass
  // (a small one's insertion sort makes that pass itself, and allocates nothing).
  void by_compare(uint64_t* idx, size_t n, unsigned threads = 1) const {
    auto less = [&](uint64_t a, uint64_t b) { return compare_lines(order_, lines_[a].view(), lines_[b].view()) < 0; };
    if (n <= kSmallGroup) return insertion_sort(idx, n, less);
    if (parallel_is_sorted(idx, n, threads, less)) return;
    parallel_stable_sort(idx, n, threads, less);
  }

 private:

  const std::vector<LineRef>& lines_;
  const LineOrder& order_;
  bool deeper_;
};

// What the parallel passes share.
struct Resolve {
  const std::vector<LineRef>& lines;
  const LineOrder& order;
  const MemoryOptions& mo;
  const GroupSorter& sorter;
  bool deeper;
};

// The prefixes at `depth` of the lines idx[0, n), and whether each is exhausted there.
void prefixes_at(const Resolve& r, const uint64_t* idx, size_t n, size_t depth, std::vector<uint64_t>& prefixes,
                 std::vector<uint8_t>& exhausted) {
  prefixes.resize(n);
  exhausted.resize(n);
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e; ++j) {
      bool ex;
      prefixes[j] = line_prefix(r.order, r.lines[idx[j]].view(), depth, ex);
      exhausted[j] = ex;
    }
  });
}

bool all_equal(const std::vector<uint64_t>& v, unsigned threads) {
  std::atomic<bool> equal{true};
  parallel::parallel_for_ranges(v.size(), threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e && equal.load(std::memory_order_relaxed); ++j)
      if (v[j] != v[0]) equal = false;
  });
  return equal;
}

struct Group {
  size_t start, size;
  bool exhausted;
};

void resolve(const Resolve& r, uint64_t* idx, size_t n, size_t depth);
void order_large(const Resolve& r, const Group& g, uint64_t* idx, size_t depth);

// The groups of equal prefixes in sorted order (`sorted` holds them): each part of the
// positions orders the groups that start in it (a group may run past its end) unless
// the group is large: those are returned, for passes of their own on every thread.
std::vector<Group> order_groups(const Resolve& r, uint64_t* idx, const std::vector<uint64_t>& sorted,
                                const std::vector<uint8_t>& exhausted, size_t depth) {
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
      bool ex = exhausted[s];
      for (; t < n && sorted[t] == sorted[s]; ++t) ex = ex && exhausted[t];
      if (t - s >= kLargeGroup) {
        std::lock_guard<std::mutex> l(m);
        large.push_back({s, t - s, ex});
      } else if (t - s > 1) {
        r.sorter.order(idx + s, t - s, depth, ex);
      }
      s = t;
    }
  });
  return large;
}

// Orders idx[0, n) (line indices, ascending, whose prefixes agree below `depth`) by
// their prefixes at `depth` (argsort: on the GPU, or on every thread), then the lines
// those leave tied. A depth where all are equal is skipped without a sort.
void resolve(const Resolve& r, uint64_t* idx, size_t n, size_t depth) {
  std::vector<uint64_t> prefixes;
  std::vector<uint8_t> exhausted;
  prefixes_at(r, idx, n, depth, prefixes, exhausted);
  if (depth == 0) timeline(r.mo.context, "lines: prefixes made");
  if (all_equal(prefixes, r.mo.threads)) {
    const bool ex = std::all_of(exhausted.begin(), exhausted.end(), [](uint8_t e) { return e != 0; });
    return order_large(r, {0, n, ex}, idx, depth);
  }
  std::vector<uint64_t> perm(n);
  argsort(prefixes.data(), n, Format::typed(KeyType::u64), perm.data(), r.mo);
  throw_if_cancelled(r.mo.cancel);
  if (depth == 0) timeline(r.mo.context, "lines: prefixes sorted");
  // The indices, prefixes and exhaustion in sorted order (perm becomes the indices).
  std::vector<uint64_t> sorted(n);
  std::vector<uint8_t> sorted_exhausted(n);
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t j = b; j < e; ++j) {
      sorted[j] = prefixes[perm[j]];
      sorted_exhausted[j] = exhausted[perm[j]];
      perm[j] = idx[perm[j]];
    }
  });
  parallel::parallel_for_ranges(n, r.mo.threads, [&](size_t b, size_t e, unsigned) {
    std::copy(perm.begin() + long(b), perm.begin() + long(e), idx + b);
  });
  std::vector<uint64_t>().swap(prefixes);
  std::vector<uint64_t>().swap(perm);
  for (const Group& g : order_groups(r, idx, sorted, sorted_exhausted, depth)) order_large(r, g, idx, depth);
}

// A large group of lines whose prefixes agree at `depth`: deeper prefixes sorted on
// every thread, or, where none says more, a stable sort by compare_lines on every thread.
void order_large(const Resolve& r, const Group& g, uint64_t* idx, size_t depth) {
  if (g.exhausted || !r.deeper || depth + 8 >= kMaxDepth) return r.sorter.by_compare(idx + g.start, g.size, r.mo.threads);
  resolve(r, idx + g.start, g.size, depth + 8);
}

}  // namespace

std::vector<uint64_t> sorted_permutation(const std::vector<LineRef>& lines, const LineOrder& order,
                                         const MemoryOptions& mo) {
  std::vector<uint64_t> idx(lines.size());
  parallel::parallel_for_ranges(idx.size(), mo.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i) idx[i] = i;
  });
  const GroupSorter sorter(lines, order);
  const Resolve r{lines, order, mo, sorter, prefix_goes_deeper(order)};
  if (!idx.empty()) resolve(r, idx.data(), idx.size(), 0);
  timeline(mo.context, "lines: ties ordered");
  return idx;
}

std::vector<uint8_t> unique_flags(const std::vector<LineRef>& lines, const std::vector<uint64_t>& perm,
                                  const LineOrder& order, unsigned threads) {
  std::vector<uint8_t> keep(perm.size());
  parallel::parallel_for_ranges(perm.size(), threads, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i)
      keep[i] = i == 0 || compare_line_keys(order, lines[perm[i - 1]].view(), lines[perm[i]].view()) != 0;
  });
  return keep;
}

}  // namespace gxsort::lines
