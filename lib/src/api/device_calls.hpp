// The in-memory API's device buffers (gxsort/memory.hpp): sort and argsort on the GPU
// holding them, and unique and merge there too, with the backend of the caller's
// DeviceWorkspace or one made for the call; through host memory for a buffer whose work
// one device call cannot take.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gxsort/memory.hpp"

namespace gxsort::api {

void sort_device(void* data, size_t n, const Format& f, const MemoryOptions& o);
void sort_copy_device(const void* in, void* out, size_t n, const Format& f, const MemoryOptions& o);
void argsort_device(const void* data, size_t n, const Format& f, uint64_t* perm, const MemoryOptions& o);
size_t unique_device(const void* data, size_t n, const Format& f, void* out, uint64_t* counts, uint64_t* first_index,
                     const MemoryOptions& o);
size_t first_unsorted_device(const void* data, size_t n, const Format& f, const MemoryOptions& o);
// The caller checked that `out` overlaps no input.
void merge_device(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o);

}  // namespace gxsort::api
