#include "graph/edge_input.hpp"

#include <algorithm>
#include <cstdio>

#include "format/sniff.hpp"
#include "graph/edge_bytes.hpp"
#include "gxsort/error.hpp"

namespace gxsort::graph {

std::string compressed_edges_message(const std::string& path, const unsigned char* head, size_t n) {
  const FileKind kind = what_file_looks_like(head, n);
  const char* tool = decompressor(kind);
  if (!tool || (kind == FileKind::gzip && reads_gzip())) return "";
  const std::string named = path == "stdin" ? "" : " " + path;
  return path + ": " + file_kind_name(kind) + "; decompress it first (" + tool + named + " | gxsort graph build - ...)";
}

void refuse_compressed_edges(const io::File& in) {
  if (in.is_stream()) return;  // EdgeBytes, on its first bytes
  unsigned char head[16];
  const size_t n = size_t(std::min<uint64_t>(sizeof head, in.size()));
  if (n) in.read_at(head, n, 0);
  const std::string message = compressed_edges_message(in.path(), head, n);
  if (!message.empty()) fail_usage(message);
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

namespace {

std::string_view trimmed(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") + 1 - a);
}

}  // namespace

size_t edge_line_fields(std::string_view line, std::string_view* tok, size_t max) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] == '#' || line[first] == '%') return 0;
  const char* separators = line.find(',') != std::string_view::npos ? "," : " \t";
  const bool csv = separators[0] == ',';
  size_t n = 0, i = first;
  while (i <= line.size()) {
    size_t end = line.find_first_of(separators, i);
    if (end == std::string_view::npos) end = line.size();
    if (csv || end > i) {
      if (n < max) tok[n] = csv ? trimmed(line.substr(i, end - i)) : line.substr(i, end - i);
      ++n;
    }
    i = end + 1;
  }
  return n;
}

bool has_non_id_field(const std::string_view* tok, size_t k) {
  for (size_t i = 0; i < k; ++i)
    if (tok[i].find_first_not_of("0123456789") != std::string_view::npos) return true;
  return false;
}

bool is_edge_line(std::string_view line) {
  std::string_view tok[2];
  return edge_line_fields(line, tok, 2) == 2 && !tok[0].empty() && !tok[1].empty() && !has_non_id_field(tok, 2);
}

}  // namespace gxsort::graph
