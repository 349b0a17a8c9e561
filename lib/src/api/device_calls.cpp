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

}  // namespace api
}  // namespace gxsort
