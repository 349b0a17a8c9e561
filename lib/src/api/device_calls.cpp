#include "api/device_calls.hpp"

#include <map>
#include <mutex>

#include "api/memory_sort.hpp"
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

// The backend one call on a device buffer uses, held until the call returns; the calling
// thread's current device is made current again after it.
class DeviceLease {
 public:
  explicit DeviceLease(const MemoryOptions& o) : caller_device_(keep_current_device()) {
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
  Backend& operator*() const { return *backend_; }

 private:
  std::shared_ptr<void> caller_device_;  // first: put back after everything below is gone
  std::unique_ptr<Backend> own_;
  std::unique_lock<std::mutex> busy_;
  Backend* backend_ = nullptr;
};

namespace {

// The records in `data` sorted in place past one device sort: on the device in chunks
// merged there; where the backend cannot (keys past 8 bytes, too little device memory),
// copied to host memory and sorted there by the engine (temp files past the budget).
void sort_device_past_one_sort(DeviceLease& dev, void* data, size_t n, const Format& f, const MemoryOptions& o) {
  if (dev->sort_device_records_in_chunks(f, data, n, o.stream)) return;
  const size_t bytes = records_bytes(n, f);
  const std::unique_ptr<unsigned char[]> host = host_bytes(bytes);
  dev->copy_from_device(host.get(), data, bytes, o.stream);
  dev->release_device_memory();  // the host sort's backend reserves this GPU's memory
  sort_host(host.get(), n, engine_options(f, on_host(o)));
  dev->copy_to_device(data, host.get(), bytes, o.stream);
}

}  // namespace

void sort_device(void* data, size_t n, const Format& f, const MemoryOptions& o) {
  sort_copy_device(data, data, n, f, o);
}

// One device sort copies as it goes (its first pass reads `in`); past one, `out` gets a
// copy that is then sorted in place.
void sort_copy_device(const void* in, void* out, size_t n, const Format& f, const MemoryOptions& o) {
  f.validate();
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  if (n < 2 || dev->device_records_fit(f, n, false)) return dev->sort_device_records(f, in, out, n, o.stream);
  if (in != out) dev->copy_on_device(out, in, records_bytes(n, f), o.stream);
  sort_device_past_one_sort(dev, out, n, f, o);
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


// On the GPU where its work fits (cuda/device_unique_merge.cu); else the host unique of a
// host copy, its outputs copied to the caller's.
size_t unique_device(const void* data, size_t n, const Format& f, void* out, uint64_t* counts, uint64_t* first_index,
                     const MemoryOptions& o) {
  f.validate();
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  if (n == 0) return 0;
  if (dev->device_unique_fits(f, n)) return dev->unique_device_records(f, data, n, out, counts, first_index, o.stream);
  const size_t bytes = records_bytes(n, f), words = records_bytes(n, Format::typed(KeyType::u64));
  const std::unique_ptr<unsigned char[]> records = host_bytes(bytes), groups_out = host_bytes(bytes);
  const std::unique_ptr<unsigned char[]> host_counts = counts ? host_bytes(words) : nullptr;
  const std::unique_ptr<unsigned char[]> host_first = first_index ? host_bytes(words) : nullptr;
  auto* counts_words = reinterpret_cast<uint64_t*>(host_counts.get());
  auto* first_words = reinterpret_cast<uint64_t*>(host_first.get());
  dev->copy_from_device(records.get(), data, bytes, o.stream);
  dev->release_device_memory();  // the host sort's backend reserves this GPU's memory
  const size_t groups = gxsort::unique(records.get(), n, f, groups_out.get(), counts_words, first_words, on_host(o));
  dev->copy_to_device(out, groups_out.get(), groups * f.record_size, o.stream);
  if (counts) dev->copy_to_device(counts, counts_words, groups * sizeof(uint64_t), o.stream);
  if (first_index) dev->copy_to_device(first_index, first_words, groups * sizeof(uint64_t), o.stream);
  return groups;
}

size_t first_unsorted_device(const void* data, size_t n, const Format& f, const MemoryOptions& o) {
  DeviceLease dev(o);
  return dev->first_unsorted_device(f, data, n, o.stream);
}

namespace {

// Through host memory: the inputs copied back to back, the host merge (its checks and
// messages), the result copied to `out`.
void merge_through_host(Backend& dev, const std::vector<SortedRecords>& inputs, size_t total, const Format& f,
                        void* out, const MemoryOptions& o) {
  const size_t bytes = records_bytes(total, f);
  const std::unique_ptr<unsigned char[]> copies = host_bytes(bytes), merged = host_bytes(bytes);
  std::vector<SortedRecords> on_host_inputs(inputs.size());
  size_t at = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const size_t in_bytes = inputs[k].count * f.record_size;
    dev.copy_from_device(copies.get() + at, inputs[k].data, in_bytes, o.stream);
    on_host_inputs[k] = {copies.get() + at, inputs[k].count};
    at += in_bytes;
  }
  gxsort::merge(on_host_inputs, f, merged.get(), on_host(o));
  dev.copy_to_device(out, merged.get(), bytes, o.stream);
}

}  // namespace

// On the GPU where the merge fits, each input's order checked there first; else through
// host memory.
void merge_device(const std::vector<SortedRecords>& inputs, const Format& f, void* out, const MemoryOptions& o) {
  throw_if_cancelled(o.cancel);
  DeviceLease dev(o);
  size_t total = 0;
  for (const SortedRecords& in : inputs) total += in.count;
  if (!dev->device_merge_fits(f, total)) return merge_through_host(*dev, inputs, total, f, out, o);
  std::vector<DeviceSlice> slices;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const size_t i = dev->first_unsorted_device(f, inputs[k].data, inputs[k].count, o.stream);
    if (i < inputs[k].count) fail_unsorted_input(k, i);
    slices.push_back({inputs[k].data, inputs[k].count});
  }
  throw_if_cancelled(o.cancel);
  dev->merge_device_records(f, slices, out, o.stream);
}

}  // namespace api
}  // namespace gxsort
