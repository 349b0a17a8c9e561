#include "distributed/shared_output.hpp"

#include <unistd.h>

#include <cerrno>

#include "distributed/comm.hpp"
#include "io/space.hpp"

namespace gxsort::distributed {

SharedOutput SharedOutput::open(Comm& comm, const Context& context, const std::string& path, const io::OutputHeader& header) {
  SharedOutput o;
  o.label_ = path;
  o.synced_backlog_ = io::Output::synced_backlog(context);
  comm.collectively([&] {
    if (comm.rank() != 0) return;
    o.output_.emplace(io::Output::open(context, path, io::directory_of(path), "out", header));
    if (o.output_->streamed())
      fail_usage(path + ": " + option_ref("distributed") + " writes a regular file on a file system every rank shares, not standard "
                 "output, a device or a FIFO");
  });
  const std::string temp = comm.broadcast(comm.rank() == 0 ? o.output_->temp_path() : std::string(), 0);
  comm.collectively([&] {
    if (comm.rank() == 0) return;
    try {
      o.file_ = io::File::open_rw(temp);
    } catch (const Error& e) {
      throw Error(ExitCode::io, path + ": this rank cannot open the output's temporary file " + temp +
                                    " (-o must be on a file system every rank shares): " + e.message());
    }
    o.file_.set_label(path);
    o.file_.set_base(header.bytes);
  });
  return o;
}

uint64_t SharedOutput::offset_of(Comm& comm, uint64_t bytes) { return comm.exscan_sum(bytes); }

void SharedOutput::finish_range(bool sync) {
  if (sync) file().sync();
  if (!output_) file_.close();
}

void SharedOutput::commit(uint64_t total_bytes, bool sync, const std::function<void()>& before_final) {
  output_->file().truncate(total_bytes);  // the size the ranges give it (an empty job: 0)
  io::commit_all({&*output_}, sync, before_final);
}

void copy_range(const io::File& src, uint64_t bytes, const io::File& out, uint64_t offset) {
  if (bytes == 0) return;
  if (::lseek(out.fd(), off_t(out.base() + offset), SEEK_SET) < 0) fail_errno(out.path(), "cannot seek", errno);
  io::copy_to_fd(src, 0, bytes, out.fd(), out.path());
}

}  // namespace gxsort::distributed
