#include "plan/sizes.hpp"

#include <sched.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "gxsort/error.hpp"

namespace gxsort {

SizeOption parse_size_option(const std::string& text, const std::string& option) {
  auto bad = [&] { fail_usage(option + ": invalid size '" + text + "' (examples: 512M, 4G, 1.5T, 25%)"); };
  // Digits with an optional fraction: no sign, exponent, hex or leading blank (stod's).
  const size_t pos = text.find_first_not_of("0123456789.");
  const std::string num = text.substr(0, pos);
  if (num.empty() || num == "." || num.find('.') != num.rfind('.')) bad();
  const double value = std::stod(num);
  std::string unit = pos == std::string::npos ? "" : text.substr(pos);
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  SizeOption o;
  o.given = true;
  double mult = 1;
  if (unit == "%") {
    if (!(value > 0 && value <= 100)) bad();
    o.percent = value;
    return o;
  }
  if (unit.size() == 3 && unit.substr(1) == "IB") unit = unit.substr(0, 1);
  else if (unit.size() == 2 && unit[1] == 'B') unit = unit.substr(0, 1);
  if (unit.empty() || unit == "B") mult = 1;
  else if (unit == "K") mult = 1024.0;
  else if (unit == "M") mult = 1024.0 * 1024;
  else if (unit == "G") mult = 1024.0 * 1024 * 1024;
  else if (unit == "T") mult = 1024.0 * 1024 * 1024 * 1024;
  else bad();
  const double bytes = value * mult;
  if (bytes >= 18446744073709551615.0) bad();
  o.bytes = uint64_t(bytes);
  return o;
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

unsigned default_threads() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return unsigned(CPU_COUNT(&set));
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace gxsort
