// What killed jobs leave behind: temp files (io/temp_files.hpp names every one
// ".gxsort.<host>.<pid>.<kind>.<n>.tmp") whose process is gone. `gxsort clean` removes
// them; a command that finds some in its temp directories says so.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gxsort::io {

struct TempEntry {
  std::string path;
  uint64_t bytes = 0;
  long pid = 0;
  std::string host;    // as in the name ("" for the names of gxsort before 0.2)
  bool stale = false;  // made on this host by a process that no longer runs
};

// Parses a temp file's name (no directory): false when it is not one of gxsort's.
bool parse_temp_name(const std::string& name, std::string& host, long& pid);
// gxsort's temp files directly inside each directory (missing directories are skipped).
std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs);
bool process_alive(long pid);

}  // namespace gxsort::io
