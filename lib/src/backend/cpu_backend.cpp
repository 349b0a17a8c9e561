// The CPU backend: parallel stable radix sorts on transformed keys.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "graph/graph.hpp"
#include "gxsort/error.hpp"
#include "io/file.hpp"
#include "parallel/parallel_for.hpp"
#include "platform/sizes.hpp"
#include "kernels/key_bitmap.hpp"
#include "kernels/radix_sort.hpp"

namespace gxsort {
namespace {

void free_aligned(unsigned char* p) { std::free(p); }

// Flat key files: the radix sort transforms the keys on the way in and out. `scratch`:
// n keys it may overwrite (src itself will do), or null.
template <class K>
void sort_flat_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n, unsigned threads,
                    unsigned char* scratch, const SortedRange& sorted, const PassHook& between_passes) {
  KeyOrder<K> order;
  order.type = f.key_type;
  order.reverse = f.reverse;
  radix_sort_copy<K>(reinterpret_cast<const K*>(src), reinterpret_cast<K*>(dst), n, order, threads,
                     reinterpret_cast<K*>(scratch), sorted, kMsdBucketKeys, between_passes);
}

void sort_flat_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n, unsigned threads,
                    unsigned char* scratch, const SortedRange& sorted, const PassHook& between_passes) {
  if (f.key_bytes == 4) sort_flat_into<uint32_t>(f, src, dst, n, threads, scratch, sorted, between_passes);
  else sort_flat_into<uint64_t>(f, src, dst, n, threads, scratch, sorted, between_passes);
}

// Bytes of the (key prefix, index) pairs and their ping-pong copies that sorting n
// records needs.
size_t pair_bytes(size_t n) { return n * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t)); }

// In place: the sorted copy goes to scratch, then back (with the pairs of a record sort).
size_t cpu_sort_scratch_bytes(const Format& f, size_t n) { return n * f.record_size + (f.flat() ? 0 : pair_bytes(n)); }

// A record and its share of `scratch(probe)` bytes of sort scratch for `probe` records.
size_t per_record(const Format& f, size_t probe, size_t scratch) { return f.record_size + (scratch + probe - 1) / probe; }
constexpr size_t kScratchProbe = 1 << 20;  // scratch is linear in n: measured once at this n

// Groups of tied prefixes at most this large finish on std::stable_sort of the key tail;
// larger ones (a composite key whose first fields take few values) LSD on its segments.
constexpr size_t kSmallTie = 256;

// Sorts the tied records [b, e) (equal prefixes, in input order) stably by the rest of
// the key, through idx: small groups by a stable sort of private copies of their later
// key segments, larger ones by a stable radix sort of each later 8-byte segment, last
// first, with keys/ktmp/itmp [b, e) as scratch (keys [b, e) hold the prefix again after).
// Only private copies are compared: comparisons that read src itself could disagree
// with each other where src changes (a mapped input another process writes), and
// std::stable_sort's insertion sort would then run past the group's start.
void sort_tied(const Format& f, const unsigned char* src, uint64_t* keys, uint32_t* idx, uint64_t* ktmp, uint32_t* itmp,
               size_t b, size_t e, unsigned threads) {
  const size_t rs = f.record_size, m = e - b;
  if (m <= kSmallTie) {
    const size_t segs = f.key_segments() - 1;
    // process-wide: a thread's scratch, kept for its next group; no call's data is read from it.
    thread_local std::vector<uint64_t> tail;
    thread_local std::vector<uint32_t> order, ids;
    tail.resize(m * segs);
    order.resize(m);
    ids.assign(idx + b, idx + e);
    for (size_t j = 0; j < m; ++j) {
      for (size_t s = 0; s < segs; ++s) tail[j * segs + s] = key_segment(f, src + size_t(ids[j]) * rs, s + 1);
      order[j] = uint32_t(j);
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const uint64_t* a = tail.data() + x * segs;
      const uint64_t* c = tail.data() + y * segs;
      return std::lexicographical_compare(a, a + segs, c, c + segs);
    });
    for (size_t j = 0; j < m; ++j) idx[b + j] = ids[order[j]];
    return;
  }
  const uint64_t prefix = keys[b];
  for (size_t s = f.key_segments(); s-- > 1;) {
    parallel::parallel_for_ranges(m, threads, [&](size_t x, size_t y, unsigned) {
      for (size_t i = b + x; i < b + y; ++i) keys[i] = key_segment(f, src + size_t(idx[i]) * rs, s);
    });
    radix_sort_pairs<uint64_t>(keys + b, idx + b, ktmp + b, itmp + b, m, threads);
  }
  std::fill(keys + b, keys + e, prefix);
}

