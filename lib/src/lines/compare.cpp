// GNU sort's comparison of two lines in the C locale (its compare and keycompare): the
// keys in turn, each found in both lines and compared by its kind, reversed by its r;
// then, unless stable or unique, the whole lines as unsigned bytes, reversed by -r.
#include "gxsort/lines.hpp"
#include "lines/key_span.hpp"
#include "lines/numbers.hpp"
#include "lines/stages.hpp"
#include "lines/text_key.hpp"

namespace gxsort {

namespace {

int compare_key(const LineKey& key, std::string_view a, std::string_view b) {
  int c = 0;
  switch (key.kind) {
    case LineKeyKind::text: c = lines::compare_text(key, a, b); break;
    case LineKeyKind::numeric: c = lines::compare_numeric(a, b); break;
    case LineKeyKind::general_numeric: c = lines::compare_general(a, b, key.fold); break;
    case LineKeyKind::human_numeric: c = lines::compare_human(a, b, key.fold); break;
  }
  return key.reverse ? -c : c;
}

int last_resort(const LineOrder& order, std::string_view a, std::string_view b) {
  const int c = lines::compare_bytes(a, b);
  return order.reverse ? -c : c;
}

}  // namespace

// With no keys the key is the whole line (as GNU, which compares whole lines even
// with -s or -u when no key is given).
int compare_line_keys(const LineOrder& order, std::string_view a, std::string_view b) {
  if (order.keys.empty()) return last_resort(order, a, b);
  for (const LineKey& key : order.keys) {
    const int c = compare_key(key, lines::key_text(order.separator, key, a), lines::key_text(order.separator, key, b));
    if (c != 0) return c;
  }
  return 0;
}

int compare_lines(const LineOrder& order, std::string_view a, std::string_view b) {
  const int c = compare_line_keys(order, a, b);
  if (c != 0 || order.keys.empty() || order.stable || order.unique) return c;
  return last_resort(order, a, b);
}

namespace lines {

size_t stage_count(const LineOrder& order) {
  const bool last_resort = order.keys.empty() || !(order.stable || order.unique);
  return order.keys.size() + (last_resort ? 1 : 0);
}

int compare_stage(const LineOrder& order, size_t stage, std::string_view a, std::string_view b) {
  if (is_last_resort(order, stage)) return last_resort(order, a, b);
  const LineKey& key = order.keys[stage];
  return compare_key(key, key_text(order.separator, key, a), key_text(order.separator, key, b));
}

int compare_from(const LineOrder& order, size_t stage, std::string_view a, std::string_view b) {
  const size_t stages = stage_count(order);
  for (; stage < stages; ++stage) {
    const int c = compare_stage(order, stage, a, b);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace lines

}  // namespace gxsort
