#include "lines/sort_in_memory.hpp"

#include <algorithm>

#include "lines/prefix.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort::lines {
namespace {

// Groups this small are ordered by compare_lines at once; deeper prefixes stop here
// (bytes of the first key), after which compare_lines finishes what is still tied.
constexpr size_t kSmallGroup = 16;
constexpr size_t kMaxDepth = 256;

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

  // A group at depth 0 as argsort left it (indices ascending): its exhaustion first.
  void order_top(uint64_t* idx, size_t n) const {
    bool exhausted = true;
    for (size_t j = 0; j < n && exhausted; ++j) line_prefix(order_, lines_[idx[j]].view(), 0, exhausted);
    order(idx, n, 0, exhausted);
  }

 private:
  // A stable sort by compare_lines; a group already in order (equal lines) is left as
  // it is after one pass, not sorted.
  void by_compare(uint64_t* idx, size_t n) const {
    auto less = [&](uint64_t a, uint64_t b) { return compare_lines(order_, lines_[a].view(), lines_[b].view()) < 0; };
    if (std::is_sorted(idx, idx + n, less)) return;
    std::stable_sort(idx, idx + n, less);
  }

  const std::vector<LineRef>& lines_;
  const LineOrder& order_;
  bool deeper_;
};

std::vector<uint64_t> depth0_prefixes(const std::vector<LineRef>& lines, const LineOrder& order, unsigned threads) {
  std::vector<uint64_t> prefixes(lines.size());
  parallel::parallel_for_ranges(lines.size(), threads, [&](size_t b, size_t e, unsigned) {
    bool exhausted;
    for (size_t i = b; i < e; ++i) prefixes[i] = line_prefix(order, lines[i].view(), 0, exhausted);
  });
  return prefixes;
}

}  // namespace

std::vector<uint64_t> sorted_permutation(const std::vector<LineRef>& lines, const LineOrder& order,
                                         const MemoryOptions& mo) {
  const size_t n = lines.size();
  std::vector<uint64_t> perm(n);
  if (n == 0) return perm;
  std::vector<uint64_t> prefixes = depth0_prefixes(lines, order, mo.threads);
  argsort(prefixes.data(), n, Format::typed(KeyType::u64), perm.data(), mo);
  // The groups of equal prefixes: each part of the positions orders the groups that
  // start in it (a group may run past its end).
  const GroupSorter sorter(lines, order);
  const unsigned parts = std::max(1u, mo.threads) * 8;  // tied groups vary in cost: more parts than threads
  auto same = [&](size_t i) { return prefixes[perm[i]] == prefixes[perm[i - 1]]; };
  parallel::parallel_for(parts, mo.threads, [&](size_t part) {
    const auto [b, e] = parallel::part_range(n, parts, unsigned(part));
    size_t s = b;
    while (s < e && s > 0 && same(s)) ++s;  // the group there started in an earlier part
    while (s < e) {
      size_t t = s + 1;
      while (t < n && same(t)) ++t;
      if (t - s > 1) sorter.order_top(perm.data() + s, t - s);
      s = t;
    }
  });
  return perm;
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
