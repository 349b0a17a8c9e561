// The chunk scheduler: moves a sequence of chunks through read → compute → write,
// with several chunks in flight, so that reading chunk i+1, computing chunk i and
// writing chunk i-1 overlap. One thread per stage, FIFO hand-offs (order is kept),
// backpressure from a fixed number of slots, the first error from any stage cancels
// the others and is rethrown to the caller. Generic over its stages: run formation
// (CPU or GPU sort), reductions, checks and dedupe plug in as compute stages.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "gxsort/cancel.hpp"
#include "gxsort/progress.hpp"

namespace gxsort::pipeline {

struct Chunk {
  size_t index = 0;            // position in the sequence
  uint64_t offset = 0;         // first byte of the chunk in the input stream
  size_t bytes = 0;            // valid bytes in data (compute may shrink it)
  unsigned char* data = nullptr;
  size_t capacity = 0;         // bytes the slot buffer holds
  size_t slot = 0;             // which slot buffer (stages may keep per-slot state)
  bool held = false;           // set by the write stage: the chunk keeps its slot buffer, which
                               // no later chunk is read into (run formation's held runs)
};

struct Stages {
  std::function<void(Chunk&)> read;     // fill data with `bytes` bytes from `offset`
  std::function<void(Chunk&)> compute;  // optional
  std::function<void(Chunk&)> write;    // optional; called in chunk order
};

// Config::total_bytes of a stream whose length is unknown until it ends (a pipe): the
// read stage sets Chunk::bytes to what it read, and the stream ends with the first chunk
// shorter than chunk_bytes (an empty last chunk is dropped). Progress reports a total of 0.
constexpr uint64_t kUntilEnd = UINT64_MAX;

// The seconds each stage spent in its function (write: summed over its threads). The
// stages overlap: the busiest bounds the stream.
struct Busy {
  double read = 0, compute = 0, write = 0;
};

struct Config {
  uint64_t total_bytes = 0;   // length of the stream, or kUntilEnd
  size_t chunk_bytes = 0;     // bytes per chunk (the last may be shorter)
  const char* phase = "";     // progress phase name
  const CancelToken* cancel = nullptr;  // set from outside to stop early (throws Cancelled)
  // Threads of the write stage. Above 1, write is called for several chunks at once and
  // out of chunk order (for chunks that go to separate files: one file's buffered
  // writes are serialized by the kernel, separate files' are not).
  unsigned write_threads = 1;
  Busy* busy = nullptr;       // filled when given
};

// Runs the stream through the stages using the given slot buffers (each at least
// chunk_bytes long; at least one). Chunk i < slots.size() takes slot i (so a caller may
// fill the first slot before the run, and have the read stage of chunk 0 keep it). Returns when every chunk is written, or rethrows
// the first stage error.
void run_chunks(const Config& cfg, const std::vector<unsigned char*>& slots, const Stages& stages,
                const ProgressFn& progress);

}  // namespace gxsort::pipeline
