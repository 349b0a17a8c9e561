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
  bool job_output = false;  // a job's output beside its target (.gxsort-job.<digest>.out)
  bool job_dir = false;  // a job directory (.gxsort-job.<digest>, resume/journal.hpp):
                         // stale when no process holds its lock
};

// Parses a temp file's name (no directory): false when it is not one of gxsort's.
bool parse_temp_name(const std::string& name, std::string& host, long& pid);
// gxsort's temp files and job directories directly inside each directory (missing
// directories are skipped).
std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs);
bool process_alive(long pid);

// Job directories of resumable jobs (resume/journal.hpp): <dir>/.gxsort-job.<digest>,
// locked (flock on its `lock` file) while a process runs the job.
constexpr const char* kJobPrefix = ".gxsort-job.";
// Whether a job directory is free (its process is gone): its lock can be taken.
bool job_dir_is_stale(const std::string& dir);
// Whether a file's flock can be taken (no live process holds it).
bool file_is_unlocked(const std::string& path);
// Removes a job directory and the files in it (taking its lock first: never a live one's).
bool remove_job_dir(const std::string& dir);
// Unlinks the files directly in `dir` (not `keep`), then the directory if asked.
void remove_dir_files(const std::string& dir, const std::string& keep = "", bool and_dir = false);

}  // namespace gxsort::io
