// The distributed sort's exchange between the GPUs of one host (docs/distributed.md): a
// rank's slice, sorted on its device, stays there and is shared with the other processes
// of the host (CUDA IPC); each rank copies its pieces straight from the other devices into
// a second resident sort, which sorts them again (stable: loaded in input order, as the
// merge of the pieces would keep them) and unloads them into the rank's range of the output.
// The CUDA backend's resident sorts implement both interfaces (dynamic_cast finds them);
// no other backend does.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace gxsort {

// A resident sort fed from the sorted records of resident sorts of other processes.
class PeerReceiver : public DeviceResidentSort {
 public:
  // Opens the sorted records `handle` shares, ahead of load_from: false when this process
  // cannot reach them (CUDA IPC not allowed between these processes, say); the caller
  // then exchanges through the host instead.
  virtual bool open(const std::string& handle) = 0;
  // Copies records [src_first, src_first + count) of the sorted records that `handle`
  // shares (PeerSharedSort::share_sorted, of this process or another of the host) to
  // records [first, first + count) here, as load() does from the host.
  virtual void load_from(const std::string& handle, size_t src_first, size_t first, size_t count) = 0;
};

// A resident sort whose sorted records other processes of the host can copy.
class PeerSharedSort {
 public:
  virtual ~PeerSharedSort() = default;
  // After sort(): the handle of the sorted records, for every process of the job. They
  // must stay where they are (this sort alive) until every process has loaded its pieces.
  virtual std::string share_sorted() = 0;
  // A receiver of n records on the same device, or null when the device cannot hold it
  // beside these sorted records. It takes over this sort's hold on the device, so that
  // this sort can be dropped (its memory freed) once every process has loaded its pieces.
  virtual std::unique_ptr<PeerReceiver> receiver(size_t n) = 0;
};

}  // namespace gxsort
