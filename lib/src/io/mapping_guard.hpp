// Mapped inputs must not kill the process when the file shrinks under them: a touch of
// a mapped page past the file's new end raises SIGBUS. While a mapping is guarded, the
// SIGBUS handler maps zero pages over the rest of it and records the fault; the work
// goes on over zeros, and File::check_unchanged(), called before anything is committed,
// then fails it with "input changed during the run" (exit 3), temp files removed by
// their destructors. A SIGBUS anywhere else removes the temp files and kills the
// process as before.
#pragma once
#include <cstddef>

namespace gxsort::io {

// Guards [begin, begin + bytes) (page-aligned begin) until unguard_mapping(begin).
void guard_mapping(const void* begin, size_t bytes);
void unguard_mapping(const void* begin);
// Whether any guarded mapping faulted since the process started.
bool mapping_fault_seen();

}  // namespace gxsort::io