// Keys wider than 8 bytes, after the radix sort of their prefixes: every group of equal
// prefixes (left in input order) is sorted on the rest of the key. Each thread takes
// the groups that start in its part of the range; groups too large to share out are
// sorted after, by all threads. `keys` keeps the sorted prefixes.
void finish_ties(const Format& f, const unsigned char* src, uint64_t* keys, uint32_t* idx, uint64_t* ktmp,
                 uint32_t* itmp, size_t n, unsigned threads) {
  std::vector<size_t> start(threads + 1, n);  // part p: the groups starting in [start[p], start[p + 1])
  for (unsigned p = 0; p < threads; ++p) {
    size_t s = parallel::part_range(n, threads, p).begin;
    while (s > 0 && s < n && keys[s] == keys[s - 1]) ++s;
    start[p] = std::max(s, p ? start[p - 1] : 0);
  }
  const size_t big = threads > 1 ? n / (2 * threads) : n + 1;
  std::vector<std::vector<std::pair<size_t, size_t>>> large(threads);
  parallel::parallel_for(threads, threads, [&](size_t p) {
    for (size_t b = start[p], e; b < start[p + 1]; b = e) {
      for (e = b + 1; e < start[p + 1] && keys[e] == keys[b];) ++e;
      if (e - b > big) large[p].push_back({b, e});
      else if (e - b > 1) sort_tied(f, src, keys, idx, ktmp, itmp, b, e, 1);
    }
  });
  for (const auto& part : large)
    for (const auto& g : part) sort_tied(f, src, keys, idx, ktmp, itmp, g.first, g.second, threads);
}

// Copies the records of src that idx [b, e) names into dst [b, e), in that order, and
// says whether each copy has the key it was sorted by: its prefix keys[i], and with
// Tails (keys wider than the prefix) a tail not below the one of the record before it in
// [b, e) where their prefixes tie. Records that fail it changed since their keys were
// read (src is a mapping that another process writes).
// The copies go in groups of kGatherGroup records, each group checked once it is
// copied (in cache): a check right behind each copy waits for that copy's cache miss and
// keeps the next records' misses from overlapping it (gensort records, 1 thread: the
// gather took 1.7x as long).
constexpr size_t kGatherGroup = 64;
template <bool Tails>
bool gather_checked(const Format& f, const unsigned char* src, unsigned char* dst, const uint64_t* keys,
                    const uint32_t* idx, size_t b, size_t e) {
  const size_t rs = f.record_size;
  bool bad = false;
  for (size_t g = b; g < e; g += kGatherGroup) {
    const size_t ge = std::min(e, g + kGatherGroup);
    for (size_t i = g; i < ge; ++i) std::memcpy(dst + i * rs, src + size_t(idx[i]) * rs, rs);
    for (size_t i = g; i < ge; ++i) {
      const unsigned char* r = dst + i * rs;
      bad |= key_prefix(f, r) != keys[i];
      if constexpr (Tails)
        if (i > b && keys[i] == keys[i - 1]) bad |= compare_key_tail(f, r - rs, r) > 0;
    }
  }
  return !bad;
}

