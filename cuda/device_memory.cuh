// The device memory manager: one per GPU, the only place in gxsort that calls cudaMalloc.
//
// At start it takes the whole --device-memory budget as ONE cudaMalloc arena and hands
// out 256-byte-aligned sub-allocations to every module (sort, merge, dedupe, reduce,
// BFS, CUB temp storage). One big allocation up front means a run either gets its
// memory at start or fails at once with a clear message, never halfway through a sort;
// and sub-allocating is a few map operations instead of a cudaMalloc/cudaFree pair,
// which synchronizes the device.
//
// The allocator is a first-fit free list kept in address order, coalescing neighbours
// on free. gxsort holds a handful of large buffers at a time, so a linear scan is cheap
// and fragmentation stays low when modules free in roughly reverse order.
//
// Freeing is host bookkeeping only: it does not wait for the device. Whoever frees must
// make sure no queued work still uses the memory, or that the next user's work is
// ordered after it on the same stream (the CUDA backend keeps every phase of a sort
// ordered on one stream and synchronizes before its buffers go).
//
// This header is plain C++ (no CUDA types), so host code can include it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "gxsort/error.hpp"
#include "gxsort/options.hpp"

namespace gxsort::cuda {

// --device-memory to a byte budget: not given, 80% of free device memory; a percent, of
// free device memory. Throws Error(usage) for a zero budget or more than total_bytes.
size_t device_budget(const SizeOption& budget, size_t free_bytes, size_t total_bytes);

class DeviceMemory;

// An owned sub-allocation of a DeviceMemory arena; returns its bytes on destruction.
// The DeviceMemory must outlive every allocation it handed out.
class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  DeviceAllocation(DeviceAllocation&& o) noexcept { swap(o); }
  DeviceAllocation& operator=(DeviceAllocation&& o) noexcept {
    DeviceAllocation t(std::move(o));
    swap(t);
    return *this;
  }
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  ~DeviceAllocation() { reset(); }

  void* get() const { return p_; }
  size_t size() const { return n_; }  // the bytes asked for (the arena reserves them rounded up)
  explicit operator bool() const { return p_ != nullptr; }
  void reset();  // give the bytes back now (see the note on freeing above)
  void swap(DeviceAllocation& o) noexcept {
    std::swap(mem_, o.mem_);
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
  }

 private:
  friend class DeviceMemory;
  DeviceAllocation(DeviceMemory* m, void* p, size_t n) : mem_(m), p_(p), n_(n) {}
  DeviceMemory* mem_ = nullptr;
  void* p_ = nullptr;
  size_t n_ = 0;
};

// A typed view of a DeviceAllocation: `count` elements of T (uninitialized).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(DeviceMemory& m, size_t count, const std::string& what);
  T* data() const { return static_cast<T*>(a_.get()); }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  explicit operator bool() const { return bool(a_); }
  void reset() { a_.reset(); count_ = 0; }

 private:
  DeviceAllocation a_;
  size_t count_ = 0;
};

class DeviceMemory {
 public:
  static constexpr size_t kAlignment = 256;  // every sub-allocation starts on this boundary

  // The budget `budget` gives (see device_budget) on `device`, reserved (one cudaMalloc)
  // at the first allocation. Throws Error(usage) for bad text, Error(io) when the budget
  // exceeds the free device memory (here) or the arena cannot be allocated (at the first
  // allocation), Error(device) for other CUDA failures.
  DeviceMemory(int device, const SizeOption& budget);
  // A budget of exactly `budget_bytes` (rounded down to kAlignment), reserved the same way.
  DeviceMemory(int device, size_t budget_bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // A sub-allocation of at least `bytes` (0 is served as kAlignment bytes, so the pointer
  // is never null: CUB reads a null temp pointer as a size query). `what` names the
  // buffer in the error thrown (Error(io)) when no free block is large enough.
  DeviceAllocation allocate(size_t bytes, const std::string& what);
  template <class T>
  device_buffer<T> buffer(size_t count, const std::string& what) {
    return device_buffer<T>(*this, count, what);
  }

  // Whether `bytes` could be allocated now (one contiguous free block).
  bool fits(size_t bytes) const { return bytes <= budget_ && round_up(bytes) <= largest_free(); }

  int device() const { return device_; }
  // The arena's one cudaMalloc: what CUDA IPC shares with another process (whole); null
  // before the first allocation.
  unsigned char* base() const { return base_; }
  size_t budget() const { return budget_; }
  size_t in_use() const;        // bytes reserved by live allocations (rounded up)
  size_t peak() const;          // the most in_use() has been since start or reset_peak()
  void reset_peak();
  size_t largest_free() const;  // the largest contiguous free block
  size_t live_allocations() const;

  static size_t round_up(size_t bytes) {
    size_t b = bytes == 0 ? kAlignment : bytes;
    return (b + kAlignment - 1) / kAlignment * kAlignment;
  }

 private:
  friend class DeviceAllocation;
  void init(int device, size_t budget_bytes);
  void reserve();  // the arena's cudaMalloc, at the first allocation
  void release(void* p);

  int device_ = 0;
  unsigned char* base_ = nullptr;
  size_t budget_ = 0;
  mutable std::mutex mu_;
  std::map<size_t, size_t> free_;  // offset -> size, address order, neighbours coalesced
  std::map<size_t, size_t> used_;  // offset -> reserved size
  size_t in_use_ = 0;
  size_t peak_ = 0;
};

inline void DeviceAllocation::reset() {
  if (p_ && mem_) mem_->release(p_);
  mem_ = nullptr;
  p_ = nullptr;
  n_ = 0;
}

template <class T>
device_buffer<T>::device_buffer(DeviceMemory& m, size_t count, const std::string& what)
    : a_(m.allocate(count * sizeof(T), what)), count_(count) {}

}  // namespace gxsort::cuda
