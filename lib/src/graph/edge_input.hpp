// Checks of an edge list before and while graph build parses it: a compressed file is
// refused by name, the text an error quotes from a line is made safe to print; and the
// fields of a text edge list's lines.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "io/file.hpp"

namespace gxsort::graph {

// The one-line refusal of an edge list whose first n bytes start with a zstd, xz or
// bzip2 signature, or gzip's where gxsort was built without zlib (format/sniff.hpp),
// naming the tool that decompresses it; "" for any other start. `path` is the input as
// messages name it ("stdin" for standard input).
std::string compressed_edges_message(const std::string& path, const unsigned char* head, size_t n);

// Refuses (Error(usage), exit 2) a regular file that is a compressed edge list gxsort
// does not read, before any work (a stream: graph/edge_bytes.hpp, on its first bytes).
void refuse_compressed_edges(const io::File& in);

// Up to `max` bytes of an input line as an error message quotes them: printable ASCII
// as it is, any other byte as \xNN (a binary file's bytes never reach the terminal),
// "..." after a cut.
std::string quoted_bytes(std::string_view text, size_t max = 60);

// The fields of a line of a text edge list, into tok[0..max) (fields past max counted,
// not stored): separated by commas when the line has one (CSV; blanks around a field
// dropped, an empty field kept), else by blanks and tabs (SNAP, TSV). 0 for a blank
// line or a comment (its first visible character # or %).
size_t edge_line_fields(std::string_view line, std::string_view* tok, size_t max);

// Whether one of fields tok[0..k) has a character other than a decimal digit (a
// header's name; an empty field has none).
bool has_non_id_field(const std::string_view* tok, size_t k);

// Whether the line is an edge: two fields, both unsigned decimal integers.
bool is_edge_line(std::string_view line);

}  // namespace gxsort::graph
