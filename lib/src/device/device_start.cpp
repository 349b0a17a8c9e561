// EarlyDeviceStart (gxsort.hpp): the app's way to start the GPU early, without naming CUDA.
#include "backend/device_entry.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort {

EarlyDeviceStart::EarlyDeviceStart(const EngineOptions& opt) {
#if GXSORT_HAVE_CUDA
  if (opt.device != Device::cpu) start_ = cuda_start_early(opt.device_index, opt.context);
#else
  (void)opt;
#endif
}

EarlyDeviceStart::~EarlyDeviceStart() {
  if (start_.joinable()) start_.join();
}

}  // namespace gxsort
