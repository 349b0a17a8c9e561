// Other tools' spellings the CLI takes where they mean what gxsort's do (GNU sort's
// options, numpy's dtype names), and for GNU sort's options gxsort has no form of, the
// line that says what gxsort does instead. Pure text functions (the parser calls them).
#pragma once
#include <string>
#include <vector>

namespace gxsort::cli {

// numpy's dtype spellings with an explicit byte order ("<u8", ">i4", "=f8", "|u1") or a
// long name ("uint64", "float32") as gxsort's type names ("u64", "i32be", "f64", "u8");
// any other text as it is (gxsort's own "u8" is 8-bit and stays so).
std::string gxsort_type_name(const std::string& type);
// --key OFFSET:TYPE[:...] with its TYPE through gxsort_type_name; other text as it is.
std::string gxsort_key_text(const std::string& key);

// "GNU sort's MEANING; the gxsort way (or that there is none)" for a GNU sort option
// gxsort does not take (-n, --numeric-sort, -nr: its first letter); "" for any other.
std::string gnu_option_pointer(const std::string& option);
// Whether --key TEXT is GNU sort's POS1[,POS2] form (--key=1,1, --key 2n).
bool gnu_key_syntax(const std::string& key);
// --buffer-size SIZE as --memory reads it: GNU sort's bare number counts KiB.
std::string gnu_buffer_size(const std::string& size);

// GNU sort's -c/--check, -C/--check=quiet|silent and -m/--merge on `sort`: the command
// that does it (check, merge) and the arguments after the command word with the mode's
// option taken out (-C: -q added); command "" when none is given.
struct SortMode {
  std::string command;
  std::vector<std::string> args;
};
SortMode gnu_sort_mode(int argc, const char* const* argv, int first);

}  // namespace gxsort::cli
