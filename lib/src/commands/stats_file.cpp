// --stats-json (gxsort.hpp: StatsFile) and gxsort clean (io/debris.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "gxsort/gxsort.hpp"
#include "io/debris.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "plan/sizes.hpp"
#include "engine/engine.hpp"

namespace gxsort {

namespace {
constexpr off_t kStatsReserve = 64 << 10;  // far more than the JSON of any run
}

struct StatsFile::Impl {
  std::string path;
  std::optional<io::Output> out;
  bool written = false;
};

StatsFile::StatsFile(const std::string& path, const std::vector<std::string>& inputs, const std::string& output,
                     const EngineOptions& opt)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  if (path.empty()) return;
  const std::string key = io::output_key(path);
  auto clashes = [&](const std::string& t, const std::string& t_key) {
    return t_key == key || (t != "-" && path != "-" && io::same_file(t, path));
  };
  bool clash = !output.empty() && clashes(output, io::output_key(output));
  for (const auto& in : inputs) clash = clash || clashes(in, in == "-" ? "fd:0" : io::output_key(in));
  if (clash) fail_usage("--stats-json " + path + ": names an input or the output of the command; give another file");
  if (path == "-") return;
  impl_->out.emplace(io::Output::open(path, temp_dirs(opt, default_temp_dir(path))[0], "stats"));
  if (int err = ::posix_fallocate(impl_->out->file().fd(), 0, kStatsReserve)) fail_errno(path, "cannot reserve space", err);
}

StatsFile::~StatsFile() = default;

void StatsFile::write(const RunStats& s, bool sync) {
  if (impl_->path.empty() || impl_->written) return;
  impl_->written = true;
  const std::string json = stats_json(s);
  if (!impl_->out) {
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fflush(stdout);
    return;
  }
  io::Output& out = *impl_->out;
  out.file().write_at(json.data(), json.size(), 0);
  if (::ftruncate(out.file().fd(), off_t(json.size())) != 0) fail_errno(impl_->path, "cannot truncate", errno);
  out.commit(sync);
}

std::vector<std::string> command_temp_dirs(const EngineOptions& opt, const std::string& output) {
  return temp_dirs(opt, output.empty() ? std::string(".") : default_temp_dir(output));
}

std::vector<CleanEntry> clean_temp_files(std::vector<std::string> dirs, bool dry_run) {
  if (dirs.empty()) {
    const char* env = std::getenv("TMPDIR");
    dirs = {env && *env ? std::string(env) : std::string("/tmp"), "."};
  }
  std::vector<CleanEntry> out;
  for (const io::TempEntry& t : io::find_temp_files(dirs)) {
    CleanEntry e;
    e.path = t.path;
    e.bytes = t.bytes;
    e.pid = t.pid;
    e.host = t.host;
    if (!t.stale) {
      e.why = t.job_dir || t.job_output ? "a running job's"
              : !t.host.empty() && t.host != io::this_host_label() ? "made on host " + t.host + ": run clean there"
                                                                  : "process " + std::to_string(t.pid) + " is running";
    } else if (dry_run) {
      e.why = (t.job_dir ? std::string("a dead job's directory") : "process " + std::to_string(t.pid) + " is gone") +
              " (dry run: not removed)";
    } else if (t.job_dir ? io::remove_job_dir(t.path) : (::unlink(t.path.c_str()) == 0 || errno == ENOENT)) {
      e.removed = true;
      e.why = t.job_dir      ? "the job's process is gone (its pieces were kept for --resume)"
              : t.job_output ? "the job's process is gone (its output so far was kept for --resume)"
                             : "process " + std::to_string(t.pid) + " is gone";
    } else {
      e.why = std::string("cannot remove: ") + std::strerror(errno);
    }
    out.push_back(e);
  }
  return out;
}

std::string stale_temp_note(const std::vector<std::string>& dirs) {
  uint64_t files = 0, jobs = 0, file_bytes = 0, job_bytes = 0;
  std::vector<std::string> where;
  for (const io::TempEntry& t : io::find_temp_files(dirs)) {
    if (!t.stale) continue;
    (t.job_dir ? jobs : files) += 1;
    (t.job_dir ? job_bytes : file_bytes) += t.bytes;
    const std::string dir = io::directory_of(t.path);
    if (std::find(where.begin(), where.end(), dir) == where.end()) where.push_back(dir);
  }
  if (files + jobs == 0) return "";
  std::string listed, args, what;
  for (const auto& d : where) {
    listed += (listed.empty() ? "" : ", ") + d;
    args += " -T " + d;
  }
  if (files) what = std::to_string(files) + " temporary file" + (files == 1 ? "" : "s") + " of killed runs (" + format_bytes(file_bytes) + ")";
  if (jobs)
    what += (files ? ", " : "") + std::to_string(jobs) + " job director" + (jobs == 1 ? "y" : "ies") + " of killed runs (" +
            format_bytes(job_bytes) + "; the same command with --resume continues its job)";
  return "in " + listed + ": " + what + "; `gxsort clean" + args + "` removes them";
}

}  // namespace gxsort
