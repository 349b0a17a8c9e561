// gxsort clean, and the note a command prints about what killed runs left
// (io/debris.hpp).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include "engine/engine.hpp"
#include "gxsort/gxsort.hpp"
#include "io/debris.hpp"
#include "io/output.hpp"
#include "io/safe_dir.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

std::vector<std::string> command_debris_dirs(const EngineOptions& opt, const std::string& output) {
  std::vector<std::string> dirs = temp_dirs(opt, output.empty() ? std::string(".") : default_temp_dir(output));
  if (output.empty() || output == "-") return dirs;
  // The output's directory: its temp file, or a job's output, lies beside it.
  int own_fd = -1;
  const std::string target = io::resolve_symlinks(output, &own_fd);
  struct stat st;
  if (own_fd < 0 && (::stat(target.c_str(), &st) != 0 || S_ISREG(st.st_mode))) dirs.push_back(io::directory_of(target));
  return dirs;
}

namespace {

std::string kept_output_advice(const io::TempEntry& t) {
  return "`cp " + t.path + " " + t.kept_target + "` restores it, then remove " + t.path;
}

// Why a stale entry of the caller's (of anyone's, with all_users) goes, or why not.
// `whose`: " (owned by USER)" for another user's.
void remove_one(const io::TempEntry& t, bool dry_run, bool all_users, const std::string& whose, CleanEntry& e) {
  if (dry_run) {
    e.why = (t.job_dir ? std::string("a dead job's directory") : t.job_output ? std::string("a dead job's output")
                                                                             : "process " + std::to_string(t.pid) + " is gone") +
            whose + " (dry run: not removed)";
    return;
  }
  const std::string not_removed = io::remove_temp_entry(t, all_users);
  e.removed = not_removed.empty();
  e.why = (!e.removed     ? not_removed
           : t.job_dir    ? "the job's process is gone (its pieces were kept for " + option_ref("resume") + ")"
           : t.job_output ? "the job's process is gone (its output so far was kept for " + option_ref("resume") + ")"
                          : "process " + std::to_string(t.pid) + " is gone") +
          whose;
}

// Why an entry stays or goes, and whether it went.
CleanEntry clean_one(const io::TempEntry& t, bool dry_run, bool all_users) {
  CleanEntry e;
  e.path = t.path;
  e.bytes = t.bytes;
  e.pid = t.pid;
  e.host = t.host;
  e.owner = io::user_name(t.uid);
  const std::string whose = t.own() ? "" : " (owned by " + e.owner + ")";
  if (!t.kept_target.empty()) {
    // The one complete copy of an output whose in-place rewrite a kill -9 or an I/O
    // error cut short: the user's to restore, never ours to remove.
    e.why = (t.stale ? "the complete output of an in-place rewrite of " + t.kept_target + " that was cut short (" +
                           t.kept_target + " may be partly rewritten): " + kept_output_advice(t)
                     : "an in-place rewrite is running") +
            whose;
  } else if (!t.stale) {
    e.why = (t.job_dir || t.job_output ? "a running job's"
             : !t.host.empty() && t.host != io::this_host_label() ? "made on host " + t.host + ": run clean there"
                                                                 : "process " + std::to_string(t.pid) + " is running") +
            whose;
  } else if (!t.own() && !all_users) {
    // Another user's leftovers in a shared directory are theirs to remove (or root's,
    // when asked): named, never touched.
    e.why = "owned by " + e.owner + ", not this user: not removed (" + option_ref("all-users") + " removes it)";
  } else {
    remove_one(t, dry_run, all_users, whose, e);
  }
  return e;
}

}  // namespace

std::vector<CleanEntry> clean_temp_files(const Context& context, std::vector<std::string> dirs, bool dry_run,
                                         bool all_users) {
  if (dirs.empty()) dirs = {io::default_clean_dir(context), "."};
  std::vector<io::TempEntry> found = io::find_temp_files(dirs);
  // The other directories killed processes wrote to (beside their outputs, other -T
  // directories), as their lists say (io::note_debris_dir): the caller's own lists
  // only, unless all_users (another user's list names what it likes).
  const std::vector<std::string> listed = io::listed_debris_dirs(found, all_users);
  if (!listed.empty()) {
    dirs.insert(dirs.end(), listed.begin(), listed.end());
    found = io::find_temp_files(dirs);
  }
  std::vector<CleanEntry> out;
  for (const io::TempEntry& t : found) out.push_back(clean_one(t, dry_run, all_users));
  return out;
}

std::string stale_temp_note(const std::vector<std::string>& dirs) {
  uint64_t files = 0, pieces = 0, file_bytes = 0, piece_bytes = 0;
  std::vector<std::string> where;
  std::string kept;
  for (const io::TempEntry& t : io::find_temp_files(dirs)) {
    if (!t.stale || !t.own()) continue;  // another user's leftovers: theirs to clean
    if (!t.kept_target.empty()) {
      kept += "; " + t.path + " is the complete output of an in-place rewrite of " + t.kept_target +
              " that was cut short (" + t.kept_target + " may be partly rewritten): " + kept_output_advice(t);
      continue;
    }
    const bool job = t.job_dir || t.job_output;
    (job ? pieces : files) += 1;
    (job ? piece_bytes : file_bytes) += t.bytes;
    const std::string dir = io::directory_of(t.path);
    if (std::find(where.begin(), where.end(), dir) == where.end()) where.push_back(dir);
  }
  if (files + pieces == 0) return kept.empty() ? "" : kept.substr(2);
  std::string listed, args, what;
  for (const auto& d : where) {
    listed += (listed.empty() ? "" : ", ") + d;
    args += " -T " + d;
  }
  if (files) what = std::to_string(files) + " temporary file" + (files == 1 ? "" : "s") + " of killed runs (" + format_bytes(file_bytes) + ")";
  if (pieces)
    what += (files ? ", " : "") + std::to_string(pieces) + " piece" + (pieces == 1 ? "" : "s") +
            " of killed jobs kept for " + option_ref("resume") + " (" + format_bytes(piece_bytes) +
            "; the same command with " + option_ref("resume") + " continues its job)";
  return "in " + listed + ": " + what + "; `gxsort clean" + args + "` removes them" + kept;
}

}  // namespace gxsort
