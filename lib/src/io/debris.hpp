// What killed jobs leave behind: temp files (io/temp_files.hpp names every one
// ".gxsort.<host>.<pid>.<kind>.<n>.tmp") whose process is gone, the pieces of
// resumable jobs (resume/journal.hpp) whose process is gone, and the complete output
// of an in-place rewrite that a kill -9 cut short (io/output.hpp: kKeptSuffix).
// `gxsort clean` removes the first two and names the third; a command that finds any
// in its temp directories or its output's directory says so.
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
  std::string kind;    // a temp file's kind (run, out, dirs, ...)
  bool stale = false;  // made on this host by a process that no longer runs
  bool job_output = false;  // a job's output beside its target (.gxsort-job.<digest>.out)
  bool job_dir = false;  // a job directory (.gxsort-job.<digest>, resume/journal.hpp):
                         // stale when no process holds its lock
  std::string kept_target;  // non-empty: the complete output of an in-place rewrite of
                            // this target (stale: no process holds its lock); never removed
};

// Parses a temp file's name (no directory): false when it is not one of gxsort's.
bool parse_temp_name(const std::string& name, std::string& host, long& pid, std::string* kind = nullptr);
// gxsort's temp files, job directories, job outputs and kept in-place outputs directly
// inside each directory (missing directories are skipped), and the output of each job
// directory found, wherever it is.
std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs);
// The directories that the dead processes' lists among `entries` name
// (temp_files.hpp: note_debris_dir).
std::vector<std::string> listed_debris_dirs(const std::vector<TempEntry>& entries);
// The output a job directory's job writes beside its target
// (<target's dir>/.gxsort-job.<digest>.out), from the job's `output` file; "" if unknown.
std::string job_output_of(const std::string& job_dir);
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
