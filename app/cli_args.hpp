// The text of every option as given (Args), typed once in cli_options.cpp, and the
// pieces of option lists several commands share (command_options.cpp): what the
// registry's per-command functions (commands.hpp) build a command's options from.
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace gxsort::cli {

namespace po = boost::program_options;

// A non-negative whole number option. Boost reads "-1" into an unsigned type as 2^64-1;
// this type refuses anything but decimal digits that fit in 64 bits.
struct Unsigned {
  uint64_t value = 0;
};
void validate(boost::any& v, const std::vector<std::string>& values, Unsigned*, int);

struct Args {
  std::string type, key_type, format, memory, device = "auto", device_memory, merge_kernel = "auto",
      direct_io = "auto", ooc = "auto", exchange = "auto", keep = "first", strategy = "auto", input_format = "auto", op, algo = "flat",
      dist = "uniform", graph, float_order = "total", buffer_size;
  std::vector<std::string> keys, temporary_dirs;
  Unsigned record_size, key_offset, key_bytes, fan_in, threads, count, seed{1}, scale, edge_factor{16}, source,
      random_sources, ranks, parallel;
  bool reverse = false, stable = false, help = false, no_fsync = false, json = false, dot = false;
  // Text lines (line_options.cpp): --lines, -t's text and GNU sort's ordering letters.
  std::string separator;
  bool lines = false, numeric = false, general_numeric = false, human_numeric = false, blanks = false,
       dictionary = false, ignore_case = false, printable = false, zero_terminated = false;
};

// A switch that may be given more than once, as GNU sort takes -n -n or -u ... -u (Boost's
// bool_switch refuses a second occurrence): sets *target when given.
class RepeatableSwitch : public po::value_semantic {
 public:
  explicit RepeatableSwitch(bool* target) : target_(target) {}
  std::string name() const override { return ""; }
  unsigned min_tokens() const override { return 0; }
  unsigned max_tokens() const override { return 0; }
  bool is_composing() const override { return true; }
  bool is_required() const override { return false; }
  void parse(boost::any& v, const std::vector<std::string>&, bool) const override { v = true; }
  bool apply_default(boost::any&) const override { return false; }
  void notify(const boost::any& v) const override { *target_ = *target_ || !v.empty(); }

 private:
  bool* target_;
};
inline RepeatableSwitch* repeatable_switch(bool* target) { return new RepeatableSwitch(target); }

// "a|b|c": the value name an option shows in --help.
template <class E, size_t N>
std::string names(const Choice<E> (&choices)[N]) {
  std::string s;
  for (const auto& c : choices) s += (s.empty() ? "" : "|") + std::string(c.name);
  return s;
}

// `cmd.name: expected WHAT (see gxsort NAME --help)` unless lo <= operands <= hi.
void expect_operands(const Command& cmd, size_t lo, size_t hi, const char* what);

}  // namespace gxsort::cli
