// PLACEHOLDER (replaced by the helper that writes the lines engine).
#include "gxsort/error.hpp"
#include "gxsort/lines.hpp"

namespace gxsort {

RunStats sort_lines(const std::vector<std::string>&, const std::string&, const LineOrder&, const EngineOptions&) {
  throw Error(ExitCode::usage, "lines: not built yet");
}
RunStats merge_lines(const std::vector<std::string>&, const std::string&, const LineOrder&, const EngineOptions&) {
  throw Error(ExitCode::usage, "lines: not built yet");
}
LinesCheck check_lines(const std::string&, const LineOrder&, const EngineOptions&) {
  throw Error(ExitCode::usage, "lines: not built yet");
}

}  // namespace gxsort
