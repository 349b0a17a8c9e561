#include "platform/sizes.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

namespace {

// The number in a cgroup limit file (or a vm sysctl); false for "max", a missing file or no limit.
bool read_limit(const std::string& path, uint64_t& bytes) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text) || text == "max" || text.find_first_not_of("0123456789") != std::string::npos) return false;
  bytes = std::stoull(text);
  return bytes < (uint64_t(1) << 62);  // v1 writes "no limit" as a huge page-aligned number
}

// The smallest limit in `file` from dir/path up to dir (cgroup namespaces may hide the
// upper part of the path: the walk then finds the container's own root).
void smallest_limit(const std::string& dir, std::string path, const std::string& file, MemoryLimit& best) {
  while (true) {
    const std::string at = dir + (path == "/" ? "" : path) + "/" + file;
    uint64_t b = 0;
    if (read_limit(at, b) && b < best.bytes) best = {b, "cgroup " + at};
    if (path.empty() || path == "/") return;
    const size_t slash = path.find_last_of('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
}

}  // namespace

MemoryLimit memory_limit(const std::string& proc_cgroup, const std::string& cgroup_root) {
  MemoryLimit best{physical_memory_bytes(), "physical RAM"};
  std::ifstream f(proc_cgroup);
  for (std::string line; std::getline(f, line);) {
    // "0::/path" (v2) or "4:memory:/path" (v1, maybe with other controllers: "4:cpu,memory:/path")
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) smallest_limit(cgroup_root, path, "memory.max", best);
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
      smallest_limit(cgroup_root + "/memory", path, "memory.limit_in_bytes", best);
  }
  return best;
}

MemoryLimit memory_limit(const Context& context) {
  const std::string& test_dir = context.test.cgroup_dir;
  if (!test_dir.empty()) return memory_limit(test_dir + "/cgroup", test_dir + "/root");
  return memory_limit("/proc/self/cgroup", "/sys/fs/cgroup");
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  unsigned long long kib = 0;
  for (std::string line; std::getline(meminfo, line);)
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return uint64_t(kib) * 1024;
  return physical_memory_bytes() / 2;
}

uint64_t dirty_background_bytes(uint64_t available, const std::string& vm_dir) {
  uint64_t bytes = 0, ratio = 10;  // the kernel's default ratio where the file cannot be read
  if (read_limit(vm_dir + "/dirty_background_bytes", bytes) && bytes) return bytes;
  if (!read_limit(vm_dir + "/dirty_background_ratio", ratio)) ratio = 10;
  return available / 100 * std::min<uint64_t>(ratio, 100);
}

unsigned default_threads() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return unsigned(CPU_COUNT(&set));
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace gxsort
