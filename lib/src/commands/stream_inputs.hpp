// Inputs that can be read only once (standard input, a pipe, a FIFO): a command that reads
// several inputs refuses one named twice.
#pragma once
#include <string>
#include <vector>

namespace gxsort {

// Error(usage) "merge: A and B name the same stream (...), which can be read once" when
// two of `args` name one stream (standard input in any spelling: -, /dev/stdin,
// /dev/fd/0; one FIFO twice), before anything is read.
void refuse_stream_named_twice(const std::vector<std::string>& args);

}  // namespace gxsort
