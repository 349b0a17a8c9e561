// The in-memory calls (gxsort/memory.hpp) on buffers the package's Python code prepared:
// C-contiguous host arrays (numpy), or device pointers it took from
// __cuda_array_interface__, with the records' size and key fields.
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "call.hpp"

namespace gxsort::py {
using namespace nb::literals;
namespace {

using HostIn = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using HostOut = nb::ndarray<nb::c_contig, nb::device::cpu>;
using Indices = nb::ndarray<uint64_t, nb::c_contig, nb::device::cpu>;

// Host calls below this many bytes run unwatched (run_call), unless a memory budget is
// given: the array may then be sorted through temp files, which takes longer.
size_t host_watched_from(const MemoryOptions& o) { return o.memory.given ? 0 : kWatchedHostBytes; }
// Device calls likewise, unless a budget is given: past it the array goes through host
// memory (and temp files).
size_t device_watched_from(const MemoryOptions& o) {
  return o.memory.given || o.device_memory.given ? 0 : kWatchedDeviceBytes;
}

// `a` holds at least n records of f (the Python side sized it; a check, not a parse).
void need_room(size_t bytes, size_t n, const Format& f, const char* what) {
  if (n > bytes / f.record_size)
    throw Error(ExitCode::usage, std::string(what) + ": the buffer is smaller than its records");
}

void sort_host(HostOut a, size_t n, size_t record_size, const nb::list& fields, const nb::dict& options,
               nb::handle progress) {
  const Format f = format_of(record_size, fields);
  need_room(a.nbytes(), n, f, "sort");
  MemoryOptions o = memory_options(options);
  void* data = a.data();
  run_call(n * f.record_size, host_watched_from(o), [&](const CancelToken& c, const ProgressFn& p) {
    o.cancel = &c;
    o.progress = p;
    sort(data, n, f, o);
  }, progress);
}

void sort_copy_host(HostIn in, HostOut out, size_t n, size_t record_size, const nb::list& fields,
                    const nb::dict& options, nb::handle progress) {
  const Format f = format_of(record_size, fields);
  need_room(in.nbytes(), n, f, "sort");
  need_room(out.nbytes(), n, f, "sort");
  MemoryOptions o = memory_options(options);
  const void* src = in.data();
  void* dst = out.data();
  run_call(n * f.record_size, host_watched_from(o), [&](const CancelToken& c, const ProgressFn& p) {
    o.cancel = &c;
    o.progress = p;
    sort_copy(src, dst, n, f, o);
  }, progress);
}

void argsort_host(HostIn a, size_t n, size_t record_size, const nb::list& fields, Indices perm,
                  const nb::dict& options, nb::handle progress) {
  const Format f = format_of(record_size, fields);
  need_room(a.nbytes(), n, f, "argsort");
  if (perm.size() < n) throw Error(ExitCode::usage, "argsort: the permutation is smaller than the records");
  MemoryOptions o = memory_options(options);
  const void* data = a.data();
  uint64_t* out = perm.data();
  run_call(n * f.record_size, host_watched_from(o), [&](const CancelToken& c, const ProgressFn& p) {
    o.cancel = &c;
    o.progress = p;
    argsort(data, n, f, out, o);
  }, progress);
}

size_t unique_host(HostIn a, size_t n, size_t record_size, const nb::list& fields, HostOut out, Indices counts,
                   Indices first_index, const nb::dict& options, nb::handle progress) {
  const Format f = format_of(record_size, fields);
  need_room(a.nbytes(), n, f, "unique");
  need_room(out.nbytes(), n, f, "unique");
  if (counts.size() < n || first_index.size() < n) throw Error(ExitCode::usage, "unique: the outputs are too small");
  MemoryOptions o = memory_options(options);
  size_t groups = 0;
  const void* data = a.data();
  void* dst = out.data();
  run_call(n * f.record_size, host_watched_from(o), [&](const CancelToken& c, const ProgressFn& p) {
    o.cancel = &c;
    o.progress = p;
    groups = unique(data, n, f, dst, counts.data(), first_index.data(), o);
  }, progress);
  return groups;
}

void merge_host(const std::vector<HostIn>& inputs, const std::vector<size_t>& counts, size_t record_size,
                const nb::list& fields, HostOut out, const nb::dict& options, nb::handle progress) {
  const Format f = format_of(record_size, fields);
  std::vector<SortedRecords> in;
  size_t total = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    need_room(inputs[k].nbytes(), counts.at(k), f, "merge");
    in.push_back({inputs[k].data(), counts[k]});
    total += counts[k];
  }
  need_room(out.nbytes(), total, f, "merge");
  MemoryOptions o = memory_options(options);
  void* dst = out.data();
  run_call(total * f.record_size, host_watched_from(o), [&](const CancelToken& c, const ProgressFn& p) {
    o.cancel = &c;
    o.progress = p;
    merge(in, f, dst, o);
  }, progress);
}

size_t first_unsorted_host(HostIn a, size_t n, size_t record_size, const nb::list& fields) {
  const Format f = format_of(record_size, fields);
  need_room(a.nbytes(), n, f, "is_sorted");
  const void* data = a.data();
  nb::gil_scoped_release unlocked;
  return first_unsorted(data, n, f);
}

// The GPUs' streams and memory arenas kept between device calls (gxsort/memory.hpp): a
// module's, never destroyed by a static destructor (the CUDA runtime may be gone by then);
// release_device_memory frees what it holds, at exit too (gxsort/_device.py).
DeviceWorkspace& device_workspace() {
  static DeviceWorkspace* workspace = new DeviceWorkspace;
  return *workspace;
}

void release_device_memory() {
  nb::gil_scoped_release unlocked;  // it waits for calls running on other threads
  device_workspace().release();
}

// Device buffers: pointers and the stream (cudaStream_t as an integer) of the caller's array.
MemoryOptions device_options(const nb::dict& options, unsigned device_index, uintptr_t stream) {
  MemoryOptions o = memory_options(options);
  o.location = BufferLocation::device;
  o.device_index = device_index;
  o.stream = stream;
  o.workspace = &device_workspace();
  return o;
}

void sort_device(uintptr_t data, size_t n, size_t record_size, const nb::list& fields, unsigned device_index,
                 uintptr_t stream, const nb::dict& options) {
  const Format f = format_of(record_size, fields);
  MemoryOptions o = device_options(options, device_index, stream);
  run_call(n * f.record_size, device_watched_from(o), [&](const CancelToken& c, const ProgressFn&) {
    o.cancel = &c;
    sort(reinterpret_cast<void*>(data), n, f, o);
  }, nb::none());
}

void sort_copy_device(uintptr_t in, uintptr_t out, size_t n, size_t record_size, const nb::list& fields,
                      unsigned device_index, uintptr_t stream, const nb::dict& options) {
  const Format f = format_of(record_size, fields);
  MemoryOptions o = device_options(options, device_index, stream);
  run_call(n * f.record_size, device_watched_from(o), [&](const CancelToken& c, const ProgressFn&) {
    o.cancel = &c;
    sort_copy(reinterpret_cast<const void*>(in), reinterpret_cast<void*>(out), n, f, o);
  }, nb::none());
}

void argsort_device(uintptr_t data, size_t n, size_t record_size, const nb::list& fields, uintptr_t perm,
                    unsigned device_index, uintptr_t stream, const nb::dict& options) {
  const Format f = format_of(record_size, fields);
  MemoryOptions o = device_options(options, device_index, stream);
  run_call(n * f.record_size, device_watched_from(o), [&](const CancelToken& c, const ProgressFn&) {
    o.cancel = &c;
    argsort(reinterpret_cast<const void*>(data), n, f, reinterpret_cast<uint64_t*>(perm), o);
  }, nb::none());
}

size_t first_unsorted_device(uintptr_t data, size_t n, size_t record_size, const nb::list& fields,
                             unsigned device_index, uintptr_t stream, const nb::dict& options) {
  const Format f = format_of(record_size, fields);
  const MemoryOptions o = device_options(options, device_index, stream);
  nb::gil_scoped_release unlocked;
  return first_unsorted(reinterpret_cast<const void*>(data), n, f, o);
}

// inputs: (pointer, count) of each sorted device buffer.
void merge_device(const std::vector<std::pair<uintptr_t, size_t>>& inputs, size_t record_size,
                  const nb::list& fields, uintptr_t out, unsigned device_index, uintptr_t stream,
                  const nb::dict& options) {
  const Format f = format_of(record_size, fields);
  MemoryOptions o = device_options(options, device_index, stream);
  std::vector<SortedRecords> in;
  size_t total = 0;
  for (const auto& [data, count] : inputs) {
    in.push_back({reinterpret_cast<const void*>(data), count});
    total += count;
  }
  run_call(total * f.record_size, device_watched_from(o), [&](const CancelToken& c, const ProgressFn&) {
    o.cancel = &c;
    merge(in, f, reinterpret_cast<void*>(out), o);
  }, nb::none());
}

}  // namespace

