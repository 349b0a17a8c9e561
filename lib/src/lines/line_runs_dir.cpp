#include "lines/line_runs_dir.hpp"

#include <cstdio>

namespace gxsort::lines {
namespace {

// A key as GNU's -k spells it: fields and characters from 1, an end character of 0 the
// field's end, no POS2 the line's end (line_order writes -k1.1 as the line's start).
std::string key_text(const LineKey& k) {
  const size_t start_field = k.start_field == LineKey::kWholeLine ? 0 : k.start_field;
  std::string t = "-k" + std::to_string(start_field + 1) + "." + std::to_string(k.start_char + 1);
  if (k.skip_start_blanks) t += 'b';
  if (k.dictionary) t += 'd';
  if (k.fold) t += 'f';
  if (k.printable) t += 'i';
  const char kinds[] = {0, 'n', 'g', 'h'};
  if (const char kind = kinds[size_t(k.kind)]) t += kind;
  if (k.reverse) t += 'r';
  if (k.end_field != LineKey::kWholeLine) {
    t += "," + std::to_string(k.end_field + 1) + "." + std::to_string(k.end_char);
    if (k.skip_end_blanks) t += 'b';
  }
  return t;
}

}  // namespace

std::string order_text(const LineOrder& order) {
  std::string t = order.terminator == '\n' ? "newline" : "nul";
  if (order.separator >= 0) {
    char sep[16];
    std::snprintf(sep, sizeof sep, " -t 0x%02x", unsigned(order.separator));
    t += sep;
  }
  for (const LineKey& k : order.keys) t += " " + key_text(k);
  if (order.reverse) t += " -r";
  if (order.stable) t += " -s";
  return t;
}

}  // namespace gxsort::lines
