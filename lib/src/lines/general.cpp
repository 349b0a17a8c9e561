// -g: GNU sort's general_numcompare. The key is read by strtold (in the C locale, from a
// NUL-terminated copy, as GNU reads it): conversion errors first and equal, then NaNs,
// then the numbers, -0 equal to +0. NaNs as GNU 9.2 and later order them with glibc (they
// strcmp the NaNs' "%Lf" texts, "-nan" or "nan"): negative ones first, those of one sign
// equal, whatever their payload. (GNU 9.1's memcmp of whole long doubles also read their
// padding bytes: an order no other sort can repeat.)
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <locale.h>
#include <string>

#include "lines/bytes.hpp"
#include "lines/numbers.hpp"

namespace gxsort::lines {

namespace {

enum class GeneralClass : uint8_t { error, nan, number };

struct General {
  GeneralClass kind = GeneralClass::error;
  long double value = 0;
};

locale_t c_locale() {
  static const locale_t c = newlocale(LC_ALL_MASK, "C", locale_t{});
  return c;
}

long double read_long_double(const char* text, char** end) {
  const locale_t c = c_locale();
  return c ? strtold_l(text, end, c) : std::strtold(text, end);
}

// The bytes strtold may read in the C locale: spaces, signs, digits, '.', letters (inf,
// nan, hex digits, exponents) and a NaN's "(payload_)". It stops at any other byte, so
// the key's copy can stop there too.
constexpr ByteTable number_bytes() {
  ByteTable t{};
  for (unsigned c = 0; c < 256; ++c) {
    const auto b = static_cast<unsigned char>(c);
    t[c] = is_alnum(b) || b == ' ' || (b >= '\t' && b <= '\r') || b == '+' || b == '-' || b == '.' || b == '(' ||
           b == ')' || b == '_';
  }
  return t;
}
constexpr ByteTable kNumberBytes = number_bytes();

// strtold on a NUL-terminated copy of the key's start (f applied, as GNU copies a folded
// key): on the stack unless the number is long.
General read_general(std::string_view text, bool fold) {
  size_t size = 0;
  while (size < text.size() && kNumberBytes[static_cast<unsigned char>(text[size])]) ++size;
  char small[256];
  std::string large;
  char* copy = small;
  if (size >= sizeof small) {
    large.resize(size + 1);
    copy = &large[0];
  }
  for (size_t i = 0; i < size; ++i)
    copy[i] = fold ? static_cast<char>(to_upper(static_cast<unsigned char>(text[i]))) : text[i];
  copy[size] = '\0';
  char* end = nullptr;
  General g;
  g.value = read_long_double(copy, &end);
  g.kind = end == copy ? GeneralClass::error : std::isnan(g.value) ? GeneralClass::nan : GeneralClass::number;
  return g;
}

// -1 for a negative NaN, 1 for a positive one.
int nan_sign(long double nan) { return std::signbit(nan) ? -1 : 1; }

}  // namespace

int compare_general(std::string_view a, std::string_view b, bool fold) {
  const General x = read_general(a, fold), y = read_general(b, fold);
  if (x.kind != y.kind) return x.kind < y.kind ? -1 : 1;
  if (x.kind == GeneralClass::error) return 0;
  if (x.kind == GeneralClass::nan) return nan_sign(x.value) == nan_sign(y.value) ? 0 : nan_sign(x.value);
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}

// Errors 0, negative NaNs 1, positive NaNs 2, numbers through double (rounding keeps the
// order, with ties) with -0 as +0: the sign bit set for positives, all bits flipped for
// negatives, which puts -inf (0x000fffffffffffff) above the NaNs. Exact: an error or a
// NaN (all of a class and sign are equal), or a number the double holds unrounded (equal
// doubles of two such: equal numbers).
uint64_t general_prefix(std::string_view text, bool fold, bool& exact) {
  const General g = read_general(text, fold);
  exact = g.kind != GeneralClass::number;
  if (g.kind == GeneralClass::error) return 0;
  if (g.kind == GeneralClass::nan) return nan_sign(g.value) < 0 ? 1 : 2;
  double d = static_cast<double>(g.value);
  exact = static_cast<long double>(d) == g.value;
  if (d == 0) d = 0;
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

}  // namespace gxsort::lines
