// A sparse index of a sorted run, kept in memory as the run is written: the byte offset
// and the text of a line every so many bytes, so that the last merge can cut every run
// at a chosen line reading one block of it, not the whole run (merge_split.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gxsort::lines {

struct RunSample {
  uint64_t offset = 0;  // where the line starts in the run
  std::string line;     // without its terminator
};

struct RunIndex {
  uint64_t budget = 0;  // set by its writer's caller: about the bytes the samples may take
  uint64_t bytes = 0;   // the run's size
  std::vector<RunSample> samples;  // in the run's order
};

// Lines longer than this are not sampled (the next line is): a few long lines must not
// fill the index's budget.
constexpr size_t kMaxSampleLine = 1024;

// The bytes between two samples of a run of `run_bytes` in `lines` lines, so that its
// samples take about `budget` bytes (and never fewer than 64 KiB: one block read per cut).
uint64_t sample_interval(uint64_t run_bytes, uint64_t lines, uint64_t budget);

// The bytes a sample of `line` takes.
inline uint64_t sample_bytes(size_t line) { return sizeof(RunSample) + line; }

}  // namespace gxsort::lines
