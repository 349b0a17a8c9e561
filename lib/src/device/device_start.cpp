// EarlyDeviceStart (gxsort.hpp): the app's way to start the GPU early, without naming CUDA.
#include "backend/device_entry.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort {

EarlyDeviceStart::EarlyDeviceStart(const EngineOptions& opt) {
#if GXSORT_HAVE_CUDA
  if (opt.device != Device::cpu) cuda_start_early(opt.device_index);
#else
  (void)opt;
#endif
}

EarlyDeviceStart::~EarlyDeviceStart() {
#if GXSORT_HAVE_CUDA
  cuda_join_early();  // nothing to wait for when nothing was started
#endif
}

}  // namespace gxsort
