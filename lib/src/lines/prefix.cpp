// Order-preserving 64-bit prefixes of a line's stages (prefix.hpp): what the engine
// radix-sorts before deeper prefixes, the next stages' or compare_lines resolve the ties.
#include "lines/prefix.hpp"

#include "lines/key_span.hpp"
#include "lines/numbers.hpp"
#include "lines/text_key.hpp"

namespace gxsort::lines {

bool stage_goes_deeper(const LineOrder& order, size_t stage) {
  return is_last_resort(order, stage) || order.keys[stage].kind == LineKeyKind::text;
}

bool prefix_goes_deeper(const LineOrder& order) { return stage_goes_deeper(order, 0); }

namespace {

// A numeric key says all it can at depth 0; deeper, every line ties.
uint64_t number_prefix(const LineKey& key, std::string_view text, size_t depth, bool& exact) {
  exact = false;
  if (depth != 0) return 0;
  switch (key.kind) {
    case LineKeyKind::numeric: return numeric_prefix(text, exact);
    case LineKeyKind::human_numeric: return human_prefix(text, key.fold, exact);
    case LineKeyKind::general_numeric: return general_prefix(text, key.fold, exact);
    case LineKeyKind::text: break;
  }
  return 0;
}

// A text's zero padding is told from its own zero bytes only when it does not end in
// one: then two exhausted texts with equal prefixes have the same length (the longer
// would end in a byte the shorter's padding matched: a zero). d and i keep no zero byte.
bool text_is_exact(const LineKey* key, std::string_view text, bool exhausted) {
  if (key && (key->dictionary || key->printable)) return exhausted;
  return exhausted && (text.empty() || text.back() != '\0');
}

}  // namespace

uint64_t stage_prefix(const LineOrder& order, size_t stage, std::string_view line, size_t depth, bool& exhausted,
                      bool& exact) {
  if (is_last_resort(order, stage)) {
    const uint64_t p = bytes_prefix(line, depth, exhausted);
    exact = text_is_exact(nullptr, line, exhausted);
    return order.reverse ? ~p : p;
  }
  const LineKey& key = order.keys[stage];
  const std::string_view text = key_text(order.separator, key, line);
  uint64_t p;
  if (key.kind == LineKeyKind::text) {
    p = text_prefix(key, text, depth, exhausted);
    exact = text_is_exact(&key, text, exhausted);
  } else {
    p = number_prefix(key, text, depth, exact);
    exhausted = true;
  }
  return key.reverse ? ~p : p;
}

uint64_t line_prefix(const LineOrder& order, std::string_view line, size_t depth, bool& exhausted) {
  bool exact;
  return stage_prefix(order, 0, line, depth, exhausted, exact);
}

}  // namespace gxsort::lines
