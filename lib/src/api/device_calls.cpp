#include "api/device_calls.hpp"

#include <map>
#include <mutex>

#include "api/memory_sort.hpp"
#include "api/unique_groups.hpp"
#include "backend/backend.hpp"
#include "device/backend_select.hpp"

namespace gxsort {

struct DeviceWorkspace::State {
  struct Gpu {
    std::mutex busy;                   // one call at a time on this GPU
    std::unique_ptr<Backend> backend;  // made by its first call, made anew when the options change
    unsigned threads = 0;
    SizeOption device_memory;
  };
  std::mutex m;  // guards the map, not its Gpus
  std::map<unsigned, std::unique_ptr<Gpu>> gpus;

  Gpu& gpu(unsigned index) {
    std::lock_guard<std::mutex> l(m);
    std::unique_ptr<Gpu>& g = gpus[index];
    if (!g) g = std::make_unique<Gpu>();
    return *g;
  }
};

DeviceWorkspace::DeviceWorkspace() : state_(std::make_unique<State>()) {}
DeviceWorkspace::~DeviceWorkspace() = default;

void DeviceWorkspace::release() {
  std::lock_guard<std::mutex> l(state_->m);
  for (auto& entry : state_->gpus) {
    std::lock_guard<std::mutex> busy(entry.second->busy);
    entry.second->backend.reset();
  }
}

namespace api {
namespace {

// The backend of a device buffer: the CUDA backend on its GPU, or DeviceError.
std::unique_ptr<Backend> device_backend(const MemoryOptions& o) {
#if GXSORT_HAVE_CUDA
  if (visible_gpus() == 0) throw DeviceError("a device buffer: no usable CUDA device");
  return make_backend(Device::cuda, o.threads, o.device_memory, o.device_index);
#else
  (void)o;
  throw DeviceError("a device buffer: this gxsort was built without the CUDA backend");
#endif
}

bool same_size_option(const SizeOption& a, const SizeOption& b) {
  return a.given == b.given && a.bytes == b.bytes && a.percent == b.percent;
}

// The options of the host sort of a device buffer's copy.
MemoryOptions on_host(const MemoryOptions& o) {
  MemoryOptions h = o;
  h.location = BufferLocation::host;
  h.workspace = nullptr;
  return h;
}

}  // namespace

// The backend one call on a device buffer uses, held until the call returns.
class DeviceLease {
 public:
  explicit DeviceLease(const MemoryOptions& o) {
    if (!o.workspace) {
      own_ = device_backend(o);
      backend_ = own_.get();
      return;
    }
    DeviceWorkspace::State::Gpu& g = o.workspace->state_->gpu(o.device_index);
    busy_ = std::unique_lock<std::mutex>(g.busy);
    if (!g.backend || g.threads != o.threads || !same_size_option(g.device_memory, o.device_memory)) {
      g.backend.reset();  // its arena first: both may not fit
      g.backend = device_backend(o);
      g.threads = o.threads;
      g.device_memory = o.device_memory;
    }
    backend_ = g.backend.get();
  }
  Backend* operator->() const { return backend_; }

