#include <doctest/doctest.h>

#include <string>

#include "gxsort/error.hpp"
#include "gxsort/option_ref.hpp"

using namespace gxsort;

TEST_CASE("spell_options: each front end's spelling of option references") {
  const std::string m = "x.bin: raise " + option_ref("memory") + ", or use " + option_ref("device", "cpu") + " or " +
                        option_ref("device-memory", "1 GiB");
  CHECK(spell_options(m, OptionStyle::cli) == "x.bin: raise --memory, or use --device cpu or --device-memory 1 GiB");
  CHECK(spell_options(m, OptionStyle::python) == "x.bin: raise memory=, or use device=cpu or device_memory=1 GiB");
  CHECK(spell_options(m, OptionStyle::plain) == "x.bin: raise memory, or use device cpu or device-memory 1 GiB");
}

TEST_CASE("spell_options: a message without references is left as it is") {
  for (const std::string m : {std::string(), std::string("x.bin: cannot open: No such file"), std::string("a\tb\n")})
    for (const OptionStyle s : {OptionStyle::cli, OptionStyle::python, OptionStyle::plain}) CHECK(spell_options(m, s) == m);
}

TEST_CASE("spell_options: a file name beside a reference is not read as one") {
  // Control bytes and '=' in a file name, next to a reference and between two.
  const std::string name = "a\x01memory\x02=b\x7f.bin";
  const std::string m = name + ": " + option_ref("resume") + " " + name + " " + option_ref("key", "0:u32");
  CHECK(spell_options(m, OptionStyle::cli) == name + ": --resume " + name + " --key 0:u32");
  CHECK(spell_options(m, OptionStyle::python) == name + ": resume= " + name + " key=0:u32");
}

TEST_CASE("spell_options: a mark that opens no reference is kept") {
  const std::string stray = std::string("x") + kOptionMark + "y";
  CHECK(spell_options(stray, OptionStyle::cli) == stray);
  // Not a name (an upper-case letter, a leading dash): both marks kept, the reference after them spelled.
  const std::string bad = std::string(1, kOptionMark) + "Memory" + kOptionMark + " " + option_ref("threads");
  CHECK(spell_options(bad, OptionStyle::cli) == std::string(1, kOptionMark) + "Memory" + kOptionMark + " --threads");
  // A NUL in a value cannot end its reference early.
  CHECK(spell_options(option_ref("key", std::string("a\0b", 3)), OptionStyle::cli) == "--key a\\x00b");
}

TEST_CASE("Error: what() in the CLI's spelling, message() as built") {
  const Error e(ExitCode::usage, option_ref("fan-in") + " must be at least 2");
  CHECK(std::string(e.what()) == "--fan-in must be at least 2");
  CHECK(spell_options(e.message(), OptionStyle::python) == "fan_in= must be at least 2");
  const Error copy = e;  // the copy shares the message
  CHECK(copy.message() == e.message());
  const OutOfMemory oom(4096, "x.bin: cannot map for writing");
  CHECK(std::string(oom.what()) == "x.bin: cannot map for writing: out of host memory allocating 4096 bytes (lower --memory)");
  CHECK(spell_options(oom.message(), OptionStyle::python) ==
        "x.bin: cannot map for writing: out of host memory allocating 4096 bytes (lower memory=)");
}
