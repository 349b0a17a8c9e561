#include "gxsort/timeline.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace gxsort {
namespace {

// Seconds from the process's start (/proc/self/stat's starttime, field 22, in clock ticks
// since boot) to now on the same clock: the exec and the loader included; 10 ms steps.
double since_exec() {
  std::ifstream stat("/proc/self/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command's name may hold spaces
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));  // from field 3 on
  std::string field;
  for (int i = 3; i < 22 && fields >> field;) ++i;
  unsigned long long ticks = 0;
  if (!(fields >> ticks)) return -1;
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(ticks) / double(::sysconf(_SC_CLK_TCK));
}

}  // namespace

void timeline(const char* step) {
  static const bool on = [] {
    const char* v = std::getenv("GXSORT_TIMELINE");
    return v && *v && std::string(v) != "0";
  }();
  if (!on) return;
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  std::fprintf(stderr, "gxsort: timeline: %s%s%s%s at %.3f s\n", rank ? "rank " : "", rank ? rank : "", rank ? " " : "",
               step, since_exec());
}

}  // namespace gxsort
