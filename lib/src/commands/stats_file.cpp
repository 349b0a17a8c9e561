// --stats-json (gxsort.hpp: StatsFile).
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

StatsFile::StatsFile(const std::string& path, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, const EngineOptions& opt)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  if (path.empty()) return;
  bool clash = !io::input_named_by(path, inputs).empty();
  for (const auto& out : outputs) clash = clash || io::same_target(path, false, out, false);
  if (clash) fail_usage("--stats-json " + path + ": names an input or an output of the command; give another file");
  if (path == "-") return;
  impl_->out.emplace(io::Output::open(opt.context, path, temp_dirs(opt, default_temp_dir(path))[0], "stats", {}, "--stats-json"));
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

}  // namespace gxsort
