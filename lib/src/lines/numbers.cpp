// -n and -h: GNU's strnumcmp in the C locale ('.' the decimal point; 0x80 the thousands
// separator, numbers.hpp), as a comparison of the numbers' signs and digits read in
// place, and -h's unit order (K M G T P E Z Y R Q, k for K: GNU 9.2 added R and Q) before it.
#include "lines/numbers.hpp"

#include <cstring>

#include "lines/bytes.hpp"

namespace gxsort::lines {

namespace {

bool is_separator(char c) { return static_cast<unsigned char>(c) == kThousandsSeparator; }
bool is_digit_char(char c) { return is_digit(static_cast<unsigned char>(c)); }

size_t skip_blank_bytes(std::string_view text) {
  size_t p = 0;
  while (p < text.size() && is_blank(static_cast<unsigned char>(text[p]))) ++p;
  return p;
}

// The first `n` bytes of two runs of digits (short mostly: a loop, not memcmp's set-up).
int compare_digits(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// The integer digits of two numbers with as many of them, in turn, 0x80 bytes skipped.
int compare_integer_digits(const Decimal& a, const Decimal& b) {
  if (a.integer.size() == a.integer_digits && b.integer.size() == b.integer_digits)
    return compare_digits(a.integer.data(), b.integer.data(), a.integer_digits);
  for (size_t i = 0, j = 0;; ++i, ++j) {
    while (i < a.integer.size() && is_separator(a.integer[i])) ++i;
    while (j < b.integer.size() && is_separator(b.integer[j])) ++j;
    if (i == a.integer.size() || j == b.integer.size()) return 0;
    if (a.integer[i] != b.integer[j]) return a.integer[i] < b.integer[j] ? -1 : 1;
  }
}

// Magnitudes of two non-zero numbers: more integer digits, then the digits in turn.
int compare_magnitudes(const Decimal& a, const Decimal& b) {
  if (a.integer_digits != b.integer_digits) return a.integer_digits < b.integer_digits ? -1 : 1;
  int c = compare_integer_digits(a, b);
  if (c != 0) return c;
  const size_t common = a.fraction.size() < b.fraction.size() ? a.fraction.size() : b.fraction.size();
  c = compare_digits(a.fraction.data(), b.fraction.data(), common);
  if (c != 0) return c;
  return a.fraction.size() < b.fraction.size() ? -1 : a.fraction.size() > b.fraction.size() ? 1 : 0;
}

int sign_of(const Decimal& d) { return d.is_zero() ? 0 : d.negative ? -1 : 1; }

int compare_decimals(const Decimal& a, const Decimal& b) {
  const int sa = sign_of(a), sb = sign_of(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  const int m = compare_magnitudes(a, b);
  return sa < 0 ? -m : m;
}

// -h's order of the unit after a number (GNU's find_unit_order, where 0x80 is no
// separator: GNU compares it as a signed char there): digits, then '.' and digits; 0 for
// no unit or no non-zero digit, negative after a '-'.
int unit_order(std::string_view text, bool fold) {
  size_t p = skip_blank_bytes(text);
  const bool negative = p < text.size() && text[p] == '-';
  if (negative) ++p;
  char largest = '0';
  for (bool fraction = false; p < text.size(); ++p) {
    if (is_digit_char(text[p])) {
      largest = text[p] > largest ? text[p] : largest;
    } else if (text[p] == '.' && !fraction) {
      fraction = true;
    } else {
      break;
    }
  }
  if (largest == '0' || p == text.size()) return 0;
  static constexpr char kUnits[] = "KMGTPEZYRQ";
  const char unit = static_cast<char>(fold ? to_upper(static_cast<unsigned char>(text[p])) : text[p]);
  const char* hit = unit == 'k' ? kUnits : unit ? std::strchr(kUnits, unit) : nullptr;
  const int order = hit ? static_cast<int>(hit - kUnits) + 1 : 0;
  return negative ? -order : order;
}

// The leading digits of a number's magnitude, one at a time: the integer's (0x80 bytes
// skipped), then the fraction's, then zeros.
class DigitStream {
 public:
  explicit DigitStream(const Decimal& d) : d_(d) {}
  unsigned next() {
    while (i_ < d_.integer.size() && is_separator(d_.integer[i_])) ++i_;
    if (i_ < d_.integer.size()) return static_cast<unsigned>(d_.integer[i_++] - '0');
    return f_ < d_.fraction.size() ? static_cast<unsigned>(d_.fraction[f_++] - '0') : 0;
  }

 private:
  const Decimal& d_;
  size_t i_ = 0, f_ = 0;
};

// The code of a number in `bits` bits (at most 64), ordered as the numbers: negatives,
// zero, positives (2 bits); then the magnitude: the count of integer digits (8 bits;
// from 255 on all tie) and the leading digits, a nibble each, as many as fit. `exact`:
// every significant digit fits (two exact codes are equal only for equal numbers).
uint64_t encode_decimal(const Decimal& d, unsigned bits, bool& exact) {
  const unsigned magnitude_bits = bits - 2;
  exact = true;
  if (d.is_zero()) return uint64_t{1} << magnitude_bits;
  const unsigned digit_bits = magnitude_bits - 8;
  exact = d.integer_digits < 255 && d.integer_digits + d.fraction.size() <= digit_bits / 4;
  uint64_t magnitude;
  if (d.integer_digits >= 255) {
    magnitude = uint64_t{255} << digit_bits;
  } else {
    magnitude = d.integer_digits;
    DigitStream digits(d);
    for (unsigned i = 0; i < digit_bits / 4; ++i) magnitude = (magnitude << 4) | digits.next();
    magnitude <<= digit_bits % 4;
  }
  const uint64_t mask = (uint64_t{1} << magnitude_bits) - 1;
  return d.negative ? (~magnitude & mask) : (uint64_t{2} << magnitude_bits) | magnitude;
}

}  // namespace

// GNU's reading: blanks, '-', then zeros and 0x80 bytes skipped; the integer part runs
// over digits and 0x80 bytes; '.' and digits (no 0x80) for the fraction. (Pointers and
// local counts: a count kept in `d` would be reread after every byte, as chars alias it.)
Decimal read_decimal(std::string_view text) {
  Decimal d;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end && is_blank(static_cast<unsigned char>(*p))) ++p;
  if (p < end && *p == '-') d.negative = true, ++p;
  while (p < end && (*p == '0' || is_separator(*p))) ++p;
  const char* const first = p;
  size_t separators = 0;
  for (; p < end; ++p) {
    if (is_digit_char(*p)) continue;
    if (!is_separator(*p)) break;
    ++separators;
  }
  d.integer = std::string_view(first, static_cast<size_t>(p - first));
  d.integer_digits = d.integer.size() - separators;
  if (p < end && *p == '.') {
    const char* const fraction = ++p;
    while (p < end && is_digit_char(*p)) ++p;
    while (p > fraction && p[-1] == '0') --p;
    d.fraction = std::string_view(fraction, static_cast<size_t>(p - fraction));
  }
  return d;
}

int compare_numeric(std::string_view a, std::string_view b) { return compare_decimals(read_decimal(a), read_decimal(b)); }

int compare_human(std::string_view a, std::string_view b, bool fold) {
  const int ua = unit_order(a, fold), ub = unit_order(b, fold);
  if (ua != ub) return ua < ub ? -1 : 1;
  return compare_decimals(read_decimal(a), read_decimal(b));
}

uint64_t numeric_prefix(std::string_view text, bool& exact) { return encode_decimal(read_decimal(text), 64, exact); }

uint64_t human_prefix(std::string_view text, bool fold, bool& exact) {
  const auto unit = static_cast<uint64_t>(unit_order(text, fold) + 10);  // 0..20: 5 bits
  return (unit << 59) | encode_decimal(read_decimal(text), 59, exact);
}

}  // namespace gxsort::lines
