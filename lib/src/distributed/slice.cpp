#include "distributed/slice.hpp"

#include <algorithm>

#include "distributed/device_pass.hpp"
#include "engine/run_formation.hpp"
#include "io/mapped_file.hpp"
#include "kernels/unique.hpp"

namespace gxsort::distributed {

uint64_t LocalRuns::records() const {
  uint64_t n = 0;
  for (const RunRef& r : runs) n += r.records;
  return n;
}

void LocalRuns::release() {
  runs.clear();
  files.clear();
  memory = HostBuffer();
}

namespace {

// The slice, sorted whole in out.memory, as its one run (-u: the first of each key kept).
void add_whole_run(LocalRuns& out, uint64_t n, const io::File& in, const EngineOptions& opt) {
  RunRef run;
  run.mem = out.memory.data();
  run.records = opt.unique ? unique_in_place(opt.format, out.memory.data(), size_t(n)) : n;
  run.name = in.path();
  out.runs.push_back(run);
}

// One run: the slice's cached pages mapped and sorted straight into the buffer, where
// the backend's own scratch is a copy of the records anyway (the CPU's): no read copy,
// no copy back, and no scratch for flat keys.
bool sorted_from_mapping(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt,
                         LocalRuns& out) {
  const Format& f = opt.format;
  const uint64_t n = shape.slice.records;
  if (shape.run_records < n || p.backend->sort_scratch_bytes(f, size_t(n)) < n * f.record_size) return false;
  const io::MappedFile src = io::MappedFile::map_read(in, size_t(n * f.record_size), shape.slice.first * f.record_size, false);
  sort_mapped_input(*p.backend, f, in, src.data(), out.memory.data(), size_t(n));
  add_whole_run(out, n, in, opt);
  return true;
}

// One run sorted by a device that holds the slice (distributed/device_pass.hpp): read
// into pinned slots, sorted on the device, copied out into pageable memory on every
// thread (a pinned buffer of the whole slice took seconds to allocate, and the host's
// sort_chunk path was 4-5x slower than this one on the H100 host).
bool sorted_on_device(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt,
                      LocalRuns& out) {
  const uint64_t n = shape.slice.records;
  if (shape.run_records < n) return false;
  std::unique_ptr<DeviceResidentSort> resident = p.backend->begin_resident_sort(opt.format, size_t(n));
  if (!resident) return false;
  DeviceSlots slots(*p.backend, opt.format.record_size, n, p.plan.resident_slice_bytes);
  load_on_device(slots, *resident, slice_reader(in, shape, opt.format.record_size, p.threads), opt.progress);
  resident->sort();
  out = copy_to_host(slots, *resident, p, in, opt);
  return true;
}

// The slice in host memory (the backend's: pinned for a GPU), sorted there in runs of
// shape.run_records: from a mapping of the input, or read and sorted run by run in
// place with one run's scratch.
LocalRuns sort_in_memory(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t n = shape.slice.records;
  LocalRuns out;
  if (sorted_on_device(p, shape, in, opt, out)) return out;
  out.memory = p.backend->allocate_host(size_t(n * rs));
  if (sorted_from_mapping(p, shape, in, opt, out)) return out;
  in.read_at_parallel(out.memory.data(), size_t(n * rs), shape.slice.first * rs, p.threads);
  if (opt.progress) opt.progress({"read", n * rs, n * rs});
  HostBuffer scratch = p.backend->allocate_host(p.backend->sort_scratch_bytes(f, size_t(shape.run_records)));
  for (uint64_t first = 0; first < n; first += shape.run_records) {
    RunRef run;
    run.mem = out.memory.data() + first * rs;
    run.records = std::min<uint64_t>(shape.run_records, n - first);
    run.name = in.path();
    auto* data = const_cast<unsigned char*>(run.mem);
    p.backend->sort_chunk(f, data, size_t(run.records), scratch.data());
    if (opt.unique) run.records = unique_in_place(f, data, size_t(run.records));
    out.runs.push_back(run);
    if (opt.progress) opt.progress({"sort runs", (first + run.records) * rs, n * rs});
  }
  return out;
}

// The slice formed into sorted run files (run formation over a view of the input that
// starts at the slice).
LocalRuns sort_to_run_files(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt) {
  const Format& f = opt.format;
  io::File slice = io::File::open_read(in.path());
  slice.set_base(in.base() + shape.slice.first * f.record_size);
  const auto t_alloc = Clock::now();
  RunBuffers buffers(*p.backend, f, size_t(shape.run_records), size_t(std::min<uint64_t>(3, shape.runs)));
  const double allocate_seconds = since(t_alloc);
  RunSource src;
  src.total_bytes = shape.slice.records * f.record_size;
  src.run_records = size_t(shape.run_records);
  src.direct_io = p.plan.direct_io;
  src.unique = opt.unique;
  RunFormation rf = form_run_files(p, buffers, src, slice, f, opt.progress);
  LocalRuns out;
  out.stages = run_stages(allocate_seconds, rf);
  out.files = std::move(rf.runs);
  for (const TreeInput& t : out.files) out.runs.push_back(t.ref());
  return out;
}

}  // namespace

Fill slice_reader(const io::File& in, const RankShape& shape, size_t rs, unsigned threads) {
  const uint64_t at = shape.slice.first * rs;
  return [&in, at, rs, threads](unsigned char* dst, uint64_t first, uint64_t count) {
    in.read_at_parallel(dst, size_t(count * rs), at + first * rs, threads);
  };
}

LocalRuns copy_to_host(DeviceSlots& slots, DeviceResidentSort& sorted, Prepared& p, const io::File& in,
                       const EngineOptions& opt) {
  const size_t rs = slots.rs;
  const uint64_t n = slots.bytes / rs;
  LocalRuns out;
  out.memory = touched_host_buffer(size_t(slots.bytes), p.threads);
  unload_from_device(slots, sorted, [&](const unsigned char* src, uint64_t first, uint64_t count) {
    io::parallel_copy(out.memory.data() + first * rs, src, size_t(count * rs), p.threads);
  }, opt.progress);
  add_whole_run(out, n, in, opt);
  return out;
}

LocalRuns sort_slice(Prepared& p, const RankShape& shape, const io::File& in, const EngineOptions& opt) {
  if (shape.slice.records == 0) return {};
  if (shape.local == PlanMode::external) return sort_to_run_files(p, shape, in, opt);
  return sort_in_memory(p, shape, in, opt);
}

}  // namespace gxsort::distributed
