// Picks the backend for --device cpu|cuda|auto.
#include "device/backend_select.hpp"
#include "backend/backend.hpp"
#include "backend/device_entry.hpp"
#include "gxsort/error.hpp"

namespace gxsort {
namespace {

std::unique_ptr<Backend> pick_backend(Device device, unsigned threads, const SizeOption& device_memory,
                                      unsigned device_index) {
  if (device == Device::cpu) return make_cpu_backend(threads);
#if GXSORT_HAVE_CUDA
  if (cuda_device_usable()) return make_cuda_backend(device_index % unsigned(cuda_device_count()), device_memory);
  if (device == Device::cuda) throw Error(ExitCode::device, option_ref("device", "cuda") + ": no usable CUDA device found");
#else
  (void)device_memory;
  (void)device_index;
  if (device == Device::cuda) throw Error(ExitCode::device, option_ref("device", "cuda") + ": this gxsort was built without the CUDA backend");
#endif
  return make_cpu_backend(threads);
}

}  // namespace

std::unique_ptr<Backend> make_backend(Device device, unsigned threads, const SizeOption& device_memory,
                                      unsigned device_index) {
  std::unique_ptr<Backend> b = pick_backend(device, threads, device_memory, device_index);
  b->set_host_threads(threads);
  return b;
}

std::shared_ptr<void> keep_current_device() {
#if GXSORT_HAVE_CUDA
  return cuda_keep_current_device();
#else
  return nullptr;
#endif
}

unsigned visible_gpus() {
#if GXSORT_HAVE_CUDA
  return unsigned(cuda_device_count());
#else
  return 0;
#endif
}

std::vector<DeviceInfo> list_devices(const SizeOption& device_memory) {
#if GXSORT_HAVE_CUDA
  if (cuda_device_usable()) return cuda_list_devices(device_memory);
#else
  (void)device_memory;
#endif
  return {};
}

}  // namespace gxsort
