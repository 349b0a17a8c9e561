#include "engine/partition_sort.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <type_traits>

#include "engine/job.hpp"
#include "io/checksum.hpp"
#include "io/mapped_file.hpp"
#include "io/temp_files.hpp"
#include "parallel/background_tasks.hpp"
#include "parallel/parallel_for.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "engine/splitters.hpp"
#include "kernels/radix_sort.hpp"
#include "kernels/unique.hpp"

static_assert(gxsort::kMaxBuckets <= gxsort::Splitters::kMaxBuckets, "bucket numbers are bytes");

namespace gxsort {
namespace {

// Sample size per bucket: the largest of B buckets then comes out within about 15% of
// its share for B up to kMaxBuckets (binomial quantile error), inside the plan's room.
constexpr size_t kSamplesPerBucket = 256;

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

// Stage buffers shared by the buckets: each bucket fills one while its full ones wait
// for the writer, which hands them back.
class StagePool {
 public:
  StagePool(size_t count, size_t bytes) : bytes_(bytes) {
    for (size_t i = 0; i < count; ++i) {
      all_.emplace_back(bytes);
      free_.push_back(all_.back().data());
    }
  }
  size_t bytes() const { return bytes_; }
  unsigned char* take() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !free_.empty(); });
    unsigned char* p = free_.back();
    free_.pop_back();
    return p;
  }
  void give(unsigned char* p) {
    { std::lock_guard<std::mutex> l(m_); free_.push_back(p); }
    cv_.notify_one();
  }

 private:
  size_t bytes_;
  std::vector<io::AlignedBuffer> all_;
  std::vector<unsigned char*> free_;
  std::mutex m_;
  std::condition_variable cv_;
};

// Writes full stages on one background thread, each buffer given back to the pool once
// written (also when the write fails: its error comes back through the next append).
class StageWriter {
 public:
  explicit StageWriter(StagePool& pool) : pool_(pool) {}
  // `hash`, when given, is updated with the stage's bytes after the write (a bucket's
  // stages are written in order, on this one thread).
  void write(const io::File& file, unsigned char* buf, size_t n, uint64_t offset, io::Xxh3* hash) {
    if (n == 0) {
      pool_.give(buf);
      return;
    }
    pending_.push_back(thread_.submit([this, &file, buf, n, offset, hash] {
      struct GiveBack { StagePool& pool; unsigned char* buf; ~GiveBack() { pool.give(buf); } } give{pool_, buf};
      file.write_at(buf, n, offset);
      if (hash) hash->update(buf, n);
    }));
    while (!pending_.empty() && pending_.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      pending_.front().get();  // rethrows a failed write
      pending_.pop_front();
    }
  }
  void finish() {
    for (; !pending_.empty(); pending_.pop_front()) pending_.front().get();
  }

 private:
  StagePool& pool_;
  std::deque<std::future<void>> pending_;
  parallel::BackgroundTasks thread_{1};  // last: its tasks finish before the members above go
};

// One bucket's temp file, appended to through stages so that every write but the last
// is one whole, aligned stage (plan.hpp: kMaxStageBytes says why).
class BucketFile {
 public:
  // A new bucket (hashed as it is written when it is to be a job's piece), or one a
  // killed run kept, `bytes` long.
  BucketFile(io::TempFile file, bool hashed) : file_(std::move(file)), hash_(hashed ? std::make_unique<io::Xxh3>() : nullptr) {}
  BucketFile(io::TempFile file, uint64_t bytes) : file_(std::move(file)), flushed_(bytes) {}

  template <size_t kRs>  // the record size, or 0 for rs
  void append(const unsigned char* rec, size_t rs, StagePool& pool, StageWriter& writer) {
    const size_t n = kRs ? kRs : rs;
    if (!stage_) stage_ = pool.take();
    if (used_ + n < pool.bytes()) {  // the common case: the record fits, the stage is not full
      std::memcpy(stage_ + used_, rec, n);
      used_ += n;
      return;
    }
    // The record fills the stage and may go on into the next ones (a record can be
    // longer than a stage).
    for (size_t done = 0; done < n;) {
      if (!stage_) stage_ = pool.take();
      const size_t piece = std::min(n - done, pool.bytes() - used_);
      std::memcpy(stage_ + used_, rec + done, piece);
      used_ += piece;
      done += piece;
      if (used_ == pool.bytes()) flush(writer);
    }
  }
  void flush(StageWriter& writer) {
    if (stage_) writer.write(file_.file(), stage_, used_, flushed_, hash_.get());
    flushed_ += used_;
    used_ = 0;
    stage_ = nullptr;
  }
  uint64_t bytes() const { return flushed_ + used_; }
  const io::File& file() const { return file_.file(); }
  io::TempFile& temp() { return file_; }
  uint64_t checksum() const { return hash_ ? hash_->digest() : 0; }
  void remove() { file_.remove(); }

