#include "plan/sizes.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "gxsort/error.hpp"

namespace gxsort {

uint64_t parse_size(const std::string& text, uint64_t percent_base, const std::string& option) {
  auto bad = [&] { fail_usage(option + ": invalid size '" + text + "' (examples: 512M, 4G, 1.5T, 25%)"); };
  if (text.empty()) bad();
  size_t pos = 0;
  double value = 0;
  try { value = std::stod(text, &pos); } catch (...) { bad(); }
  if (!(value >= 0) || !std::isfinite(value)) bad();
  std::string unit = text.substr(pos);
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit == "%") {
    if (value > 100) bad();
    return uint64_t(double(percent_base) * value / 100.0);
  }
  if (unit.size() == 3 && unit.substr(1) == "IB") unit = unit.substr(0, 1);
  else if (unit.size() == 2 && unit[1] == 'B') unit = unit.substr(0, 1);
  if (unit.empty() || unit == "B") mult = 1;
  else if (unit == "K") mult = 1024.0;
  else if (unit == "M") mult = 1024.0 * 1024;
  else if (unit == "G") mult = 1024.0 * 1024 * 1024;
  else if (unit == "T") mult = 1024.0 * 1024 * 1024 * 1024;
  else bad();
  double bytes = value * mult;
  if (bytes >= 18446744073709551615.0) bad();
  return uint64_t(bytes);
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) { v /= 1024; ++u; }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : (uint64_t(1) << 30);
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  unsigned long long kib = 0;
  for (std::string line; std::getline(meminfo, line);)
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return uint64_t(kib) * 1024;
  return physical_memory_bytes() / 2;
}

unsigned hardware_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace gxsort
