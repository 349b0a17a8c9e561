// The in-memory API's device buffers (gxsort/memory.hpp): sort and argsort on the GPU
// holding them, with the backend of the caller's DeviceWorkspace or one made for the call,
// and through host memory for a buffer that one device sort cannot take.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gxsort/memory.hpp"

namespace gxsort::api {

void sort_device(void* data, size_t n, const Format& f, const MemoryOptions& o);
void argsort_device(const void* data, size_t n, const Format& f, uint64_t* perm, const MemoryOptions& o);

}  // namespace gxsort::api
