// A front end's file beside a command's outputs (gxsort.hpp: SideOutput).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "engine/engine.hpp"

namespace gxsort {

struct SideOutput::Impl {
  std::string path;
  std::optional<io::Output> out;
};

SideOutput::SideOutput(const std::string& path, const std::string& option, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, const EngineOptions& opt, uint64_t room)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  bool clash = !io::input_named_by(path, inputs).empty();
  for (const auto& out : outputs) clash = clash || io::same_target(path, false, out, false);
  if (clash) fail_usage(option + " " + path + ": names an input or an output of the command; give another file");
  if (path == "-") return;
  impl_->out.emplace(io::Output::open(opt.context, path, temp_dirs(opt, default_temp_dir(path))[0], "stats", {}, option));
  if (int err = ::posix_fallocate(impl_->out->file().fd(), 0, off_t(room))) fail_errno(path, "cannot reserve space", err);
}

SideOutput::~SideOutput() = default;

void SideOutput::commit(const std::string& bytes, bool sync) {
  if (!impl_->out) return;
  io::Output& out = *impl_->out;
  out.file().write_at(bytes.data(), bytes.size(), 0);
  if (::ftruncate(out.file().fd(), off_t(bytes.size())) != 0) fail_errno(impl_->path, "cannot truncate", errno);
  out.commit(sync);
}

}  // namespace gxsort
