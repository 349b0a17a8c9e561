// The in-memory entry points (gxsort/memory.hpp). argsort and unique sort a copy of the
// records, each followed by its input index (a u64): the same stable sort as `sort`,
// with the same key fields, so the permutation and the groups are the ones a sort of the
// records themselves gives, in memory or through temp files alike (a copy larger than
// the budget is made straight into a temp file and read back piece by piece). merge is
// the engine's CPU merge into the caller's output.
#include "gxsort/memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "api/device_calls.hpp"
#include "api/memory_sort.hpp"
#include "api/unique_groups.hpp"
#include "backend/backend.hpp"
#include "engine/merge.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort {
namespace {

using api::records_bytes;

// Records of f, each followed by its index: ordered by f's key alone.
Format indexed_format(const Format& f) { return Format::of_keys(f.record_size + 8, f.key_fields(), f.reverse); }

uint64_t index_at(const unsigned char* with, size_t i, size_t rs) {
  uint64_t v;
  std::memcpy(&v, with + i * (rs + 8) + rs, 8);
  return v;
}

// The records of `data` with their indices after them, sorted stably, handed to `take`
// in sorted order (api::sort_made_records: in one piece, or in pieces through temp files
// when the indexed copy does not fit the budget).
void sort_with_indices(const void* data, size_t n, const Format& f, const MemoryOptions& o,
                       const api::TakeRecords& take) {
  const size_t rs = f.record_size, ws = rs + 8;
  f.validate();
  records_bytes(n, f);
  const auto* src = static_cast<const unsigned char*>(data);
  auto fill = [&](unsigned char* with, size_t first, size_t count) {
    parallel::parallel_for_ranges(count, o.threads, [&](size_t b, size_t e, unsigned) {
      for (uint64_t i = b; i < e; ++i) {
        const uint64_t index = first + i;
        std::memcpy(with + i * ws, src + index * rs, rs);
        std::memcpy(with + i * ws + rs, &index, 8);
      }
    });
  };
  api::sort_made_records(n, api::engine_options(indexed_format(f), o), fill, take);
}

// Input k of a merge must be sorted: Error(usage) at its first record smaller than the one before.
void check_sorted(const SortedRecords& in, size_t k, const Format& f) {
  const size_t i = first_unsorted(in.data, in.count, f);
  if (i < in.count) api::fail_unsorted_input(k, i);
}

// The inputs of a merge as in-memory runs, named for messages; Error(usage) when the
// output, of room for all their records, overlaps one of them.
std::vector<RunRef> merge_inputs(const std::vector<SortedRecords>& inputs, const Format& f, const unsigned char* out) {
  std::vector<RunRef> runs(inputs.size());
  size_t total = 0;
  for (const SortedRecords& in : inputs) total += in.count;
  const size_t out_bytes = records_bytes(total, f);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto* p = static_cast<const unsigned char*>(inputs[k].data);
    const size_t bytes = records_bytes(inputs[k].count, f);
    if (bytes && out < p + bytes && p < out + out_bytes)
      fail_usage("merge: the output overlaps input " + std::to_string(k));
    runs[k].mem = p;
    runs[k].records = inputs[k].count;
    runs[k].name = "merge: input " + std::to_string(k);
  }
  return runs;
}

}  // namespace

void sort(void* data, size_t count, const Format& f, const MemoryOptions& o) {
  if (o.location == BufferLocation::device) return api::sort_device(data, count, f, o);
  records_bytes(count, f);
  api::sort_host(static_cast<unsigned char*>(data), count, api::engine_options(f, o));
}

void sort_copy(const void* in, void* out, size_t count, const Format& f, const MemoryOptions& o) {
  f.validate();
  const size_t bytes = records_bytes(count, f);
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  if (bytes && dst < src + bytes && src < dst + bytes) fail_usage("sort_copy: the output overlaps the input");
  if (o.location == BufferLocation::device) return api::sort_copy_device(in, out, count, f, o);
  api::sort_host_copy(src, dst, count, api::engine_options(f, o));
}

void argsort(const void* data, size_t count, const Format& f, uint64_t* perm, const MemoryOptions& o) {
  if (o.location == BufferLocation::device) return api::argsort_device(data, count, f, perm, o);
  sort_with_indices(data, count, f, o, [&](const unsigned char* sorted, size_t first, size_t n) {
    parallel::parallel_for_ranges(n, o.threads, [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i) perm[first + i] = index_at(sorted, i, f.record_size);
    });
  });
}

size_t unique(const void* data, size_t count, const Format& f, void* out, uint64_t* counts, uint64_t* first_index,
              const MemoryOptions& o) {
  if (o.location == BufferLocation::device) return api::unique_device(data, count, f, out, counts, first_index, o);
  api::UniqueGroups groups(f, out, counts, first_index);
  sort_with_indices(data, count, f, o, [&](const unsigned char* sorted, size_t, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const unsigned char* rec = sorted + i * (f.record_size + 8);
      if (!groups.extend(rec)) groups.open(rec, index_at(sorted, i, f.record_size));
    }
  });
  return groups.finish();
}

size_t first_unsorted(const void* data, size_t count, const Format& f, const MemoryOptions& o) {
  f.validate();
  if (o.location == BufferLocation::device) return api::first_unsorted_device(data, count, f, o);
  const auto* p = static_cast<const unsigned char*>(data);
  const size_t rs = f.record_size;
  for (size_t i = 1; i < count; ++i)
    if (compare_keys(f, p + (i - 1) * rs, p + i * rs) > 0) return i;
  return count;
}

// The engine's K-way merge (a loser tree per thread, over output ranges cut by the
// multiway co-rank) straight into `out`, each input's order checked as it is merged. An
// unsorted one is then named by a scan of the inputs in order: the first such input and
// record, whichever thread met one first.
void merge(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o) {
  f.validate();
  auto* dst = static_cast<unsigned char*>(out);
  if (o.location == BufferLocation::device) {
    merge_inputs(inputs, f, dst);  // the overlap check, on the device addresses
    return api::merge_device(inputs, f, out, o);
  }
  throw_if_cancelled(o.cancel);
  const std::vector<RunRef> runs = merge_inputs(inputs, f, dst);
  uint64_t total = 0;
  for (const RunRef& r : runs) total += r.records;
  std::atomic<uint64_t> done{0};
  MergeSetup job;
  job.format = &f;
  job.threads = std::max(1u, o.threads);
  job.verify_sorted = true;
  job.progress = o.progress;
  job.cancel = o.cancel;
  job.context = o.context;
  job.done_bytes = &done;
  job.total_bytes = total * f.record_size;
  try {
    merge_runs_to_memory(job, runs, dst);
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage) throw;
    for (size_t k = 0; k < inputs.size(); ++k) check_sorted(inputs[k], k, f);
    throw;
  }
}

}  // namespace gxsort
