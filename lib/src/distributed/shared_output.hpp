// The one output file of a distributed sort. Rank 0 opens it as every command opens its
// output (io::Output: refused when it cannot be written, a temp file beside the target);
// the other ranks open that temp file by its path, which is why -o must name a regular
// file on a file system every rank shares. Each rank writes its own byte range, at the
// offset the ranks before it fill (MPI_Exscan of the sizes); once every rank has written,
// synced and closed its range, rank 0 alone commits (fsync, rename over the target,
// directory fsync). Until then the target is untouched, and a failure anywhere leaves
// nothing: rank 0's temp file goes with it (its destructor, or its signal handler when
// MPI_Abort's SIGTERM reaches it).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "io/output.hpp"

namespace gxsort::distributed {

class Comm;

class SharedOutput {
 public:
  // Collective (failures agreed on every rank).
  static SharedOutput open(Comm& comm, const Context& context, const std::string& path, const io::OutputHeader& header);
  const io::File& file() const { return output_ ? output_->file() : file_; }
  const std::string& label() const { return label_; }
  // This rank's writes start their writeback as they are made (io::File::start_write_behind):
  // the final sync then has little left. A `synced` one's writes go at most
  // io::Output::synced_backlog ahead of the disk, as io::Output::start_write_behind's
  // (a wait for the disk throws Cancelled once `cancel` is set).
  void start_write_behind(bool synced, const CancelToken* cancel) {
    const uint64_t backlog = synced ? synced_backlog_ : 0;
    output_ ? output_->file().start_write_behind(backlog, cancel) : file_.start_write_behind(backlog, cancel);
  }
  // Collective: the byte where a range of `bytes` of this rank starts.
  static uint64_t offset_of(Comm& comm, uint64_t bytes);
  // This rank's range is written: synced (unless `sync` is false) and, but on rank 0,
  // closed (an NFS client sends its writes at close at the latest).
  void finish_range(bool sync);
  // Rank 0, once every rank finished its range: the output becomes the target.
  // before_final runs once the output is ready to be made real and nothing is left that
  // can fail (the --stats-json file: io::commit_all).
  void commit(uint64_t total_bytes, bool sync, const std::function<void()>& before_final);

 private:
  std::optional<io::Output> output_;  // rank 0
  io::File file_;                     // the others: the same temp file
  std::string label_;
  uint64_t synced_backlog_ = io::Output::kSyncedBacklog;
};

// Copies the first `bytes` of `src` into `out` at byte `offset` (the range of a -u rank,
// merged before its offset was known).
void copy_range(const io::File& src, uint64_t bytes, const io::File& out, uint64_t offset);

}  // namespace gxsort::distributed
