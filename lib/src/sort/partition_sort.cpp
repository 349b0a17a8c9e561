#include "sort/partition_sort.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "io/mapped_file.hpp"
#include "io/temp_files.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "sort/splitters.hpp"
#include "sort/unique.hpp"

static_assert(gxsort::kMaxBuckets <= gxsort::Splitters::kMaxBuckets, "bucket numbers are bytes");

namespace gxsort {
namespace {

// Sample size per bucket: the largest of B buckets then comes out within about 15% of
// its share for B up to kMaxBuckets (binomial quantile error), inside the plan's room.
constexpr size_t kSamplesPerBucket = 256;
// Chunks below this many records are scattered by one thread.
constexpr size_t kMinPerThread = size_t(1) << 16;

// Calls fn(prefix_of) with prefix_of(record) == key_prefix(f, record), the key type's
// branch taken once here instead of once per record.
template <class Fn>
void with_prefix_of(const Format& f, Fn&& fn) {
  const size_t off = f.key_offset;
  const KeyType t = f.key_type;
  const bool rev = f.reverse;
  switch (t) {
    case KeyType::u32: case KeyType::i32: case KeyType::f32:
      fn([=](const unsigned char* r) { uint32_t raw; std::memcpy(&raw, r + off, 4); return uint64_t(order32(t, raw, rev)); });
      return;
    case KeyType::u64: case KeyType::i64: case KeyType::f64:
      fn([=](const unsigned char* r) { uint64_t raw; std::memcpy(&raw, r + off, 8); return order64(t, raw, rev); });
      return;
    default:
      fn([&f](const unsigned char* r) { return key_prefix(f, r); });
  }
}

// Calls fn(size) with the record size as a compile-time constant for the common sizes
// (each record copy is then one or two moves), else 0 (a memcpy of rs bytes).
template <class Fn>
void with_record_size(size_t rs, Fn&& fn) {
  switch (rs) {
    case 4: fn(std::integral_constant<size_t, 4>{}); return;
    case 8: fn(std::integral_constant<size_t, 8>{}); return;
    case 16: fn(std::integral_constant<size_t, 16>{}); return;
    case 100: fn(std::integral_constant<size_t, 100>{}); return;
    default: fn(std::integral_constant<size_t, 0>{});
  }
}

// The stable scatter of one chunk of n records from `in` to `out`, bucket after bucket;
// counts[b] receives bucket b's records. Threads take contiguous blocks; positions are
// bucket-major, block-minor, so equal buckets keep input order.
template <class PrefixOf, class RecordSize>
void scatter_chunk(const unsigned char* in, unsigned char* out, size_t n, size_t rs, const Splitters& sp,
                   PrefixOf prefix_of, RecordSize, uint8_t* ids, unsigned threads, uint64_t* counts) {
  constexpr size_t kRs = RecordSize::value;
  const size_t B = sp.buckets();
  const unsigned T = unsigned(std::max<size_t>(1, std::min<size_t>(threads, n / kMinPerThread)));
  const size_t per = (n + T - 1) / T;
  std::vector<std::vector<size_t>> pos(T, std::vector<size_t>(B, 0));
  io::parallel_tasks(T, T, [&](size_t t) {
    const size_t b = std::min(n, t * per), e = std::min(n, b + per);
    size_t* h = pos[t].data();
    for (size_t i = b; i < e; ++i) {
      const size_t id = sp.bucket_of(prefix_of(in + i * (kRs ? kRs : rs)));
      ids[i] = uint8_t(id);
      ++h[id];
    }
  });
  size_t sum = 0;
  for (size_t k = 0; k < B; ++k) {
    counts[k] = 0;
    for (unsigned t = 0; t < T; ++t) {
      const size_t c = pos[t][k];
      pos[t][k] = sum;
      sum += c;
      counts[k] += c;
    }
  }
  io::parallel_tasks(T, T, [&](size_t t) {
    const size_t b = std::min(n, t * per), e = std::min(n, b + per);
    size_t* at = pos[t].data();
    for (size_t i = b; i < e; ++i) {
      if constexpr (kRs != 0) std::memcpy(out + at[ids[i]]++ * kRs, in + i * kRs, kRs);
      else std::memcpy(out + at[ids[i]]++ * rs, in + i * rs, rs);
    }
  });
}

// One bucket's temp file, appended to through a staging buffer so that every write but
// the last is one whole, aligned stage (plan.hpp: kMaxStageBytes says why).
class BucketFile {
 public:
  BucketFile(io::TempFile file, size_t stage_bytes) : file_(std::move(file)), stage_(stage_bytes) {}

