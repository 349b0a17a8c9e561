// A sparse index of a sorted run, kept in memory as the run is written: the byte offset
// and the text of a line every so many bytes, so that the last merge can cut every run
// at a chosen line reading one block of it, not the whole run (merge_split.hpp).
#pragma once
#include <sys/mman.h>

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace gxsort::lines {

// Memory mapped on its own for an index, not taken from the heap: a block of it left
// between the sort's large buffers as they are freed grew the heap by a buffer's size
// (20 MB more resident on a 300 MB sort in 80 MB).
template <class T>
struct MappedAllocator {
  using value_type = T;
  MappedAllocator() = default;
  template <class U>
  MappedAllocator(const MappedAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { ::munmap(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const MappedAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const MappedAllocator<U>&) const { return false; }
};

// The samples in three arrays, not a string each: a few allocations, sized once.
struct RunIndex {
  uint64_t budget = 0;  // set by its writer's caller: about the bytes the samples may take
  uint64_t bytes = 0;   // the run's size
  std::vector<uint64_t, MappedAllocator<uint64_t>> offsets;  // where each sampled line starts in the run, in order
  std::vector<size_t, MappedAllocator<size_t>> ends;         // where each sampled line ends in `text`
  std::vector<char, MappedAllocator<char>> text;             // the sampled lines, one after another

  size_t size() const { return offsets.size(); }
  std::string_view line(size_t i) const {
    const size_t begin = i ? ends[i - 1] : 0;
    return {text.data() + begin, ends[i] - begin};
  }
  void add(uint64_t offset, std::string_view line) {
    offsets.push_back(offset);
    text.insert(text.end(), line.begin(), line.end());
    ends.push_back(text.size());
  }
  // `parts` (a run's, in order) appended, its arrays allocated once.
  void append(const std::vector<RunIndex>& parts) {
    size_t samples = size(), bytes_of_text = text.size();
    for (const RunIndex& part : parts) samples += part.size(), bytes_of_text += part.text.size();
    offsets.reserve(samples);
    ends.reserve(samples);
    text.reserve(bytes_of_text);
    for (const RunIndex& part : parts)
      for (size_t i = 0; i < part.size(); ++i) add(part.offsets[i], part.line(i));
  }
};

// Lines longer than this are not sampled (the next line is): a few long lines must not
// fill the index's budget.
constexpr size_t kMaxSampleLine = 1024;

// The bytes between two samples of a run of `run_bytes` in `lines` lines, so that its
// samples take about `budget` bytes (and never fewer than 64 KiB: one block read per cut).
uint64_t sample_interval(uint64_t run_bytes, uint64_t lines, uint64_t budget);

// The bytes a sample of `line` takes.
inline uint64_t sample_bytes(size_t line) { return sizeof(uint64_t) + sizeof(size_t) + line; }

}  // namespace gxsort::lines
