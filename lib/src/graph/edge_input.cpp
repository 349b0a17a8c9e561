#include "graph/edge_input.hpp"

#include <algorithm>
#include <cstdio>

#include "format/sniff.hpp"
#include "gxsort/error.hpp"

namespace gxsort::graph {

std::string compressed_edges_message(const std::string& path, const unsigned char* head, size_t n) {
  const FileKind kind = what_file_looks_like(head, n);
  const char* tool = decompressor(kind);
  if (!tool) return "";
  const std::string named = path == "stdin" ? "" : " " + path;
  return path + ": " + file_kind_name(kind) + "; decompress it first (" + tool + named + " | gxsort graph build - ...)";
}

void refuse_compressed_edges(io::File& in) {
  const std::string path = in.path();
  auto check = [path](const unsigned char* head, size_t n) {
    const std::string message = compressed_edges_message(path, head, n);
    if (!message.empty()) fail_usage(message);
  };
  if (in.is_stream()) return in.check_first_bytes(check);
  unsigned char head[16];
  const size_t n = size_t(std::min<uint64_t>(sizeof head, in.size()));
  if (n) in.read_at(head, n, 0);
  check(head, n);
}

std::string quoted_bytes(std::string_view text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= ' ' && c < 0x7f) {
      out += char(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace gxsort::graph
