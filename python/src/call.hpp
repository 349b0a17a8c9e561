// What every binding of the extension module shares: the options a Python call gives
// (keyword arguments, resolved by the package's Python code into a dict), the record
// format a dtype was mapped to, and the way a library call runs: on a worker thread,
// with the GIL released, while the calling thread watches for Ctrl-C and delivers
// progress to the Python callback (a short call: on the calling thread, run_call).
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <string>

#include "gxsort/gxsort.hpp"
#include "gxsort/memory.hpp"

namespace gxsort::py {

namespace nb = nanobind;

// The format of records of `record_size` bytes ordered by `fields`: a list of
// (offset, type name, width, descending) tuples, most significant first; type names are
// the CLI's (u8 .. f64, the big-endian forms u16be .., and "bytes").
Format format_of(size_t record_size, const nb::list& fields);

// The resources of a call from the dict `options` (keys: memory, device_memory (the
// CLI's size texts or byte counts), threads, device ("auto", "cpu", "cuda"),
// device_index, tmp_dir (a list of directories)).
MemoryOptions memory_options(const nb::dict& options);
EngineOptions engine_options(const nb::dict& options);

// Runs `work` on a worker thread with the GIL released. Meanwhile the calling thread
// calls `progress` (a Python callable, or None) with each new (phase, done, total) and
// looks for signals: a KeyboardInterrupt (or any exception a signal handler raises) sets
// the token `work` was given, waits for `work` to stop, and is raised. A library Error
// is raised as the package's exception of its exit code (gxsort._errors).
void run_released(const std::function<void(const CancelToken&, const ProgressFn&)>& work, nb::handle progress);

// A call on `bytes` of records: below `watched_from` and without a progress callback, on
// the calling thread with the GIL released (it ends within milliseconds, and starting the
// watched worker cost more than sorting a small array); else as run_released.
constexpr size_t kWatchedHostBytes = size_t(16) << 20;     // a CPU sort of this takes milliseconds
constexpr size_t kWatchedDeviceBytes = size_t(256) << 20;  // a GPU's, one
void run_call(size_t bytes, size_t watched_from, const std::function<void(const CancelToken&, const ProgressFn&)>& work,
              nb::handle progress);

// Registers the translation of library errors into the package's exceptions.
void register_errors(nb::module_& m);

}  // namespace gxsort::py
