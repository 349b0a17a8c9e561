// Order-preserving 64-bit prefixes of a line's first key (prefix.hpp): what the engine
// radix-sorts before compare_lines resolves the ties.
#include "lines/prefix.hpp"

#include "lines/key_span.hpp"
#include "lines/numbers.hpp"
#include "lines/text_key.hpp"

namespace gxsort::lines {

bool prefix_goes_deeper(const LineOrder& order) {
  return order.keys.empty() || order.keys.front().kind == LineKeyKind::text;
}

namespace {

// A numeric key says all it can at depth 0; deeper, every line ties.
uint64_t number_prefix(const LineKey& key, std::string_view text, size_t depth) {
  if (depth != 0) return 0;
  switch (key.kind) {
    case LineKeyKind::numeric: return numeric_prefix(text);
    case LineKeyKind::human_numeric: return human_prefix(text, key.fold);
    case LineKeyKind::general_numeric: return general_prefix(text, key.fold);
    case LineKeyKind::text: break;
  }
  return 0;
}

}  // namespace

uint64_t line_prefix(const LineOrder& order, std::string_view line, size_t depth, bool& exhausted) {
  if (order.keys.empty()) {
    const uint64_t p = bytes_prefix(line, depth, exhausted);
    return order.reverse ? ~p : p;
  }
  const LineKey& key = order.keys.front();
  const std::string_view text = key_text(order.separator, key, line);
  uint64_t p;
  if (key.kind == LineKeyKind::text) {
    p = text_prefix(key, text, depth, exhausted);
  } else {
    p = number_prefix(key, text, depth);
    exhausted = true;
  }
  return key.reverse ? ~p : p;
}

}  // namespace gxsort::lines
