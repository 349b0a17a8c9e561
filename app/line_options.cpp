#include "line_options.hpp"

#include <cctype>

#include "commands.hpp"
#include "spellings.hpp"

namespace gxsort::cli {

namespace {

// A global ordering letter of GNU sort and the switch that gives it.
struct OrderLetter {
  char letter;
  bool Args::*given;
};
constexpr OrderLetter kOrderLetters[] = {
    {'b', &Args::blanks},          {'d', &Args::dictionary}, {'f', &Args::ignore_case},
    {'g', &Args::general_numeric}, {'h', &Args::human_numeric}, {'i', &Args::printable},
    {'n', &Args::numeric},         {'r', &Args::reverse}};

// Options of binary records that have no meaning for text lines.
constexpr const char* kRecordOptions[] = {"type",  "record-size", "key-offset", "key-type", "key-bytes", "float-order",
                                          "ooc",   "merge-kernel", "assume-sorted", "count", "keep", "strategy", "ranks",
                                          "exchange"};

bool given(const po::variables_map& vm, const char* name) { return vm.count(name) && !vm[name].defaulted(); }

std::string global_letters(const Args& a) {
  std::string letters;
  for (const OrderLetter& l : kOrderLetters)
    if (a.*l.given) letters += l.letter;
  return letters;
}

// What does not apply to text lines: one line naming it.
void refuse_record_options(const Args& a, const po::variables_map& vm, const CommandEntry& spec, const Command& cmd) {
  const std::string lines = ": text lines (--lines, or GNU sort's -k POS, -t, -n, ...) ";
  if (spec.lines_refusal) fail_usage(spec.lines_refusal);
  for (const char* name : kRecordOptions)
    if (given(vm, name)) fail_usage(cmd.name + ": --" + name + " does not apply to text lines (it describes binary records)");
  if (!a.format.empty() && a.format != "lines") fail_usage(cmd.name + ": --format " + a.format + lines + "have no record format");
  for (const std::string& key : a.keys)
    if (key.find(':') != std::string::npos)
      fail_usage(cmd.name + ": --key " + key + ": a key of binary records; text lines take GNU's -k POS1[,POS2] (-k2,2n)");
  // A sort of lines keeps its runs for --resume (lines/runs_job.hpp; plan shows them); a
  // merge or check keeps nothing.
  const std::optional<CommandKind> kind = cmd.entry->kind;
  if (cmd.engine.resume && kind != CommandKind::sort && kind != CommandKind::dedupe && !cmd.entry->plans)
    fail_usage(cmd.name + ": --resume of text lines: only sort (and dedupe) keeps a job (run it again)");
  if (cmd.distributed) fail_usage(cmd.name + ": --distributed of text lines: not built yet");
  if (!cmd.entry->plans && (cmd.json || a.json || a.dot)) fail_usage(cmd.name + (a.dot ? ": --dot" : ": --json") + lines + "have no JSON or dot report yet");
  for (const std::string& path : cmd.inputs)
    if (has_npy_name(path)) fail_usage(path + ": a .npy file holds records, not text lines");
  if (has_npy_name(cmd.output)) fail_usage(cmd.output + ": text lines are not written as .npy");
  if (given(vm, "field-separator") && a.separator.empty()) fail_usage(cmd.name + ": -t: empty tab (give one byte)");
}

}  // namespace

void add_line_options(po::options_description& d, Args& a) {
  d.add_options()
    ("lines", repeatable_switch(&a.lines), "records are text lines ending in \\n (-z: NUL), any length, ordered as `LC_ALL=C sort` "
     "with the same options orders them (also --format lines; any option below, or -k POS1[,POS2], implies it). "
     "-r, -s, -u, -c, -C, -m, -o, -S, -T are GNU sort's too")
    ("field-separator,t", po::value(&a.separator)->value_name("SEP"), "fields are separated by the byte SEP ('\\0': NUL), "
     "not by runs of blanks")
    ("numeric-sort,n", repeatable_switch(&a.numeric), "compare numbers: blanks, an optional '-', digits, one '.'")
    ("general-numeric-sort,g", repeatable_switch(&a.general_numeric), "compare numbers as strtold reads them (exponents, inf, nan)")
    ("human-numeric-sort,h", repeatable_switch(&a.human_numeric), "compare sizes (2K, 1G): -n with an SI suffix. -h is GNU's "
     "here: help is --help (or gxsort help CMD)")
    ("ignore-leading-blanks,b", repeatable_switch(&a.blanks), "ignore the blanks a field starts with")
    ("dictionary-order,d", repeatable_switch(&a.dictionary), "compare blanks and letters and digits only")
    ("ignore-case,f", repeatable_switch(&a.ignore_case), "compare lower case as upper case")
    ("ignore-nonprinting,i", repeatable_switch(&a.printable), "compare printable characters only")
    ("zero-terminated,z", repeatable_switch(&a.zero_terminated), "lines end in NUL, not newline");
}

bool wants_lines(const Args& a, const po::variables_map& vm) {
  if (a.lines || a.format == "lines" || a.zero_terminated || given(vm, "field-separator")) return true;
  for (const std::string& key : a.keys)  // GNU's POS (line_order says what is wrong in one: -k2,2q)
    if (gnu_key_syntax(key) || (std::isdigit(static_cast<unsigned char>(key[0])) && key.find(':') == std::string::npos))
      return true;
  std::string letters = global_letters(a);
  return letters.find_first_not_of('r') != std::string::npos;  // -r alone orders records too
}

void type_lines(const Args& a, const po::variables_map& vm, const CommandEntry& spec, Command& cmd) {
  refuse_record_options(a, vm, spec, cmd);
  LineOptions o;
  o.keys = a.keys;
  o.global = global_letters(a);
  o.separator = a.separator;
  o.stable = a.stable;
  o.unique = cmd.engine.unique;
  o.zero_terminated = a.zero_terminated;
  try {
    cmd.line_order = line_order(o);
  } catch (const Error& e) {
    fail_usage(cmd.name + ": " + e.message());
  }
}

}  // namespace gxsort::cli
