// line_order: GNU sort's ordering options resolved as GNU 9.1 resolves them (its -k and
// -t parsing, the global options' inheritance, its incompatible-options rule), with
// GNU's complaints; -M, -R and -V are refused (gxsort does not build them).
#include <cstdint>
#include <cstring>
#include <string>

#include "gxsort/error.hpp"
#include "gxsort/lines.hpp"
#include "lines/bytes.hpp"

namespace gxsort {

namespace {

// GNU's quote in the C locale: 'text' with C escapes (\\, \', \n, \t, ..., \ooo): one
// line, whatever the option held.
std::string quoted(const std::string& text) {
  static const char kEscaped[] = "\a\b\t\n\v\f\r", kLetters[] = "abtnvfr";
  std::string q = "'";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const char* escape = c ? std::strchr(kEscaped, ch) : nullptr;
    if (ch == '\\' || ch == '\'') {
      q += '\\';
      q += ch;
    } else if (escape) {
      q += '\\';
      q += kLetters[escape - kEscaped];
    } else if (lines::is_print(c)) {
      q += ch;
    } else {
      const char octal[] = {'\\', static_cast<char>('0' + (c >> 6)), static_cast<char>('0' + ((c >> 3) & 7)),
                            static_cast<char>('0' + (c & 7)), '\0'};
      q += octal;
    }
  }
  return q + "'";
}

[[noreturn]] void bad_field_spec(const std::string& spec, const char* problem) {
  throw Error(ExitCode::usage, std::string(problem) + ": invalid field specification " + quoted(spec));
}

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// GNU's field counts (xstrtoumax): spaces, an optional '+', decimal digits; SIZE_MAX
// when too large. `pos` moves past them.
size_t read_count(const std::string& spec, size_t& pos, const char* what) {
  size_t p = pos;
  while (p < spec.size() && is_space(spec[p])) ++p;
  if (p < spec.size() && spec[p] == '+') ++p;
  if (p == spec.size() || !lines::is_digit(static_cast<unsigned char>(spec[p])))
    throw Error(ExitCode::usage, std::string(what) + ": invalid count at start of " + quoted(spec.substr(pos)));
  size_t value = 0;
  for (; p < spec.size() && lines::is_digit(static_cast<unsigned char>(spec[p])); ++p) {
    const auto digit = static_cast<size_t>(spec[p] - '0');
    value = value > (SIZE_MAX - digit) / 10 ? SIZE_MAX : value * 10 + digit;
  }
  pos = p;
  return value;
}

// A key as typed: GNU lets n, g and h be set together, to complain about them after.
struct TypedKey {
  LineKey key;
  bool numeric = false, general = false, human = false;
  char refused = 0;  // the first of M, R, V
};

enum class Blanks { start, end, both };

// GNU's set_ordering: the letters from `pos` set on `typed`; returns where they stop.
size_t read_letters(const std::string& spec, size_t pos, TypedKey& typed, Blanks blanks) {
  LineKey& key = typed.key;
  for (; pos < spec.size(); ++pos) {
    switch (spec[pos]) {
      case 'b':
        key.skip_start_blanks |= blanks != Blanks::end;
        key.skip_end_blanks |= blanks != Blanks::start;
        break;
      case 'd': key.dictionary = true; break;
      case 'f': key.fold = true; break;
      case 'g': typed.general = true; break;
      case 'h': typed.human = true; break;
      case 'i': key.printable = true; break;
      case 'n': typed.numeric = true; break;
      case 'r': key.reverse = true; break;
      case 'M':
      case 'R':
      case 'V':
        if (!typed.refused) typed.refused = spec[pos];
        break;
      default: return pos;
    }
  }
  return pos;
}

// GNU's -k POS1[,POS2] (POS: F[.C][letters]); fields and characters counted from 0.
TypedKey read_key(const std::string& spec) {
  TypedKey typed;
  LineKey& key = typed.key;
  size_t pos = 0;
  const size_t field = read_count(spec, pos, "invalid number at field start");
  if (field == 0) bad_field_spec(spec, "field number is zero");
  key.start_field = field - 1;
  if (pos < spec.size() && spec[pos] == '.') {
    const size_t character = read_count(spec, ++pos, "invalid number after '.'");
    if (character == 0) bad_field_spec(spec, "character offset is zero");
    key.start_char = character - 1;
  }
  if (key.start_field == 0 && key.start_char == 0) key.start_field = LineKey::kWholeLine;
  pos = read_letters(spec, pos, typed, Blanks::start);
  if (pos < spec.size() && spec[pos] == ',') {
    const size_t end_field = read_count(spec, ++pos, "invalid number after ','");
    if (end_field == 0) bad_field_spec(spec, "field number is zero");
    key.end_field = end_field - 1;
    if (pos < spec.size() && spec[pos] == '.') key.end_char = read_count(spec, ++pos, "invalid number after '.'");
    pos = read_letters(spec, pos, typed, Blanks::end);
  }
  if (pos != spec.size()) bad_field_spec(spec, "stray character in field spec");
  return typed;
}

const char* refused_name(char letter) {
  return letter == 'M' ? "month sort" : letter == 'R' ? "random sort" : "version sort";
}

// GNU's default_key_compare: a key with no ordering letter of its own (r aside).
bool orders_by_default(const TypedKey& t) {
  const LineKey& k = t.key;
  return !(k.dictionary || k.printable || k.fold || k.skip_start_blanks || k.skip_end_blanks || t.numeric ||
           t.general || t.human || t.refused);
}

// The global letters inherited by a key that has none of its own and no r.
void inherit(TypedKey& t, const TypedKey& global) {
  if (!orders_by_default(t) || t.key.reverse) return;
  const LineKey position = t.key;
  t = global;
  t.key.start_field = position.start_field;
  t.key.start_char = position.start_char;
  t.key.end_field = position.end_field;
  t.key.end_char = position.end_char;
}

// GNU's check_ordering_compatibility: at most one of n, g, h and d/i; the complaint
// lists the key's letters (b and r aside) in GNU's order.
LineKey resolved(const TypedKey& t) {
  LineKey key = t.key;
  if (key.dictionary) key.printable = false;  // d wins over i, as in GNU
  if (t.numeric + t.general + t.human + (key.dictionary || key.printable) > 1) {
    std::string letters;
    if (key.dictionary) letters += 'd';
    if (key.fold) letters += 'f';
    if (t.general) letters += 'g';
    if (t.human) letters += 'h';
    if (key.printable) letters += 'i';
    if (t.numeric) letters += 'n';
    throw Error(ExitCode::usage, "options '-" + letters + "' are incompatible");
  }
  key.kind = t.numeric   ? LineKeyKind::numeric
             : t.general ? LineKeyKind::general_numeric
             : t.human   ? LineKeyKind::human_numeric
                         : LineKeyKind::text;
  return key;
}

// -t: one byte; GNU's "\\0" is NUL; "" is not given.
int read_separator(const std::string& text) {
  if (text.empty()) return -1;
  if (text.size() == 1) return static_cast<unsigned char>(text[0]);
  if (text == "\\0") return 0;
  throw Error(ExitCode::usage, "multi-character tab " + quoted(text));
}

TypedKey read_global(const std::string& letters) {
  TypedKey global;
  const size_t stop = read_letters(letters, 0, global, Blanks::both);
  if (stop != letters.size()) throw Error(ExitCode::usage, "unknown ordering option " + quoted({'-', letters[stop]}));
  if (global.refused)
    throw Error(ExitCode::usage, std::string("-") + global.refused + ": " + refused_name(global.refused) +
                                     " is not supported by gxsort");
  return global;
}

}  // namespace

LineOrder line_order(const LineOptions& o) {
  LineOrder order;
  order.separator = read_separator(o.separator);
  const TypedKey global = read_global(o.global);
  std::vector<TypedKey> keys;
  for (const std::string& spec : o.keys) {
    keys.push_back(read_key(spec));
    if (keys.back().refused)
      throw Error(ExitCode::usage, "-k " + quoted(spec) + ": " + refused_name(keys.back().refused) +
                                       " is not supported by gxsort");
  }
  for (TypedKey& key : keys) inherit(key, global);
  if (keys.empty() && !orders_by_default(global)) keys.push_back(global);
  for (const TypedKey& key : keys) order.keys.push_back(resolved(key));
  order.reverse = global.key.reverse;
  order.stable = o.stable;
  order.unique = o.unique;
  order.terminator = o.zero_terminated ? '\0' : '\n';
  return order;
}

}  // namespace gxsort