// Records: sort (key prefix, record index) pairs, finish ties of wide keys on the
// rest of the key, then gather the records of src into dst in that order. src is read
// twice, keys then gather: where it changed in between (a mapped input that another
// process writes), the gather's check finds records out of order and SourceChanged
// is thrown; every other read goes to private memory, so a change cannot misdirect a
// write.
void sort_records_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                       unsigned char* pairs, unsigned threads, const SortedRange& sorted,
                       const PassHook& between_passes) {
  const size_t rs = f.record_size;
  auto* keys = reinterpret_cast<uint64_t*>(pairs);
  auto* ktmp = keys + n;
  auto* idx = reinterpret_cast<uint32_t*>(ktmp + n);
  auto* itmp = idx + n;
  // Key extraction and the gather run over pieces on every thread (they touch the
  // whole data; one thread would leave the other cores idle).
  const size_t piece = std::max<size_t>(1, (size_t(16) << 20) / rs);
  const size_t pieces = (n + piece - 1) / piece;
  parallel::parallel_for(pieces, threads, [&](size_t p) {
    for (size_t i = p * piece, e = std::min(n, i + piece); i < e; ++i) {
      keys[i] = key_prefix(f, src + i * rs);
      idx[i] = uint32_t(i);
    }
  });
  // Byte keys shorter than 8 bytes sit in the high bits of the prefix; digits that
  // never vary (the zero high half of a 32-bit key) are skipped.
  radix_sort_pairs<uint64_t>(keys, idx, ktmp, itmp, n, threads);
  const bool tails = !f.key_fits_prefix();
  if (tails) finish_ties(f, src, keys, idx, ktmp, itmp, n, threads);
  test_pause_between_passes(between_passes);
  // Each finished piece of dst is reported at once, so its writeback can start.
  std::atomic<bool> changed{false};
  parallel::parallel_for(pieces, threads, [&](size_t p) {
    const size_t b = p * piece, e = std::min(n, b + piece);
    if (!(tails ? gather_checked<true>(f, src, dst, keys, idx, b, e) : gather_checked<false>(f, src, dst, keys, idx, b, e)))
      changed = true;
    else if (sorted)
      sorted(b, e - b);
  });
  for (size_t i = piece; tails && i < n && !changed; i += piece)  // ties across the pieces
    if (keys[i] == keys[i - 1] && compare_key_tail(f, dst + (i - 1) * rs, dst + i * rs) > 0) changed = true;
  if (changed) throw SourceChanged();
}

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(unsigned threads) : threads_(std::max(1u, threads)) { set_host_threads(threads_); }
  std::string name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  HostBuffer allocate_host(size_t bytes) override {
    size_t rounded = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw OutOfMemory(bytes);
    return HostBuffer(static_cast<unsigned char*>(p), bytes, free_aligned);
  }

  size_t sort_scratch_bytes(const Format& f, size_t n) const override { return cpu_sort_scratch_bytes(f, n); }

  void sort_chunk(const Format& f, unsigned char* data, size_t n, unsigned char* scratch) override {
    if (n < 2) return;
    // Flat keys: data, read only by the first pass, is the buckets' scratch.
    sort_into_with(f, data, scratch, n, f.flat() ? data : scratch + n * f.record_size, {});
    io::parallel_copy(data, scratch, n * f.record_size, threads_);
  }

  // Only the pairs of a record sort need scratch: a flat sort scatters into dst itself
  // and allocates bucket-sized scratch.
  void sort_into(const Format& f, const unsigned char* src, unsigned char* dst, size_t n,
                 const SortedRecords& sorted) override {
    HostBuffer pairs = f.flat() || n == 0 ? HostBuffer() : allocate_host(pair_bytes(n));
    sort_into_with(f, src, dst, n, pairs.data(), sorted);
  }

  std::unique_ptr<KeyBitmap> make_key_bitmap(const Format& f, size_t, uint64_t host_budget) override {
    if (host_budget < kBitmapBytes) return nullptr;
    return make_cpu_key_bitmap(f, threads_);
  }

  ReducePartial reduce_chunk(const Format& f, const unsigned char* records, size_t n, uint64_t first_index,
                             ReduceAlgo) override {
    return reduce_chunk_cpu(f, records, n, first_index);
  }

  using Backend::bfs;
  std::vector<graph::BfsRun> bfs(const graph::CsrGraph& g, const std::vector<uint64_t>& sources,
                                 const graph::BfsDevicePlan&) override {
    std::vector<graph::BfsRun> runs;
    for (uint64_t s : sources) {
      runs.push_back(graph::bfs_cpu(g, s, threads_, true, context()));
      if (sources.size() > 1) runs.back().keep_summary_only();
    }
    return runs;
  }

 private:
  // scratch: flat keys, n keys the sort may overwrite or null; records, pair_bytes(n).
  void sort_into_with(const Format& f, const unsigned char* src, unsigned char* dst, size_t n, unsigned char* scratch,
                      const SortedRecords& sorted) {
    if (n > UINT32_MAX) throw Error(ExitCode::usage, "internal: chunk of more than 2^32 records");
    const PassHook& between_passes = context().test.between_passes;
    if (f.flat()) sort_flat_into(f, src, dst, n, threads_, scratch, sorted, between_passes);
    else if (n > 0) sort_records_into(f, src, dst, n, scratch, threads_, sorted, between_passes);
  }

  unsigned threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(unsigned threads) { return std::make_unique<CpuBackend>(threads); }

size_t records_that_fit(const Backend& b, const Format& f, size_t bytes) { return bytes / sort_bytes_per_record(b, f); }

size_t sort_bytes_per_record(const Backend& b, const Format& f) {
  return per_record(f, kScratchProbe, b.sort_scratch_bytes(f, kScratchProbe));
}

size_t cpu_sort_bytes_per_record(const Format& f) {
  return per_record(f, kScratchProbe, cpu_sort_scratch_bytes(f, kScratchProbe));
}

}  // namespace gxsort
