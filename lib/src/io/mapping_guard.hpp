// Mapped inputs must not kill the process when the file shrinks under them: a touch of
// a mapped page past the file's new end raises SIGBUS. While a mapping is guarded, the
// SIGBUS handler (installed by the front end: gxsort::install_mapping_guard,
// gxsort/signals.hpp) maps zero pages over the rest of it and records the fault; the
// work goes on over zeros, and File::check_unchanged(), called before anything is
// committed, then fails it with "input changed during the run" (exit 3), temp files
// removed by their destructors. A SIGBUS the guard does not explain goes to the handler
// installed before it (the CLI's removes the temp files and dies of it).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gxsort::io {

// Guards [begin, begin + bytes) (page-aligned begin), a mapping of the file with this
// device and inode, until unguard_mapping(begin).
void guard_mapping(const void* begin, size_t bytes, uint64_t dev, uint64_t ino);
void unguard_mapping(const void* begin);
// Whether a guarded mapping of that file faulted since the process started (or since
// forget_mapping_faults for it: a file opened anew, perhaps a new file on a reused inode;
// any_mapping_fault() then counts the other files only).
bool mapping_fault_seen(uint64_t dev, uint64_t ino);
// Whether any guarded mapping faulted: Output::commit refuses to commit then, whatever
// file it was (an input, or a temp file that an I/O error cut short).
bool any_mapping_fault();
void forget_mapping_faults(uint64_t dev, uint64_t ino);

}  // namespace gxsort::io
