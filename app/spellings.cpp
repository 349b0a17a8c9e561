#include "spellings.hpp"

#include <cctype>
#include <cstring>

#include "gxsort/error.hpp"

namespace gxsort::cli {

namespace {

// numpy's kind letter and byte width to gxsort's name: "u" 8 -> "u64"; "" where gxsort has none.
std::string typed_name(char kind, int width) {
  if (width != 1 && width != 2 && width != 4 && width != 8) return "";
  if (kind == 'f' && width < 4) return "";  // float16: no gxsort type
  if (kind != 'u' && kind != 'i' && kind != 'f') return "";
  return std::string(1, kind) + std::to_string(width * 8);
}

struct LongName {
  const char* numpy;
  const char* gxsort;
};
constexpr LongName kLongNames[] = {{"uint8", "u8"},   {"uint16", "u16"}, {"uint32", "u32"},   {"uint64", "u64"},
                                   {"int8", "i8"},    {"int16", "i16"},  {"int32", "i32"},    {"int64", "i64"},
                                   {"float32", "f32"}, {"float64", "f64"}};

// One GNU sort option gxsort does not take: its short and long names, what it means in
// GNU sort, and the gxsort way. (Its text options, -k POS, -t, -n, ..., gxsort takes:
// line_options.cpp.)
struct GnuOption {
  char short_name;  // 0: none
  const char* long_name;
  const char* meaning;
  const char* instead;
  bool text = true;  // an order of text lines gxsort has not: the line adds "for it use GNU sort"
};

constexpr const char* kTextLines = "; for it use GNU sort";

constexpr GnuOption kGnuOptions[] = {
    {'M', "month-sort", "order of month names", "gxsort has none"},
    {'V', "version-sort", "order of version numbers in text", "gxsort has none"},
    {'R', "random-sort", "random order (a shuffle)", "gxsort has none (gxsort gen --dist writes random records)", false},
    {0, "random-source", "source of random bytes for -R", "gxsort has no shuffle", false},
    {'c', "check", "check of the order", "gxsort check FILE (or gxsort sort -c FILE)", false},
    {'C', "", "check of the order, exit status only", "gxsort check -q FILE (or gxsort sort -C FILE)", false},
    {'m', "merge", "merge of sorted files", "gxsort merge FILE... (or gxsort sort -m FILE...)", false},
    {0, "batch-size", "most inputs merged at once", "gxsort's is --fan-in K", false},
    {0, "compress-program", "program that compresses temporary files", "gxsort has none", false},
    {0, "files0-from", "list of inputs read from a file", "give the inputs as operands (gxsort merge FILE...)", false},
    {0, "debug", "marks under the keys of each line", "gxsort plan shows what a command would do, -v what it did", false},
    {0, "sort", "order named by a word (--sort=numeric)", "give its letter: -n, -g, -h (month, version, random: none)", false},
};

// GNU's POS: F[.C][OPTS]
bool gnu_position(const std::string& s) {
  size_t i = s.find_first_not_of("0123456789");
  if (i == 0) return false;
  if (i != std::string::npos && s[i] == '.') {
    const size_t c = s.find_first_not_of("0123456789", i + 1);
    if (c == i + 1) return false;
    i = c;
  }
  return i == std::string::npos || s.find_first_not_of("bdfghiMnRrV", i) == std::string::npos;
}

}  // namespace

std::string gxsort_type_name(const std::string& type) {
  for (const LongName& n : kLongNames)
    if (type == n.numpy) return n.gxsort;
  if (type.size() != 3 || std::strchr("<>=|", type[0]) == nullptr || type[2] < '1' || type[2] > '8') return type;
  const int width = type[2] - '0';
  const std::string name = typed_name(type[1], width);
  if (name.empty() || (type[0] == '|' && width != 1)) return type;  // '|': numpy's "no byte order", 1-byte types
  // '=' is the host's order: gxsort's files are little-endian, as the hosts it builds for.
  return type[0] == '>' && width > 1 ? name + "be" : name;
}

std::string gxsort_key_text(const std::string& key) {
  const size_t colon = key.find(':');
  if (colon == 0 || colon == std::string::npos || key.find_first_not_of("0123456789") != colon) return key;
  const size_t end = key.find(':', colon + 1);
  const std::string type = key.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
  return key.substr(0, colon + 1) + gxsort_type_name(type) + (end == std::string::npos ? "" : key.substr(end));
}

std::string gnu_option_pointer(const std::string& option) {
  const bool long_form = option.compare(0, 2, "--") == 0;
  // A group of short options (-rn): its first letter that is one of GNU's.
  for (size_t at = 1; long_form ? at == 1 : at < option.size() && std::isalpha(static_cast<unsigned char>(option[at])); ++at)
    for (const GnuOption& o : kGnuOptions) {
      const bool match = long_form ? *o.long_name && option.substr(2) == o.long_name : option[at] == o.short_name;
      if (match) return std::string("GNU sort's ") + o.meaning + "; " + o.instead + (o.text ? kTextLines : "");
    }
  return "";
}

bool gnu_key_syntax(const std::string& key) {
  if (key.empty() || key.find(':') != std::string::npos) return false;
  const size_t comma = key.find(',');
  return gnu_position(key.substr(0, comma)) && (comma == std::string::npos || gnu_position(key.substr(comma + 1)));
}

std::string gnu_buffer_size(const std::string& size) {
  const bool bare = !size.empty() && size.find_first_not_of("0123456789") == std::string::npos;
  return bare ? size + "K" : size;
}

SortMode gnu_sort_mode(int argc, const char* const* argv, int first) {
  SortMode m;
  bool options_end = false;
  for (int i = first + 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* mode = nullptr;
    bool quiet = false;
    if (!options_end) {
      if (arg == "-c" || arg == "--check" || arg == "--check=diagnose-first") mode = "check";
      else if (arg == "-C" || arg == "--check=quiet" || arg == "--check=silent") mode = "check", quiet = true;
      else if (arg == "-m" || arg == "--merge") mode = "merge";
      options_end = arg == "--";
    }
    if (!mode) { m.args.push_back(arg); continue; }
    if (!m.command.empty() && m.command != mode) fail_usage("sort: " + arg + ": -c/-C (check) and -m (merge) cannot be combined");
    m.command = mode;
    if (quiet) m.args.push_back("-q");
  }
  return m;
}

}  // namespace gxsort::cli
