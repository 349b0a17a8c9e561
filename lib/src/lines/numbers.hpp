// Numeric keys as GNU sort 9.1 compares them in the C locale: -n (its strnumcmp: blanks,
// an optional '-', digits, one '.' and digits; anything else ends the number, and no
// digits is 0), -h (-n after the SI unit's order) and -g (strtold), and order-preserving
// 64-bit prefixes of each. The comparisons return -1, 0 or 1 (the key's r not applied).
//
// GNU 9.1 in the C locale takes the byte 0x80 for a thousands separator (it stands for
// "none", CHAR_MAX + 1, but strnumcmp compares it with unsigned bytes): -n and -h's
// number skip it in the integer part (not -h's search for the unit). gxsort does the same.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gxsort::lines {

inline constexpr unsigned char kThousandsSeparator = 0x80;

// A -n number as read from a key's text, without converting it.
struct Decimal {
  bool negative = false;      // a '-' before the digits
  std::string_view integer;   // the integer part from its first non-zero digit (0x80 bytes inside)
  size_t integer_digits = 0;  // its digits (without the 0x80 bytes)
  std::string_view fraction;  // the digits after '.' without trailing zeros
  bool is_zero() const { return integer_digits == 0 && fraction.empty(); }
};
Decimal read_decimal(std::string_view text);

int compare_numeric(std::string_view a, std::string_view b);
// fold: the key's f, which makes lower-case units count (GNU folds the key's copy).
int compare_human(std::string_view a, std::string_view b, bool fold);
int compare_general(std::string_view a, std::string_view b, bool fold);

// exact: the prefix holds the whole number (equal exact prefixes: equal numbers).
uint64_t numeric_prefix(std::string_view text, bool& exact);
uint64_t human_prefix(std::string_view text, bool fold, bool& exact);
uint64_t general_prefix(std::string_view text, bool fold, bool& exact);

}  // namespace gxsort::lines