void bind_arrays(nb::module_& m) {
  // progress may be None (nanobind refuses None for an argument not marked so).
  const auto none = [](const char* name) { return nb::arg(name).none(); };
  m.def("sort", &sort_host, "a"_a, "n"_a, "record_size"_a, "fields"_a, "options"_a, none("progress"));
  m.def("sort_copy", &sort_copy_host, "a"_a, "out"_a, "n"_a, "record_size"_a, "fields"_a, "options"_a,
        none("progress"));
  m.def("argsort", &argsort_host, "a"_a, "n"_a, "record_size"_a, "fields"_a, "perm"_a, "options"_a, none("progress"));
  m.def("unique", &unique_host, "a"_a, "n"_a, "record_size"_a, "fields"_a, "out"_a, "counts"_a, "first_index"_a,
        "options"_a, none("progress"));
  m.def("merge", &merge_host, "inputs"_a, "counts"_a, "record_size"_a, "fields"_a, "out"_a, "options"_a,
        none("progress"));
  m.def("first_unsorted", &first_unsorted_host);
  m.def("sort_device", &sort_device);
  m.def("sort_copy_device", &sort_copy_device);
  m.def("argsort_device", &argsort_device);
  m.def("first_unsorted_device", &first_unsorted_device);
  m.def("merge_device", &merge_device);
  m.def("release_device_memory", &release_device_memory);
}

}  // namespace gxsort::py
