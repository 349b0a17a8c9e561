// How the library names one of its options in a message, so that each front end spells
// it as its users write it: the CLI "--memory", the Python package "memory=".
//
// A message built in lib/ or cuda/ writes option_ref("memory") where it means the option
// (never a literal "--memory": tools/check-library.sh refuses one); a front end passes
// every message it shows through spell_options once, in its style. gxsort::Error keeps
// the message as built (Error::message()) and answers what() in the CLI style, the
// spelling the documentation uses, so text read through std::exception stays human.
#pragma once
#include <string>
#include <string_view>

namespace gxsort {

// How a front end writes an option reference: cli "--device-memory", "--device cpu";
// python "device_memory=", "device=cpu" (dashes become underscores); plain
// "device-memory", "device cpu".
enum class OptionStyle { cli, python, plain };

// What brackets a reference: NUL, the one byte that no path, argument or file name can
// hold, so no text a message quotes can pass for a reference.
inline constexpr char kOptionMark = '\0';

// A reference to the option `name` (its neutral name: lowercase words joined by dashes,
// as the CLI's long option), and the value it is given in the message when `value` is
// not empty ("memory", "1 GiB"). A NUL in `value` is written as the text "\x00".
inline std::string option_ref(std::string_view name, std::string_view value = {}) {
  std::string ref(1, kOptionMark);
  ref += name;
  if (!value.empty()) ref += '=';
  for (const char c : value) {
    if (c == kOptionMark) ref += "\\x00";
    else ref += c;
  }
  return ref += kOptionMark;
}

namespace detail {

// One reference's text between its marks ("memory" or "device=cpu") in `style`; false
// when it is not one (a name that is not a letter, then letters, digits and dashes).
inline bool spell_reference(std::string_view ref, OptionStyle style, std::string& out) {
  const std::string_view name = ref.substr(0, ref.find('='));
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  const bool valued = name.size() < ref.size();
  if (style == OptionStyle::cli) out += "--";
  for (const char c : name) out += style == OptionStyle::python && c == '-' ? '_' : c;
  if (style == OptionStyle::python) out += '=';
  else if (valued) out += ' ';
  if (valued) out += ref.substr(name.size() + 1);
  return true;
}

}  // namespace detail

// `message` with each option_ref spelled in `style`; a mark that does not open a
// well-formed reference is kept as it is (a front end escapes it like any control byte).
inline std::string spell_options(std::string_view message, OptionStyle style) {
  std::string out;
  out.reserve(message.size() + 16);
  size_t at = 0;
  for (;;) {
    const size_t open = message.find(kOptionMark, at);
    const size_t close = open == std::string_view::npos ? open : message.find(kOptionMark, open + 1);
    if (close == std::string_view::npos) return out.append(message.substr(at));
    out.append(message.substr(at, open - at));
    if (detail::spell_reference(message.substr(open + 1, close - open - 1), style, out)) {
      at = close + 1;
    } else {
      out += kOptionMark;
      at = open + 1;
    }
  }
}

}  // namespace gxsort
