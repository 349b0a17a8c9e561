// A Plan as the data `gxsort plan` shows (gxsort/plan_report.hpp): the front ends render it.
#include "kernels/key_bitmap.hpp"
#include "plan/plan.hpp"

namespace gxsort {
namespace {

ChunkPlan chunk_plan(const StreamPlan& s) { return {s.chunk_records, s.chunk_bytes, s.slots}; }

SortPlanReport sort_report(const Plan& p) {
  SortPlanReport s;
  s.mode = p.mode;
  s.run_records = p.run_records;
  s.runs = p.runs;
  s.run_sizes = p.run_sizes;
  s.fan_in = p.fan_in;
  s.fan_in_clamped = p.fan_in_clamped;
  s.merge_buffer_bytes = p.merge_buffer_bytes;
  s.merge_threads = p.merge_threads;
  s.levels = p.levels;
  s.temp_bytes = p.temp_bytes;
  s.direct_io = p.direct_io;
  s.early_writeback_bytes = p.early_writeback_bytes;
  s.held_runs = p.held_runs;
  s.held_run_bytes = p.held_run_bytes;
  s.run_files = p.run_files;
  s.buckets = p.buckets;
  s.bucket_records = p.bucket_records;
  s.partition_chunk_bytes = p.partition_chunk_bytes;
  s.partition_stage_bytes = p.partition_stage_bytes;
  s.output_bytes = p.output_bytes;
  s.bytes_read = p.bytes_read;
  s.bytes_written = p.bytes_written;
  return s;
}

DedupePlanReport dedupe_report(const DedupePlan& d) {
  DedupePlanReport r;
  r.strategy = d.strategy;
  r.keep_first = d.keep_first;
  r.sort_planned = d.sort_planned;
  r.bitmap = chunk_plan(d.bitmap);
  if (d.bitmap_budget != UINT64_MAX) r.bitmap_budget = d.bitmap_budget;
  r.bitmap_bytes = kBitmapBytes;
  r.group = chunk_plan(d.group);
  r.key_samples = kKeySpanSamples;
  if (d.key_span) r.key_span = d.key_span;
  return r;
}

BfsPlanReport bfs_report(const BfsPlan& b) {
  BfsPlanReport r;
  r.load_budget = b.load_budget;
  r.graph_known = b.graph_known;
  r.vertices = b.vertices;
  r.edges = b.edges;
  r.on_device = b.on_device;
  r.device_budget = b.device_budget;
  r.resident_bytes = b.device.resident_bytes;
  r.need_bytes = b.device.need_bytes;
  r.streamed = b.device.streamed;
  r.host_mapped = b.device.host_mapped;
  r.partition_edges = b.device.partition_edges;
  r.partitions = b.device.partitions;
  return r;
}

}  // namespace

PlanReport plan_report(const Plan& p) {
  PlanReport r;
  r.command = p.command;
  r.stream = p.stream;
  r.threads = p.threads;
  r.memory = p.memory;
  r.input_bytes = p.input_bytes;
  r.records = p.records;
  r.record_size = p.record_size;
  r.chunks = chunk_plan(p.chunks);
  r.window_memory = p.window_memory;
  r.sort = sort_report(p);
  r.dedupe = dedupe_report(p.dedupe);
  r.graph = {p.graph.parse_block_bytes, p.graph.csr_block_bytes, p.graph.offsets_budget, p.graph.max_edge_records};
  r.bfs = bfs_report(p.bfs);
  return r;
}

}  // namespace gxsort
