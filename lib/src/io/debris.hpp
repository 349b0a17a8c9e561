// What killed jobs leave behind: temp files (io/temp_files.hpp names every one
// ".gxsort.<host>.<pid>.<kind>.<n>.tmp") whose process is gone, the pieces of
// resumable jobs (resume/journal.hpp) whose process is gone, and the complete output
// of an in-place rewrite that a kill -9 cut short (io/output.hpp: kKeptSuffix).
// `gxsort clean` removes the first two and names the third; a command that finds any
// in its temp directories or its output's directory says so.
//
// These directories may be shared (a 1777 /tmp): every entry is judged without
// following a link (fstatat), nothing but a regular file is opened (and that without
// blocking: O_NONBLOCK, O_NOFOLLOW), and removal goes through the descriptor of the
// directory it was found in, after checking that the entry is still the one judged.
// Only the caller's own entries are removed unless asked for every owner's.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"

namespace gxsort::io {

struct TempEntry {
  std::string path;
  std::string name;                      // in its directory
  std::shared_ptr<const UniqueFd> dir;   // that directory, open since it was searched
  dev_t dev = 0;                         // the entry as judged (no link followed):
  ino_t ino = 0;                         // removal checks it is still this one
  uid_t uid = 0;                         // its owner
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
  bool own() const;         // owned by the caller (the effective user)
};

// Parses a temp file's name (no directory): false when it is not one of gxsort's.
bool parse_temp_name(const std::string& name, std::string& host, long& pid, std::string* kind = nullptr);
// gxsort's temp files, job directories, job outputs and kept in-place outputs directly
// inside each directory (missing directories are skipped), and the output of each of the
// caller's job directories found, wherever it is.
std::vector<TempEntry> find_temp_files(const std::vector<std::string>& dirs);
// The directories that the dead processes' lists among `entries` name
// (temp_files.hpp: note_debris_dir): only the caller's own lists, unless `any_owner`
// (a list another user planted must not lead the caller's clean anywhere).
std::vector<std::string> listed_debris_dirs(const std::vector<TempEntry>& entries, bool any_owner = false);
// Parses a list of directories: NUL-terminated entries (a name may hold any other
// byte), or one per line in a list of gxsort before 0.4 (no NUL in it). Only absolute
// paths are kept.
std::vector<std::string> parse_dirs_list(const std::string& text);
// Removes an entry find_temp_files found, through the directory it was found in, when
// it is still the entry judged, the caller's (any owner's when `any_owner`), and no
// process holds it. "" when it is gone, else why it stays.
std::string remove_temp_entry(const TempEntry& t, bool any_owner);
// The output a job directory's job writes beside its target
// (<target's dir>/.gxsort-job.<digest>.out), from the job's `output` file when that is
// a regular file the caller owns; "" if unknown.
std::string job_output_of(const std::string& job_dir);
bool process_alive(long pid);

// Job directories of resumable jobs (resume/journal.hpp): <dir>/.gxsort-job.<digest>,
// locked (flock on its `lock` file) while a process runs the job.
constexpr const char* kJobPrefix = ".gxsort-job.";
// Whether a job directory is free (its process is gone): its lock can be taken.
bool job_dir_is_stale(const std::string& dir);
// Whether a file's flock can be taken (no live process holds it). A link, a FIFO or a
// device holds no gxsort lock: true, and none is opened.
bool file_is_unlocked(const std::string& path);
// Removes a job directory of the caller's and the files in it, through its descriptor
// (no link followed, another user's entry never removed), taking its lock first: never
// a live one's.
bool remove_job_dir(const std::string& dir);
// Unlinks the caller's entries directly in `dir` (not `keep`; the caller's directories
// in it with what they hold), then the directory if asked. No link followed.
void remove_dir_files(const std::string& dir, const std::string& keep = "", bool and_dir = false);

}  // namespace gxsort::io
