// std::vector for arrays of gigabytes that loops on many threads fill: resize leaves
// the elements default-initialized (no zeroing on one thread: the loop that fills them
// faults their pages in on every thread), and blocks of kBigBlock bytes and more are
// mapped anonymous with transparent huge pages advised (fewer faults, fewer TLB misses
// in random reads, and unmapped in a fraction of the time).
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gxsort {

template <class T>
struct BigAllocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "operator new aligns this much only");
  using value_type = T;
  static constexpr size_t kBigBlock = size_t(64) << 20;
  static constexpr size_t kHugePage = size_t(2) << 20;

  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const size_t bytes = n * sizeof(T);
    if (bytes < kBigBlock) return static_cast<T*>(::operator new(bytes));
    void* p = ::mmap(nullptr, mapped(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, mapped(bytes), MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes < kBigBlock) return ::operator delete(p);
    ::munmap(p, mapped(bytes));
  }

  // Default-initialization where the vector would value-initialize (zero) a trivial type.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const BigAllocator<U>&) const noexcept { return false; }

 private:
  static size_t mapped(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
};

template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace gxsort
