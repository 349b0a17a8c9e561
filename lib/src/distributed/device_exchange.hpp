// sort --distributed through the GPUs of one host (backend/peer_sort.hpp): each rank's
// slice is sorted on its device and stays there; the splitters read its samples and cuts
// from the device; each rank copies its pieces straight from the other ranks' devices
// (no MPI, no host copy) into a second resident sort, which sorts them again and unloads
// them into the rank's range of the output. The host exchange (exchange.hpp) remains for
// everything else: ranks on several hosts, -u, slices that do not fit a device, the CPU.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "backend/peer_sort.hpp"
#include "distributed/shape.hpp"
#include "distributed/slice.hpp"
#include "distributed/splitters.hpp"
#include "engine/engine.hpp"
#include "io/mapped_file.hpp"
#include "parallel/background_tasks.hpp"

namespace gxsort::distributed {

class Comm;
class SharedOutput;

// A rank's slice on its device: begun, then loaded and sorted.
struct OnDevice {
  std::unique_ptr<DeviceResidentSort> sort;
  PeerSharedSort* shared = nullptr;
  uint64_t records = 0;
  size_t record_size = 0;
  RunsView view();  // the sorted slice as one run, read from the device (record by record)
};

// Whether a GPU's resident sort can hold the rank's slice (in memory, at least 2 records):
// the plan's RankShape::slice_fits_device, and the first condition of the path.
bool slice_fits_device(Backend& backend, const Format& f, const RankShape& shape);

// This rank's device sort of its slice, or nothing when the path is not open to it:
// -u, a slice kept in run files, ranks on other hosts, a backend without peer sharing,
// a slice that does not fit the device, or fewer than 2 records. Every rank must then
// agree (Comm::allreduce) before any takes the path. `ranks`: the job's (one receives
// nothing, so its device holds the slice's sort alone).
std::optional<OnDevice> begin_on_device(Prepared& p, const RankShape& shape, const EngineOptions& opt, bool one_host,
                                        int ranks);
// Reads the slice of `in` into the device and sorts it.
void sort_slice_on_device(OnDevice& dev, Prepared& p, const RankShape& shape, const io::File& in,
                          const EngineOptions& opt);

// What a rank received on its device: its records, loaded in input order (by rank), and
// its range of the output, mapped (pre-faulted) in the background while they load and sort.
// A job of one rank receives its own sorted slice, `sorted` already.
struct DeviceReceived {
  std::unique_ptr<DeviceResidentSort> sort;
  bool sorted = false;
  uint64_t records = 0;
  std::unique_ptr<std::optional<io::MappedRange>> range;  // filled by `mapped`, where moves do not reach
  std::future<void> mapped;
  std::unique_ptr<parallel::BackgroundTasks> mapper;  // declared last: joined first
};

// The exchange (collective): `cuts` are the slice's ranks + 1 cuts. Returns no receiver,
// on every rank, when some rank's device cannot hold what it receives beside its slice,
// or some rank cannot open another's records (the slice then stays sorted on the device,
// for to_host). Otherwise the slice's memory is released. Fills the exchange's part of `me`.
DeviceReceived exchange_on_devices(Comm& comm, OnDevice& dev, const std::vector<uint64_t>& cuts, Prepared& p,
                                   SharedOutput& out, RankStats& me);
// Sorts what a rank received and writes it to its range of the output. Returns the
// records written.
uint64_t write_from_device(Comm& comm, DeviceReceived& rec, Prepared& p, const EngineOptions& opt);

// The host exchange's input instead: the sorted slice copied into host memory, one run
// (slice.hpp's copy_to_host); the device's memory is released.
LocalRuns to_host(OnDevice& dev, Prepared& p, const io::File& in, const EngineOptions& opt);

}  // namespace gxsort::distributed