 private:
  io::TempFile file_;
  unsigned char* stage_ = nullptr;
  size_t used_ = 0;
  uint64_t flushed_ = 0;
  std::unique_ptr<io::Xxh3> hash_;
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

// The sorted buckets, back to back in the output, are the sorted input only where each
// bucket's first key is not below the last key of the bucket before it. Pass 1 reads
// its mapping of the input twice (bucket numbers, then the records they place), so an
// input that another process changes in between puts records in the wrong buckets:
// checked on each bucket's first and last record as it is written (SourceChanged).
class BucketBoundaries {
 public:
  explicit BucketBoundaries(const Format& f) : f_(f), first_(f.record_size), last_(f.record_size) {}
  // The bucket's `kept` records at `offset` of `out`, also at `mem` when given.
  void check(const io::File& out, uint64_t offset, uint64_t kept, const unsigned char* mem) {
    if (kept == 0) return;
    const size_t rs = f_.record_size;
    if (mem) std::memcpy(first_.data(), mem, rs);
    else out.read_at(first_.data(), rs, offset);
    if (have_last_ && compare_keys(f_, last_.data(), first_.data()) > 0) throw SourceChanged();
    if (mem) std::memcpy(last_.data(), mem + (kept - 1) * rs, rs);
    else out.read_at(last_.data(), rs, offset + (kept - 1) * rs);
    have_last_ = true;
  }
  void forget() { have_last_ = false; }  // a bucket in the output since a killed run

