// The host sort behind the in-memory API (gxsort/memory.hpp): a caller's buffer sorted
// in memory when the engine's plan holds it there, else through private temp files and
// the out-of-core engine.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "gxsort/gxsort.hpp"
#include "gxsort/memory.hpp"

namespace gxsort::api {

// The engine options of an in-memory call: its resources, records of format f.
EngineOptions engine_options(const Format& f, const MemoryOptions& o);

// The backend of an in-memory sort of `bytes` in host memory: `asked`, except that under
// Device::automatic a buffer of at most kCpuBytesPerThread a thread is the CPU's (it sorts
// one that small faster than a GPU starts, fits its arena and copies it in and out).
constexpr uint64_t kCpuBytesPerThread = uint64_t(4) << 20;
Device host_buffer_device(Device asked, uint64_t bytes, unsigned threads);

// Stable sort, in place, of n records of opt.format in host memory.
void sort_host(unsigned char* data, size_t n, const EngineOptions& opt);
// The same sort from `in` into `out` (host buffers that do not overlap; `in` is not
// written): in memory, the backend's sort_into (a GPU copies in from one and out to the
// other); through temp files, a copy sorted in place.
void sort_host_copy(const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt);

// Records made by the call, sorted stably and handed back in sorted order (argsort and
// unique: records with their index). fill(dst, first, count) writes records [first,
// first + count) at dst; take(sorted, first, count) gets sorted records [first, first +
// count), the pieces in order. In memory (one piece each) when the plan holds the n
// records there; else through temp files, in pieces of a part of the budget: the
// records are never all in memory.
using FillRecords = std::function<void(unsigned char* dst, size_t first, size_t count)>;
using TakeRecords = std::function<void(const unsigned char* sorted, size_t first, size_t count)>;
void sort_made_records(size_t n, const EngineOptions& opt, const FillRecords& fill, const TakeRecords& take);

// Host memory of `bytes` bytes, not initialized; OutOfMemory when there is none.
std::unique_ptr<unsigned char[]> host_bytes(size_t bytes);

// merge's refusal of input k, whose record i is smaller than the one before it (Error(usage)).
[[noreturn]] inline void fail_unsorted_input(size_t k, size_t i) {
  fail_usage("merge: input " + std::to_string(k) + " is not sorted: record " + std::to_string(i) +
             " is smaller than the one before it");
}

// n records of f, in bytes; Error(usage) when that overflows.
size_t records_bytes(size_t n, const Format& f);

}  // namespace gxsort::api
