// Checks of an edge list before and while graph build parses it: a compressed file is
// refused by name, and the text an error quotes from a line is made safe to print.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "io/file.hpp"

namespace gxsort::graph {

// The one-line refusal of an edge list whose first n bytes start with a gzip, zstd, xz
// or bzip2 signature (format/sniff.hpp), naming the tool that decompresses it; "" for
// any other start. `path` is the input as messages name it ("stdin" for standard input).
std::string compressed_edges_message(const std::string& path, const unsigned char* head, size_t n);

// Refuses (Error(usage), exit 2) a compressed edge list: a regular file on its first
// bytes now, a stream on its first block when the parse reads it.
void refuse_compressed_edges(io::File& in);

// Up to `max` bytes of an input line as an error message quotes them: printable ASCII
// as it is, any other byte as \xNN (a binary file's bytes never reach the terminal),
// "..." after a cut.
std::string quoted_bytes(std::string_view text, size_t max = 60);

}  // namespace gxsort::graph
