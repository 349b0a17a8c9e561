// Typed errors thrown by the library and mapped to exit codes once, in main().
#pragma once
#include <stdexcept>
#include <string>

namespace gxsort {

// Documented exit codes (README.md, docs/cli.md).
enum class ExitCode : int {
  ok = 0,
  check_failed = 1,   // `check`: not sorted; `dedupe --assume-sorted`: input not sorted
  usage = 2,          // bad options or bad input data
  io = 3,             // I/O or resource error (disk full, permissions, memory budget)
  device = 4,         // GPU error or no usable GPU when one was required
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

[[noreturn]] inline void fail_usage(const std::string& m) { throw Error(ExitCode::usage, m); }
[[noreturn]] inline void fail_io(const std::string& m) { throw Error(ExitCode::io, m); }

// "path: what happened: strerror(errno)"
[[noreturn]] void fail_errno(const std::string& path, const std::string& what, int err);

}  // namespace gxsort
