#include "distributed/device_exchange.hpp"

#include <numeric>

#include "distributed/comm.hpp"
#include "distributed/device_pass.hpp"
#include "distributed/shared_output.hpp"
#include "io/mapped_file.hpp"

namespace gxsort::distributed {

RunsView OnDevice::view() {
  RunsView v;
  v.records = {records};
  v.read = [this](size_t, uint64_t index, uint64_t count, unsigned char* dst) {
    sort->unload(dst, size_t(index), size_t(count));
  };
  return v;
}

bool slice_fits_device(Backend& backend, const Format& f, const RankShape& shape) {
  const uint64_t n = shape.slice.records;
  return backend.device_budget() > 0 && shape.local == PlanMode::in_memory && shape.run_records >= n && n >= 2 &&
         backend.max_chunk_records(f) >= n;
}

namespace {

// The rank's range of the output, `bytes` at its offset, mapped and pre-faulted in the
// background while the records load and sort.
void map_range_ahead(DeviceReceived& rec, Comm& comm, SharedOutput& out, uint64_t bytes, unsigned threads) {
  const uint64_t offset = SharedOutput::offset_of(comm, bytes);
  rec.mapper = std::make_unique<parallel::BackgroundTasks>(1);
  rec.range = std::make_unique<std::optional<io::MappedRange>>();
  rec.mapped = rec.mapper->submit([range = rec.range.get(), &out, offset, bytes, threads] {
    range->emplace(out.file(), offset, bytes, threads);
  });
}

}  // namespace

std::optional<OnDevice> begin_on_device(Prepared& p, const RankShape& shape, const EngineOptions& opt, bool one_host,
                                        int ranks) {
  const uint64_t n = shape.slice.records;
  if (opt.unique || !one_host || !slice_fits_device(*p.backend, opt.format, shape)) return {};
  // Every peer maps this rank's arena whole, and opening it costs by its size: the default
  // budget (80% of an H200, 111 GiB) took 0.6-0.9 s a peer on 2 GPUs and 9.5 s on 4, a 20
  // GiB arena 0.07 s. The arena keeps what the slice's sort needs, then its sorted records
  // beside a receiver of up to 1/8 more records than the slice (the splitters' imbalance
  // is about 1%; a rank that receives more than that takes the host exchange, correctly).
  // A job of one rank receives nothing: its sorted slice is its output.
  fit_device_to_sorts(*p.backend, opt.format, n, ranks > 1 ? n + n / 8 + 1 : 0);
  OnDevice dev;
  dev.sort = p.backend->begin_resident_sort(opt.format, size_t(n));
  dev.shared = dynamic_cast<PeerSharedSort*>(dev.sort.get());
  if (!dev.shared) return {};
  dev.records = n;
  dev.record_size = opt.format.record_size;
  return dev;
}

void sort_slice_on_device(OnDevice& dev, Prepared& p, const RankShape& shape, const io::File& in,
                          const EngineOptions& opt) {
  DeviceSlots slots(*p.backend, opt.format.record_size, dev.records, p.plan.resident_slice_bytes);
  load_on_device(slots, *dev.sort, slice_reader(in, shape, opt.format.record_size, p.threads), opt.progress);
  dev.sort->sort();
}

DeviceReceived exchange_on_devices(Comm& comm, OnDevice& dev, const std::vector<uint64_t>& cuts, Prepared& p,
                                   SharedOutput& out, RankStats& me) {
  const auto t = Clock::now();
  const size_t ranks = size_t(comm.size()), self = size_t(comm.rank());
  std::vector<uint64_t> sends(ranks), firsts(ranks);
  for (size_t d = 0; d < ranks; ++d) {
    sends[d] = cuts[d + 1] - cuts[d];
    firsts[d] = cuts[d];
  }
  const std::vector<uint64_t> counts = comm.alltoall(sends), from = comm.alltoall(firsts);
  const uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t(0));
  me.sent = std::accumulate(sends.begin(), sends.end(), uint64_t(0)) - sends[self];
  me.kept = sends[self];
  me.received = total - counts[self];
  me.rounds = ranks > 1 ? 1 : 0;
  DeviceReceived rec;
  rec.records = total;
  if (ranks == 1) {  // the sorted slice is the output: nothing to receive, nor to sort again
    comm.collectively([&] {
      map_range_ahead(rec, comm, out, total * dev.record_size, p.threads);
      rec.sort = std::move(dev.sort);
      rec.sorted = true;
    });
    me.exchange_seconds = since(t);
    return rec;
  }
  std::unique_ptr<PeerReceiver> receiver;
  comm.collectively([&] { receiver = dev.shared->receiver(size_t(total)); });
  if (comm.allreduce(receiver ? 1 : 0, Comm::Op::min) == 0) return {};
  std::string handle;
  comm.collectively([&] { handle = dev.shared->share_sorted(); });
  const std::vector<std::string> handles = comm.allgatherv(handle);
  bool opened = true;
  comm.collectively([&] {
    for (const std::string& h : handles) opened = receiver->open(h) && opened;
  });
  if (comm.allreduce(opened ? 1 : 0, Comm::Op::min) == 0) return {};
  map_range_ahead(rec, comm, out, total * dev.record_size, p.threads);
  // In input order (by rank), as the host exchange's pieces: the stable sort then keeps
  // equal keys in that order. The agreement after it is also the point from which no
  // rank reads this slice any more.
  comm.collectively([&] {
    uint64_t at = 0;
    for (size_t r = 0; r < ranks; ++r) {
      if (counts[r]) receiver->load_from(handles[r], size_t(from[r]), size_t(at), size_t(counts[r]));
      at += counts[r];
    }
  });
  dev.sort.reset();
  rec.sort = std::move(receiver);
  me.exchange_seconds = since(t);
  return rec;
}

uint64_t write_from_device(Comm& comm, DeviceReceived& rec, Prepared& p, const EngineOptions& opt) {
  const size_t rs = opt.format.record_size;
  comm.collectively([&] {
    if (!rec.sorted) rec.sort->sort();
    rec.mapped.get();  // the range's mapping (its error, if any, is this rank's)
    DeviceSlots slots(*p.backend, rs, rec.records, p.plan.resident_slice_bytes);
    unload_from_device(slots, *rec.sort, [&](const unsigned char* src, uint64_t first, uint64_t count) {
      (*rec.range)->put(src, first * rs, count * rs);
    }, opt.progress);
    rec.sort.reset();
    rec.range.reset();
  });
  return rec.records;
}

LocalRuns to_host(OnDevice& dev, Prepared& p, const io::File& in, const EngineOptions& opt) {
  DeviceSlots slots(*p.backend, opt.format.record_size, dev.records, p.plan.resident_slice_bytes);
  LocalRuns local = copy_to_host(slots, *dev.sort, p, in, opt);
  dev.sort.reset();
  return local;
}

}  // namespace gxsort::distributed
