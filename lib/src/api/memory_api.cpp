// The in-memory entry points (gxsort/memory.hpp). argsort and unique sort a copy of the
// records, each followed by its input index (a u64): the same stable sort as `sort`,
// with the same key fields, so the permutation and the groups are the ones a sort of the
// records themselves gives, in memory or through temp files alike.
#include "gxsort/memory.hpp"

#include <cstring>

#include "api/device_calls.hpp"
#include "api/memory_sort.hpp"
#include "backend/backend.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort {
namespace {

using api::host_bytes;
using api::records_bytes;

// Records of f, each followed by its index: ordered by f's key alone.
Format indexed_format(const Format& f) { return Format::of_keys(f.record_size + 8, f.key_fields(), f.reverse); }

// The records of `data` with their indices after them, sorted stably.
std::unique_ptr<unsigned char[]> sorted_with_indices(const void* data, size_t n, const Format& f,
                                                     const MemoryOptions& o) {
  const size_t rs = f.record_size, ws = rs + 8;
  f.validate();
  records_bytes(n, f);
  std::unique_ptr<unsigned char[]> with = host_bytes(records_bytes(n, indexed_format(f)));
  const auto* src = static_cast<const unsigned char*>(data);
  parallel::parallel_for_ranges(n, o.threads, [&](size_t b, size_t e, unsigned) {
    for (uint64_t i = b; i < e; ++i) {
      std::memcpy(with.get() + i * ws, src + i * rs, rs);
      std::memcpy(with.get() + i * ws + rs, &i, 8);
    }
  });
  api::sort_host(with.get(), n, api::engine_options(indexed_format(f), o));
  return with;
}

uint64_t index_at(const unsigned char* with, size_t i, size_t rs) {
  uint64_t v;
  std::memcpy(&v, with + i * (rs + 8) + rs, 8);
  return v;
}

void refuse_device(const MemoryOptions& o, const char* call) {
  if (o.location == BufferLocation::device)
    fail_usage(std::string(call) + ": device buffers are taken by sort and argsort only; copy to host memory first");
}

// Input k of a merge must be sorted: Error(usage) at its first record smaller than the one before.
void check_sorted(const SortedRecords& in, size_t k, const Format& f) {
  const size_t i = first_unsorted(in.data, in.count, f);
  if (i < in.count)
    fail_usage("merge: input " + std::to_string(k) + " is not sorted: record " + std::to_string(i) +
               " is smaller than the one before it");
}

}  // namespace

void sort(void* data, size_t count, const Format& f, const MemoryOptions& o) {
  if (o.location == BufferLocation::device) return api::sort_device(data, count, f, o);
  records_bytes(count, f);
  api::sort_host(static_cast<unsigned char*>(data), count, api::engine_options(f, o));
}

void sort_copy(const void* in, void* out, size_t count, const Format& f, const MemoryOptions& o) {
  refuse_device(o, "sort_copy");
  f.validate();
  const size_t bytes = records_bytes(count, f);
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  if (dst < src + bytes && src < dst + bytes) fail_usage("sort_copy: the output overlaps the input");
  // In slices on the call's threads: a fresh output's page faults are taken in parallel too.
  parallel::parallel_for_ranges(bytes, o.threads, [&](size_t b, size_t e, unsigned) {
    std::memcpy(dst + b, src + b, e - b);
  });
  sort(out, count, f, o);
}

void argsort(const void* data, size_t count, const Format& f, uint64_t* perm, const MemoryOptions& o) {
  if (o.location == BufferLocation::device) return api::argsort_device(data, count, f, perm, o);
  const std::unique_ptr<unsigned char[]> with = sorted_with_indices(data, count, f, o);
  parallel::parallel_for_ranges(count, o.threads, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i) perm[i] = index_at(with.get(), i, f.record_size);
  });
}

size_t unique(const void* data, size_t count, const Format& f, void* out, uint64_t* counts, uint64_t* first_index,
              const MemoryOptions& o) {
  refuse_device(o, "unique");
  const std::unique_ptr<unsigned char[]> with = sorted_with_indices(data, count, f, o);
  const size_t rs = f.record_size, ws = rs + 8;
  auto* dst = static_cast<unsigned char*>(out);
  size_t groups = 0;
  for (size_t b = 0, e; b < count; b = e, ++groups) {
    const unsigned char* first = with.get() + b * ws;
    for (e = b + 1; e < count && same_key(f, first, with.get() + e * ws);) ++e;
    std::memcpy(dst + groups * rs, first, rs);
    if (counts) counts[groups] = e - b;
    if (first_index) first_index[groups] = index_at(with.get(), b, rs);
  }
  return groups;
}

size_t first_unsorted(const void* data, size_t count, const Format& f) {
  f.validate();
  const auto* p = static_cast<const unsigned char*>(data);
  const size_t rs = f.record_size;
  for (size_t i = 1; i < count; ++i)
    if (compare_keys(f, p + (i - 1) * rs, p + i * rs) > 0) return i;
  return count;
}

// The stable sort of the inputs laid end to end is their stable merge: ties keep the
// inputs' order, then each input's own.
void merge(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o) {
  refuse_device(o, "merge");
  f.validate();
  auto* dst = static_cast<unsigned char*>(out);
  size_t n = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    check_sorted(inputs[k], k, f);
    const size_t bytes = records_bytes(inputs[k].count, f);
    if (bytes) std::memcpy(dst + n * f.record_size, inputs[k].data, bytes);
    n += inputs[k].count;
  }
  api::sort_host(dst, n, api::engine_options(f, o));
}

}  // namespace gxsort
