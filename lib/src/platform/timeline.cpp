#include "gxsort/timeline.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
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

void timeline(const Context& context, const char* step) {
  if (!context.timeline || !context.trace) return;
  const std::string& rank = context.rank;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", since_exec());
  context.trace("gxsort: timeline: " + (rank.empty() ? std::string() : "rank " + rank + " ") + step + " at " + seconds +
                " s");
}

}  // namespace gxsort