  void append(const unsigned char* p, size_t n) {
    const size_t stage = stage_.size();
    if (used_ == 0 && n >= stage) {  // whole stages straight from the caller's buffer
      const size_t whole = n / stage * stage;
      file_.file().write_at(p, whole, flushed_);
      flushed_ += whole;
      p += whole;
      n -= whole;
    }
    while (n > 0) {
      const size_t take = std::min(n, stage - used_);
      std::memcpy(stage_.data() + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == stage) flush();
    }
  }
  void flush() {
    if (used_) file_.file().write_at(stage_.data(), used_, flushed_);
    flushed_ += used_;
    used_ = 0;
  }
  // The last, partial stage; the staging memory is given back.
  void finish() {
    flush();
    stage_ = io::AlignedBuffer();
  }
  uint64_t bytes() const { return flushed_ + used_; }
  const io::File& file() const { return file_.file(); }
  void remove() { file_.remove(); }

 private:
  io::TempFile file_;
  io::AlignedBuffer stage_;
  size_t used_ = 0;
  uint64_t flushed_ = 0;
};

// A bucket beyond the in-memory sort whose records all have one prefix, and so one key
// (keys of at most 8 bytes), is already in stable order: copies it into `out` at
// out_offset (only its first record with unique) through `buffer` and returns the
// records written; returns -1 (nothing written) when its keys differ.
int64_t copy_if_one_key(const io::File& file, uint64_t m, const Format& f, bool unique, unsigned char* buffer,
                        size_t buffer_bytes, const io::File& out, uint64_t out_offset) {
  const size_t rs = f.record_size;
  const size_t piece = std::max<size_t>(1, buffer_bytes / rs);
  uint64_t first = 0;
  for (uint64_t done = 0; done < m;) {
    const size_t c = size_t(std::min<uint64_t>(piece, m - done));
    file.read_at(buffer, c * rs, done * rs);
    if (done == 0) first = key_prefix(f, buffer);
    for (size_t i = 0; i < c; ++i)
      if (key_prefix(f, buffer + i * rs) != first) return -1;
    done += c;
  }
  const uint64_t keep = unique ? 1 : m;
  for (uint64_t done = 0; done < keep;) {
    const size_t c = size_t(std::min<uint64_t>(piece, keep - done));
    file.read_at(buffer, c * rs, done * rs);
    out.write_at(buffer, c * rs, out_offset + done * rs);
    done += c;
  }
  return int64_t(keep);
}

}  // namespace

std::vector<uint64_t> sample_prefixes(const io::File& in, const Format& f, uint64_t n, size_t count) {
  std::vector<uint64_t> s;
  if (n == 0) return s;
  s.reserve(count);
  std::vector<unsigned char> rec(f.record_size);
  for (size_t j = 0; j < count; ++j) {
    const uint64_t i = (2 * uint64_t(j) + 1) * n / (2 * uint64_t(count));  // the middle of the j-th of count slices
    in.read_at(rec.data(), f.record_size, i * f.record_size);
    s.push_back(key_prefix(f, rec.data()));
  }
  std::sort(s.begin(), s.end());
  return s;
}

uint64_t partition_sort(Prepared& p, const io::File& in, const Format& f, bool unique, const ProgressFn& progress,
                        const io::File& out, const SortLargeBucket& sort_large, std::vector<PhaseStat>& phases) {
  const Plan& plan = p.plan;
  const size_t rs = f.record_size;
  const uint64_t n = plan.records;
  const uint64_t bytes = n * rs;
  const size_t B = plan.buckets;

  // Pass 1: read, scatter and append each chunk, three chunks in flight.
  auto t0 = Clock::now();
  const Splitters sp(sample_prefixes(in, f, n, size_t(std::min<uint64_t>(n, B * kSamplesPerBucket))), B);
  std::vector<BucketFile> files;
  files.reserve(B);
  for (size_t b = 0; b < B; ++b)
    files.emplace_back(io::TempFile::create(p.tmp_dirs[b % p.tmp_dirs.size()], "gxsort-bucket"), plan.partition_stage_bytes);
  std::vector<uint64_t> filled(B, 0);  // bytes in each bucket file
  {
    const size_t chunk = size_t(std::min<uint64_t>(plan.partition_chunk_bytes, bytes));
    const size_t slots = size_t(std::min<uint64_t>(3, (bytes + chunk - 1) / chunk));
    // Each chunk is mapped (its cached pages, no copy) by the read stage and scattered
    // into its slot's buffer, which the write stage appends to the buckets.
    std::vector<HostBuffer> out_buf;
    std::vector<unsigned char*> slot_ptrs;
    for (size_t s = 0; s < slots; ++s) {
      out_buf.push_back(p.backend->allocate_host(chunk));
      slot_ptrs.push_back(out_buf.back().data());
    }
    std::vector<io::MappedFile> mapped(slots);
    std::vector<std::vector<uint64_t>> counts(slots, std::vector<uint64_t>(B, 0));
    std::vector<uint8_t> ids(chunk / rs);
    pipeline::Stages st;
    st.read = [&](pipeline::Chunk& c) { mapped[c.slot] = io::MappedFile::map_read(in, c.bytes, c.offset); };
    st.compute = [&](pipeline::Chunk& c) {
      with_prefix_of(f, [&](auto prefix_of) {
        with_record_size(rs, [&](auto size) {
          scatter_chunk(mapped[c.slot].data(), c.data, c.bytes / rs, rs, sp, prefix_of, size, ids.data(), p.threads,
                        counts[c.slot].data());
        });
      });
      mapped[c.slot].unmap();
    };
    st.write = [&](pipeline::Chunk& c) {
      const unsigned char* at = c.data;
      for (size_t b = 0; b < B; ++b) {
        const size_t len = size_t(counts[c.slot][b] * rs);
        files[b].append(at, len);
        at += len;
      }
    };
    pipeline::Config cfg;
    cfg.total_bytes = bytes;
    cfg.chunk_bytes = chunk;
    cfg.phase = "partition";
    pipeline::run_chunks(cfg, slot_ptrs, st, progress);
  }
  for (size_t b = 0; b < B; ++b) {
    files[b].finish();
    filled[b] = files[b].bytes();
  }
  phases.push_back({"partition into " + std::to_string(B) + " buckets", since(t0), bytes, bytes});

  // Pass 2: each bucket sorted into one buffer, its file deleted, the buffer written.
  auto t1 = Clock::now();
  const uint64_t cap = plan.bucket_records;
  uint64_t largest = 0;  // records of the largest bucket sorted in memory
  bool any_large = false;
  for (uint64_t len : filled) {
    const uint64_t m = len / rs;
    if (m <= cap) largest = std::max(largest, m);
    else any_large = true;
  }
  if (any_large) largest = std::max<uint64_t>(largest, std::min<uint64_t>(cap, std::max<size_t>(1, (size_t(16) << 20) / rs)));
  HostBuffer sorted = p.backend->allocate_host(size_t(largest * rs));
  uint64_t written = 0, done = 0;
  size_t in_memory = 0, one_key = 0, through_runs = 0;  // how the buckets were sorted
  for (size_t b = 0; b < B; ++b) {
    const uint64_t m = filled[b] / rs;
    uint64_t kept = 0;
    if (m > 0 && m <= cap) {
      {
        io::MappedFile src = io::MappedFile::map_read(files[b].file(), size_t(m * rs));
        p.backend->sort_into(f, src.data(), sorted.data(), size_t(m));
      }
      files[b].remove();  // before the output takes fresh pages: they can be this file's
      kept = unique ? unique_in_place(f, sorted.data(), size_t(m)) : m;
      // One writer: two, on one file, measured slower (they take turns on its lock).
      out.write_at(sorted.data(), size_t(kept * rs), written);
      ++in_memory;
    } else if (m > 0) {
      const int64_t copied = f.key_fits_prefix()
                                 ? copy_if_one_key(files[b].file(), m, f, unique, sorted.data(), sorted.size(), out, written)
                                 : -1;
      kept = copied >= 0 ? uint64_t(copied) : sort_large(files[b].file(), m, written);
      ++(copied >= 0 ? one_key : through_runs);
    }
    files[b].remove();
    written += kept * rs;
    done += m * rs;
    if (progress) progress("sort buckets", done, bytes);
  }
  std::string how = "sort buckets: " + std::to_string(in_memory) + " in memory";
  if (one_key) how += ", " + std::to_string(one_key) + " of one key (already in order)";
  if (through_runs) how += ", " + std::to_string(through_runs) + " through merged runs";
  phases.push_back({how, since(t1), bytes, bytes});
  return written / rs;
}

}  // namespace gxsort
