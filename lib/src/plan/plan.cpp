#include "plan/plan.hpp"

#include <algorithm>

#include "gxsort/error.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

const char* plan_mode_name(PlanMode m) {
  switch (m) {
    case PlanMode::in_memory: return "in-memory";
    case PlanMode::runs_in_memory: return "runs-in-memory";
    case PlanMode::external: return "external";
    case PlanMode::partition: return "partition";
  }
  return "?";
}

bool use_direct_io(DirectIo choice, uint64_t temp_bytes, uint64_t page_cache_bytes) {
  if (choice != DirectIo::automatic) return choice == DirectIo::on;
  return temp_bytes > page_cache_bytes / 2;
}

uint64_t minimum_memory(const PlanInput& in) {
  // Room for runs of a few hundred records while the next chunk loads.
  return std::max<uint64_t>(kMinMemory, uint64_t(256) * (in.sort_bytes_per_record + in.record_size * (in.slots - 1)));
}

std::vector<MergeLevel> merge_tree(const std::vector<uint64_t>& run_sizes, size_t record_size, size_t k,
                                   uint64_t* peak_temp_bytes) {
  std::vector<MergeLevel> levels;
  std::vector<uint64_t> sizes = run_sizes;
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  uint64_t peak = total * record_size;
  while (true) {
    MergeLevel lv;
    std::vector<uint64_t> next;
    if (sizes.size() <= k) {
      lv.final = true;
      lv.groups.push_back(sizes.size());
      lv.bytes_read = lv.bytes_written = total * record_size;
      levels.push_back(lv);
      break;
    }
    for (size_t b = 0; b < sizes.size(); b += k) {
      size_t e = std::min(sizes.size(), b + k);
      uint64_t merged = 0;
      for (size_t i = b; i < e; ++i) merged += sizes[i];
      lv.groups.push_back(e - b);
      if (e - b > 1) {
        lv.bytes_read += merged * record_size;
        lv.bytes_written += merged * record_size;
        // A group's inputs are deleted once its output is complete.
        peak = std::max(peak, total * record_size + merged * record_size);
      }
      next.push_back(merged);
    }
    levels.push_back(lv);
    sizes.swap(next);
  }
  if (peak_temp_bytes) *peak_temp_bytes = peak;
  return levels;
}

namespace {

// Fills in the partition plan of p (records known); returns an empty string, or why
// the input cannot be partitioned under these limits.
std::string plan_partition(const PlanInput& in, uint64_t chunk_cap, Plan& p) {
  const uint64_t cap = std::min<uint64_t>(chunk_cap, in.memory / in.sort_bytes_per_record);
  const uint64_t target = cap * kBucketFillPercent / 100;
  if (target == 0) return option_ref("memory", format_bytes(in.memory)) + " does not hold one record's sort";
  const uint64_t buckets = std::max<uint64_t>(2, (p.records + target - 1) / target);
  if (buckets > kMaxBuckets)
    return "it would need " + std::to_string(buckets) + " buckets, more than the " + std::to_string(kMaxBuckets) +
           " allowed (raise " + option_ref("memory") + ", or use " + option_ref("ooc", "merge") + ")";
  p.mode = PlanMode::partition;
  p.run_records = 0;
  p.buckets = size_t(buckets);
  p.bucket_records = size_t(cap);
  // Two stages per bucket (one filling, one being written), at most half the budget;
  // chunks of at most 64 MiB, mapped, with a byte of bucket number per record for each
  // of the three in flight, at most a quarter.
  const uint64_t page = 4096;
  const uint64_t record_pages = (in.record_size + page - 1) / page * page;  // a stage holds a record at least
  p.partition_stage_bytes =
      size_t(std::max<uint64_t>(record_pages, std::min<uint64_t>(kMaxStageBytes, in.memory / 4 / buckets) / page * page));
  if (2 * buckets * p.partition_stage_bytes > in.memory / 2)
    return option_ref("memory", format_bytes(in.memory)) + " is too small to stage " + std::to_string(buckets) +
           " buckets (raise " + option_ref("memory") + ", or use " + option_ref("ooc", "merge") + ")";
  const uint64_t chunk_records = std::max<uint64_t>(1, std::min<uint64_t>((uint64_t(64) << 20) / in.record_size, in.memory / 12));
  p.partition_chunk_bytes = size_t(chunk_records * in.record_size);
  p.temp_bytes = p.records * in.record_size;
  p.bytes_read = p.bytes_written = 2 * p.temp_bytes;
  return "";
}

}  // namespace

size_t external_run_records(const PlanInput& in) {
  uint64_t chunk_cap = UINT32_MAX;
  if (in.max_chunk_records) chunk_cap = std::min<uint64_t>(chunk_cap, in.max_chunk_records);
  // `slots` chunk buffers in flight, one of them being sorted (with its scratch).
  const uint64_t per = in.sort_bytes_per_record + uint64_t(in.record_size) * (in.slots - 1);
  return size_t(std::max<uint64_t>(1, std::min<uint64_t>(chunk_cap, in.memory / per)));
}

