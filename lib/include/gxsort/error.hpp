// Typed errors thrown by the library and mapped to exit codes once, in main().
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "gxsort/option_ref.hpp"

namespace gxsort {

// Documented exit codes (README.md, docs/cli.md).
enum class ExitCode : int {
  ok = 0,
  check_failed = 1,   // `check`: not sorted; `dedupe --assume-sorted`: input not sorted
  usage = 2,          // bad options or bad input data
  io = 3,             // I/O or resource error (disk full, permissions, memory budget)
  device = 4,         // GPU error or no usable GPU when one was required
};

// `message` names options by option_ref (gxsort/option_ref.hpp): message() gives it as
// built, for a front end to spell_options in its style; what() gives it spelled as the
// CLI's flags (the documentation's spelling), for a reader that knows only std::exception.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message)
      : std::runtime_error(spell_options(message, OptionStyle::cli)),
        code_(code),
        message_(std::make_shared<const std::string>(message)) {}
  ExitCode code() const { return code_; }
  const std::string& message() const { return *message_; }

 private:
  ExitCode code_;
  std::shared_ptr<const std::string> message_;  // shared: an exception's copy does not throw
};

// Host memory that could not be had (exit 3): the app names the command's input and the
// memory budget, and says what raises it. `what` says where it ran out ("x.bin: cannot
// map for writing", "cannot pin 1 GiB of host memory"; "" for a plain allocation).
class OutOfMemory : public Error {
 public:
  explicit OutOfMemory(uint64_t bytes, const std::string& what = "")
      : Error(ExitCode::io, (what.empty() ? std::string() : what + ": ") + "out of host memory" +
                                (bytes ? " allocating " + std::to_string(bytes) + " bytes" : std::string()) +
                                " (lower " + option_ref("memory") + ")"),
        bytes_(bytes),
        what_(what) {}
  uint64_t bytes() const { return bytes_; }
  const std::string& where() const { return what_; }

 private:
  uint64_t bytes_;
  std::string what_;
};

// A call stopped by its CancelToken (gxsort/cancel.hpp) before it finished: nothing
// replaced, no temp file left, a resumable job's journalled pieces kept for --resume.
// Not a failure of the command: a front end recognises the class (the CLI ends as the
// signal that set the token would have; Python raises KeyboardInterrupt). The exit code
// is only the fallback of a front end that does not.
class Cancelled : public Error {
 public:
  Cancelled() : Error(ExitCode::io, "cancelled") {}
};

// A GPU error, or no usable GPU where one is needed (a device pointer given to a build or
// a machine without one): exit 4.
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& message) : Error(ExitCode::device, message) {}
};

[[noreturn]] inline void fail_usage(const std::string& m) { throw Error(ExitCode::usage, m); }
[[noreturn]] inline void fail_io(const std::string& m) { throw Error(ExitCode::io, m); }

// "path: what happened: strerror(errno)"; ENOMEM throws OutOfMemory.
[[noreturn]] void fail_errno(const std::string& path, const std::string& what, int err);

}  // namespace gxsort
