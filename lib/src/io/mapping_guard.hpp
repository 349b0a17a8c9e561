// Mapped inputs must not kill the process when the file shrinks under them: a touch of
// a mapped page past the file's new end raises SIGBUS. While a mapping is guarded, the
// SIGBUS handler maps zero pages over the rest of it and records the fault; the work
// goes on over zeros, and File::check_unchanged(), called before anything is committed,
// then fails it with "input changed during the run" (exit 3), temp files removed by
// their destructors. A SIGBUS anywhere else removes the temp files and kills the
// process as before.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gxsort::io {

// Installs the SIGBUS handler (once; with the other signal handlers of temp_files): a
// SIGBUS that no guarded mapping explains removes the temp files and kills the process.
void install_sigbus_handler();

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