void plan_merge_tree(const PlanInput& in, Plan& p) {
  p.runs = p.run_sizes.size();
  // Fan-in: each merge input gets a buffer of at least kMinMergeBuffer (and a record),
  // for each merge thread, plus one output buffer per thread.
  uint64_t min_buf = std::max<uint64_t>(kMinMergeBuffer, in.record_size);
  // Each merge thread needs buffers of its own: with a small budget, fewer threads merge,
  // so that the fan-in (fewer passes over the data) comes first.
  const uint64_t k_target = std::min<uint64_t>(in.fan_in ? in.fan_in : kDefaultFanIn, std::max<size_t>(p.runs, 2));
  unsigned mt = unsigned(std::max<uint64_t>(1, std::min<uint64_t>(std::max(1u, in.merge_threads), in.memory / (min_buf * (k_target + 1)))));
  p.merge_threads = mt;
  uint64_t max_k = in.memory / (min_buf * mt);
  max_k = max_k > 1 ? max_k - 1 : 0;
  if (max_k < 2) fail_usage(option_ref("memory", format_bytes(in.memory)) + " is too small to merge runs of " +
                            std::to_string(in.record_size) + "-byte records (need at least " +
                            format_bytes(3 * min_buf) + ")");
  size_t k = in.fan_in ? in.fan_in : kDefaultFanIn;
  if (k < 2) fail_usage(option_ref("fan-in") + " must be at least 2");
  if (k > max_k) { k = size_t(max_k); p.fan_in_clamped = in.fan_in != 0; }
  p.fan_in = k;
  p.levels = merge_tree(p.run_sizes, in.record_size, k, &p.temp_bytes);
  size_t widest = std::max<size_t>(1, std::min(k, p.runs));
  p.merge_buffer_bytes = size_t(in.memory / (mt * (widest + 1)) / in.record_size * in.record_size);
  p.direct_io = use_direct_io(in.direct_io, p.temp_bytes, in.page_cache_bytes);
  // Run formation reads the input and writes the runs; each level adds its own I/O.
  for (const auto& lv : p.levels) {
    p.bytes_read += lv.bytes_read;
    p.bytes_written += lv.bytes_written;
  }
}

Plan make_plan(const PlanInput& in) {
  if (in.record_size == 0) fail_usage("record size must be at least 1");
  uint64_t min_mem = minimum_memory(in);
  if (in.memory < min_mem)
    fail_usage(option_ref("memory", format_bytes(in.memory)) + " is below the minimum of " + format_bytes(min_mem));

  Plan p;
  p.input_bytes = in.input_bytes;
  p.record_size = in.record_size;
  p.records = in.input_bytes / in.record_size;
  p.memory = in.memory;
  p.output_bytes = in.input_bytes;
  const uint64_t n = p.records;
  const uint64_t data = n * in.record_size;
  // The sizes below multiply counts by per-record bytes: refuse what would wrap.
  if (n > UINT64_MAX / 4 / std::max<uint64_t>(in.sort_bytes_per_record, 1))
    fail_usage((in.input_label.empty() ? "" : in.input_label + ": ") + "an input of " + std::to_string(n) +
               " records is more than gxsort can plan (2^64 bytes of sort memory)");

  // Chunks hold at most 2^32-1 records (32-bit record indices in the sort).
  uint64_t chunk_cap = UINT32_MAX;
  if (in.max_chunk_records) chunk_cap = std::min<uint64_t>(chunk_cap, in.max_chunk_records);

  p.bytes_read = data;
  p.bytes_written = data;
  if (n <= chunk_cap && n * in.sort_bytes_per_record <= in.memory) {
    p.mode = PlanMode::in_memory;
    p.run_records = size_t(n);
    p.runs = n ? 1 : 0;
    if (n) p.run_sizes = {n};
    return p;
  }

  // Runs kept in RAM: the whole data plus one chunk's sort scratch and an output buffer.
  const uint64_t scratch_per_record = in.sort_bytes_per_record - in.record_size;
  const uint64_t out_buffer = 4 << 20;
  if (data + out_buffer < in.memory) {
    uint64_t room = in.memory - data - out_buffer;
    uint64_t chunk = std::min<uint64_t>(chunk_cap, scratch_per_record ? room / scratch_per_record : chunk_cap);
    if (chunk >= 2 && (n + chunk - 1) / chunk <= 4096) {
      p.mode = PlanMode::runs_in_memory;
      p.run_records = size_t(chunk);
    }
  }
  // Out of core: partition when asked, or when auto finds it preferred and possible:
  // instead of temp runs (not runs kept in RAM, which need no temp I/O), on few threads
  // (kPartitionMaxThreads), with the buckets fitting the page cache (they are written
  // and read through it), and no --fan-in given (that asks for a merge tree).
  const bool runs_fit_in_memory = p.mode == PlanMode::runs_in_memory;
  if (in.ooc == OocMethod::partition ||
      (in.ooc == OocMethod::automatic && in.partition_preferred && !runs_fit_in_memory && in.fan_in == 0 &&
       in.merge_threads <= kPartitionMaxThreads && !use_direct_io(in.direct_io, data, in.page_cache_bytes))) {
    Plan part = p;
    const std::string why = plan_partition(in, chunk_cap, part);
    if (why.empty()) return part;
    if (in.ooc == OocMethod::partition) fail_usage(option_ref("ooc", "partition") + ": " + why);
  }
  if (!runs_fit_in_memory) {
    p.mode = PlanMode::external;
    p.run_records = external_run_records(in);
  }
  p.runs = size_t((n + p.run_records - 1) / p.run_records);
  // Runs of equal size (the last at most runs - 1 records short), not full runs and a
  // small last one: the runs held in memory for the merge (Plan::held_runs) are the last.
  if (p.mode == PlanMode::external) p.run_records = size_t((n + p.runs - 1) / p.runs);
  for (size_t r = 0; r < p.runs; ++r) p.run_sizes.push_back(std::min<uint64_t>(p.run_records, n - uint64_t(r) * p.run_records));

  if (p.mode == PlanMode::runs_in_memory) {
    p.fan_in = p.runs;
    p.levels = merge_tree(p.run_sizes, in.record_size, p.runs, nullptr);
    return p;
  }

  plan_merge_tree(in, p);
  return p;
}

}  // namespace gxsort