 private:
  std::unique_ptr<Backend> own_;
  std::unique_lock<std::mutex> busy_;
  Backend* backend_ = nullptr;
};

// A buffer too large for one device sort is copied to host memory and sorted there by the
// engine, which takes the GPU's memory in chunks and merges (temp files past the budget).
void sort_device(void* data, size_t n, const Format& f, const MemoryOptions& o) {
  f.validate();
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  if (n < 2 || dev->device_records_fit(f, n, false)) return dev->sort_device_records(f, data, n, o.stream);
  const size_t bytes = records_bytes(n, f);
  const std::unique_ptr<unsigned char[]> host = host_bytes(bytes);
  dev->copy_from_device(host.get(), data, bytes, o.stream);
  dev->release_device_memory();  // the host sort's backend reserves this GPU's memory
  sort_host(host.get(), n, engine_options(f, on_host(o)));
  dev->copy_to_device(data, host.get(), bytes, o.stream);
}

void argsort_device(const void* data, size_t n, const Format& f, uint64_t* perm, const MemoryOptions& o) {
  f.validate();
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  if (n == 0 || dev->device_records_fit(f, n, true)) return dev->argsort_device_records(f, data, n, perm, o.stream);
  const std::unique_ptr<unsigned char[]> host = host_bytes(records_bytes(n, f));
  const std::unique_ptr<unsigned char[]> order = host_bytes(records_bytes(n, Format::typed(KeyType::u64)));
  auto* order_words = reinterpret_cast<uint64_t*>(order.get());
  dev->copy_from_device(host.get(), data, n * f.record_size, o.stream);
  dev->release_device_memory();
  argsort(host.get(), n, f, order_words, on_host(o));
  dev->copy_to_device(perm, order_words, n * sizeof(uint64_t), o.stream);
}


namespace {

// unique's outputs in host memory, room for n groups each (counts and first indices only
// where the caller asked for them), copied to the caller's device outputs at the end.
struct HostUniqueOutputs {
  std::unique_ptr<unsigned char[]> records, counts, first_index;
  HostUniqueOutputs(size_t n, const Format& f, bool with_counts, bool with_first_index)
      : records(host_bytes(records_bytes(n, f))),
        counts(with_counts ? host_bytes(words_bytes(n)) : nullptr),
        first_index(with_first_index ? host_bytes(words_bytes(n)) : nullptr) {}
  // n u64s, in bytes; Error(usage) when that overflows.
  static size_t words_bytes(size_t n) { return records_bytes(n, Format::typed(KeyType::u64)); }
  static uint64_t* words(const std::unique_ptr<unsigned char[]>& p) { return reinterpret_cast<uint64_t*>(p.get()); }
};

// Whether unique may argsort on the device with `out` as the permutation's room: n u64s
// fit in its n records, aligned, and writing it does not touch the records being sorted.
bool out_holds_permutation(const void* data, size_t n, const Format& f, const void* out) {
  const auto* d = static_cast<const unsigned char*>(data);
  const auto* o = static_cast<const unsigned char*>(out);
  const size_t bytes = n * f.record_size;
  return f.record_size >= sizeof(uint64_t) && reinterpret_cast<uintptr_t>(out) % alignof(uint64_t) == 0 &&
         !(o < d + bytes && d < o + bytes);
}

}  // namespace

// The groups of a stable device argsort, walked on the host: records[perm[i]] in sorted
// order with perm[i] its index, as the host unique walks its sorted indexed records.
// Where the permutation has no room in `out`, or the records are past one device argsort,
// the host unique of a host copy.
size_t unique_device(const void* data, size_t n, const Format& f, void* out, uint64_t* counts, uint64_t* first_index,
                     const MemoryOptions& o) {
  f.validate();
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  if (n == 0) return 0;
  const size_t rs = f.record_size, bytes = records_bytes(n, f);
  HostUniqueOutputs host(n, f, counts != nullptr, first_index != nullptr);
  uint64_t* host_counts = HostUniqueOutputs::words(host.counts);
  uint64_t* host_first_index = HostUniqueOutputs::words(host.first_index);
  const std::unique_ptr<unsigned char[]> records = host_bytes(bytes);
  size_t groups = 0;
  if (out_holds_permutation(data, n, f, out) && dev->device_records_fit(f, n, true)) {
    dev->argsort_device_records(f, data, n, static_cast<uint64_t*>(out), o.stream);
    const std::unique_ptr<unsigned char[]> order = host_bytes(HostUniqueOutputs::words_bytes(n));
    const uint64_t* perm = HostUniqueOutputs::words(order);
    dev->copy_from_device(order.get(), out, n * sizeof(uint64_t), o.stream);
    dev->copy_from_device(records.get(), data, bytes, o.stream);
    throw_if_cancelled(o.cancel);
    UniqueGroups walk(f, host.records.get(), host_counts, host_first_index);
    for (size_t i = 0; i < n; ++i) walk.add(records.get() + perm[i] * rs, perm[i]);
    groups = walk.finish();
  } else {
    dev->copy_from_device(records.get(), data, bytes, o.stream);
    dev->release_device_memory();  // the host sort's backend reserves this GPU's memory
    groups = gxsort::unique(records.get(), n, f, host.records.get(), host_counts, host_first_index, on_host(o));
  }
  dev->copy_to_device(out, host.records.get(), groups * rs, o.stream);
  if (counts) dev->copy_to_device(counts, host_counts, groups * sizeof(uint64_t), o.stream);
  if (first_index) dev->copy_to_device(first_index, host_first_index, groups * sizeof(uint64_t), o.stream);
  return groups;
}

// Through host memory: the inputs copied back to back, the host merge (its checks and
// messages), the result copied to `out`.
void merge_device(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o) {
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  size_t total = 0;
  for (const SortedRecords& in : inputs) total += in.count;
  const size_t bytes = records_bytes(total, f);
  const std::unique_ptr<unsigned char[]> copies = host_bytes(bytes), merged = host_bytes(bytes);
  std::vector<SortedRecords> on_host_inputs(inputs.size());
  size_t at = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const size_t in_bytes = inputs[k].count * f.record_size;
    dev->copy_from_device(copies.get() + at, inputs[k].data, in_bytes, o.stream);
    on_host_inputs[k] = {copies.get() + at, inputs[k].count};
    at += in_bytes;
  }
  gxsort::merge(on_host_inputs, f, merged.get(), on_host(o));
  dev->copy_to_device(out, merged.get(), bytes, o.stream);
}

}  // namespace api
}  // namespace gxsort