 private:
  const Format& f_;
  std::vector<unsigned char> first_, last_;
  bool have_last_ = false;
};

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

namespace {

// The buckets a killed run of the job kept, those not yet in the output. Returns B when
// every one is kept; the one bucket to form again when only it is missing (a kill as its
// file went, or a damaged one); else SIZE_MAX (pass 1 all over again).
size_t reuse_buckets(SortJob* job, size_t B, std::vector<BucketFile>& files) {
  const size_t first = job ? job->first_unwritten_bucket() : 0;
  if (!job) return SIZE_MAX;
  const size_t missing = job->kept_buckets(first, B) ? B : first < B && job->kept_buckets(first + 1, B) ? first : SIZE_MAX;
  if (missing == SIZE_MAX) return missing;
  for (size_t b = 0; b < B; ++b) {
    if (b < first) { files.emplace_back(io::TempFile(), uint64_t(0)); continue; }  // in the output already
    if (b == missing) { files.emplace_back(job->create_bucket(b), true); continue; }
    io::TempFile t = job->adopt_bucket(b);
    const uint64_t size = t.file().size();
    files.emplace_back(std::move(t), size);
  }
  return missing;
}

// Pass 1: read, scatter and append each chunk, three chunks in flight; returns the
// bucket files, in key order.
std::vector<BucketFile> scatter_into_buckets(Prepared& p, const io::File& in, const Format& f, const ProgressFn& progress,
                                             std::vector<PhaseStat>& phases, SortJob* job) {
  const Plan& plan = p.plan;
  const size_t rs = f.record_size;
  const uint64_t n = plan.records;
  const uint64_t bytes = n * rs;
  const size_t B = plan.buckets;
  std::vector<BucketFile> files;
  files.reserve(B);
  // With one bucket missing, the pass runs for it alone: every record read and placed,
  // only that bucket's appended.
  const size_t only = reuse_buckets(job, B, files);
  if (only == B) {
    phases.push_back({"partition: the buckets of the killed run", 0, 0, 0});
    return files;
  }
  auto t0 = Clock::now();
  const Splitters sp(sample_prefixes(in, f, n, size_t(std::min<uint64_t>(n, B * kSamplesPerBucket))), B);
  if (only == SIZE_MAX)
    for (size_t b = 0; b < B; ++b)
      files.emplace_back(job ? job->create_bucket(b) : io::TempFile::create(p.context, p.tmp_dirs[b % p.tmp_dirs.size()], "bucket"),
                         job != nullptr);
  {
    // Three threads in a pipeline of three chunks: the first maps a chunk (its cached
    // pages, no copy) and finds each record's bucket; the second appends the records,
    // in input order, to their buckets' stages; the third writes the full stages.
    StagePool pool(2 * B, plan.partition_stage_bytes);
    StageWriter writer(pool);
    const size_t chunk = size_t(std::min<uint64_t>(plan.partition_chunk_bytes, bytes));
    const size_t slots = size_t(std::min<uint64_t>(3, (bytes + chunk - 1) / chunk));
    std::vector<std::vector<uint8_t>> ids(slots, std::vector<uint8_t>(chunk / rs));
    std::vector<unsigned char*> slot_ptrs;
    for (auto& v : ids) slot_ptrs.push_back(v.data());  // a chunk's bucket numbers, not its bytes
    std::vector<io::MappedFile> mapped(slots);
    pipeline::Stages st;
    st.read = [&](pipeline::Chunk& c) {
      mapped[c.slot] = io::MappedFile::map_read(in, c.bytes, c.offset);
      const unsigned char* rec = mapped[c.slot].data();
      uint8_t* id = ids[c.slot].data();
      with_prefix_of(f, [&](auto prefix_of) {
        for (size_t i = 0, m = c.bytes / rs; i < m; ++i) id[i] = uint8_t(sp.bucket_of(prefix_of(rec + i * rs)));
      });
    };
    st.compute = [&](pipeline::Chunk& c) {
      test_pause_between_passes(p.context.test.between_passes);
      const unsigned char* rec = mapped[c.slot].data();
      const uint8_t* id = ids[c.slot].data();
      with_record_size(rs, [&](auto size) {
        constexpr size_t kRs = decltype(size)::value;
        if (only == SIZE_MAX) {
          for (size_t i = 0, m = c.bytes / rs; i < m; ++i) files[id[i]].append<kRs>(rec + i * rs, rs, pool, writer);
        } else {
          for (size_t i = 0, m = c.bytes / rs; i < m; ++i)
            if (id[i] == only) files[only].append<kRs>(rec + i * rs, rs, pool, writer);
        }
      });
      mapped[c.slot].unmap();
    };
    pipeline::Config cfg;
    cfg.total_bytes = bytes;
    cfg.chunk_bytes = chunk;
    cfg.phase = "partition";
    cfg.cancel = p.cancel;
    pipeline::run_chunks(cfg, slot_ptrs, st, progress);
    if (only == SIZE_MAX) {
      for (auto& bucket : files) bucket.flush(writer);
    } else {
      files[only].flush(writer);
    }
    writer.finish();
  }
  // A job's buckets become its pieces: a kill from here on keeps them.
  if (job)
    for (size_t b = 0; b < B; ++b)
      if (only == SIZE_MAX || b == only) job->keep_bucket(b, files[b].temp(), files[b].checksum());
  phases.push_back({only == SIZE_MAX ? "partition into " + std::to_string(B) + " buckets"
                                     : "partition: bucket " + std::to_string(only) + " formed again, the rest kept",
                    since(t0), bytes, only == SIZE_MAX ? bytes : files[only].bytes()});
  return files;
}

// The records pass 2's buffer holds: the largest bucket sorted in memory (at most `cap`
// records), and at least 16 MiB of them when a larger bucket copies a single key's
// records through it (copy_if_one_key).
uint64_t sort_buffer_records(const std::vector<BucketFile>& files, size_t rs, uint64_t cap) {
  uint64_t largest = 0;  // records of the largest bucket sorted in memory
  bool any_large = false;
  for (const auto& bucket : files) {
    const uint64_t m = bucket.bytes() / rs;
    if (m <= cap) largest = std::max(largest, m);
    else any_large = true;
  }
  if (any_large) largest = std::max<uint64_t>(largest, std::min<uint64_t>(cap, std::max<size_t>(1, (size_t(16) << 20) / rs)));
  return largest;
}

// Pass 2's phase name: how many buckets were sorted which way.
std::string sort_buckets_phase(size_t in_memory, size_t one_key, size_t through_runs) {
  std::string how = "sort buckets: " + std::to_string(in_memory) + " in memory";
  if (one_key) how += ", " + std::to_string(one_key) + " of one key (already in order)";
  if (through_runs) how += ", " + std::to_string(through_runs) + " through merged runs";
  return how;
}

// Pass 2: each bucket sorted into one buffer, its file deleted, the buffer written at
// the output's running offset; returns the records written.
uint64_t sort_buckets(Prepared& p, std::vector<BucketFile>& files, const Format& f, bool unique, const ProgressFn& progress,
                      const io::File& out, const SortLargeBucket& sort_large, std::vector<PhaseStat>& phases,
                      SortJob* job) {
  const Plan& plan = p.plan;
  const size_t rs = f.record_size;
  const uint64_t bytes = plan.records * rs;
  const size_t B = plan.buckets;
  auto t1 = Clock::now();
  const uint64_t cap = plan.bucket_records;
  const size_t sorted_bytes = size_t(sort_buffer_records(files, rs, cap) * rs);
  HostBuffer sorted = p.backend->allocate_host(sorted_bytes);
  uint64_t written = job ? job->written_bytes() : 0, done = 0;
  size_t in_memory = 0, one_key = 0, through_runs = 0;  // how the buckets were sorted
  BucketBoundaries boundaries(f);
  // A job journals each bucket's output segment (its checksum taken beside the write,
  // or read back from the output after a merge), then drops the bucket, on a thread of
  // its own: the journal's fsync waits for the file system's commit, which waits for the
  // output written so far (2 GiB --ooc partition on the 2-core VM: 22 fsyncs of 0.1-0.27
  // s in line). The next bucket is sorted meanwhile.
  std::vector<std::future<void>> journalled;
  parallel::BackgroundTasks journal(1);  // last: its tasks end before what they use goes
  auto keep_segment = [&](size_t b, uint64_t offset, uint64_t bytes, std::optional<uint64_t> sum) {
    journalled.push_back(journal.submit([&files, &out, job, b, offset, bytes, sum] {
      job->keep_segment(b, offset, bytes, sum ? *sum : io::xxh3_blocks_of_file(out, bytes, offset, job->threads()));
      files[b].remove();
    }));
  };
  for (size_t b = 0; b < B; ++b) {
    throw_if_cancelled(p.cancel);
    const uint64_t m = files[b].bytes() / rs;
    uint64_t kept = 0;
    if (job && b < job->first_unwritten_bucket()) {  // in the output since the killed run
      files[b].remove();
      boundaries.forget();
      continue;
    }
    if (m > 0 && !sorted.data()) sorted = p.backend->allocate_host(sorted_bytes);
    if (m > 0 && m <= cap) {
      {
        io::MappedFile src = io::MappedFile::map_read(files[b].file(), size_t(m * rs));
        p.backend->sort_into(f, src.data(), sorted.data(), size_t(m));
      }
      // A job's bucket stays until its segment is journalled (below): dropped before the
      // write, a kill in pass 2 lost it nearly always, and the resume read the whole input
      // again for it (2 GiB on the 2-core VM: resume after a kill at 80% 1.08x a fresh run).
      if (!job) files[b].remove();  // before the output takes fresh pages: they can be this file's
      kept = unique ? unique_in_place(f, sorted.data(), size_t(m)) : m;
      boundaries.check(out, written, kept, sorted.data());
      // One writer: two, on one file, measured slower (they take turns on its lock). A
      // job's checksum of the segment is taken beside the write, not after it.
      uint64_t sum = 0;
      parallel::parallel_for(job ? 2 : 1, p.threads, [&](size_t task) {
        if (task == 0) out.write_at(sorted.data(), size_t(kept * rs), written);
        else sum = io::xxh3_blocks(sorted.data(), size_t(kept * rs), 1);
      });
      if (job) keep_segment(b, written, kept * rs, sum);
      ++in_memory;
    } else if (m > 0) {
      const int64_t copied = f.key_fits_prefix()
                                 ? copy_if_one_key(files[b].file(), m, f, unique, sorted.data(), sorted.size(), out, written)
                                 : -1;
      if (copied < 0) sorted = HostBuffer();  // the runs take the whole budget; allocated again below
      kept = copied >= 0 ? uint64_t(copied) : sort_large(files[b].file(), m, written);
      boundaries.check(out, written, kept, nullptr);
      if (job) keep_segment(b, written, kept * rs, std::nullopt);
      ++(copied >= 0 ? one_key : through_runs);
    } else if (job) {
      keep_segment(b, written, 0, std::nullopt);
    }
    if (!job) files[b].remove();
    written += kept * rs;
    done += m * rs;
    if (progress) progress({"sort buckets", done, bytes});
  }
  for (auto& j : journalled) j.get();
  phases.push_back({sort_buckets_phase(in_memory, one_key, through_runs), since(t1), bytes, bytes});
  return written / rs;
}

}  // namespace

uint64_t partition_sort(Prepared& p, const io::File& in, const Format& f, bool unique, const ProgressFn& progress,
                        const io::File& out, const SortLargeBucket& sort_large, std::vector<PhaseStat>& phases,
                        SortJob* job) {
  std::vector<BucketFile> files = scatter_into_buckets(p, in, f, progress, phases, job);
  try {
    return sort_buckets(p, files, f, unique, progress, out, sort_large, phases, job);
  } catch (const SourceChanged&) {
    fail_input_changed(in.path());
  }
}

}  // namespace gxsort
