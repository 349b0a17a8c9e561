// EarlyDeviceStart (gxsort.hpp): the app's way to start the GPU early, without naming CUDA.
#include "backend/device_entry.hpp"
#include "gxsort/gxsort.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort {

struct EarlyDeviceStart::Start {
  parallel::OwnThread thread;  // joined by its destructor
};

EarlyDeviceStart::EarlyDeviceStart(const EngineOptions& opt) {
#if GXSORT_HAVE_CUDA
  if (opt.device != Device::cpu) start_ = std::make_unique<Start>(Start{cuda_start_early(opt.device_index, opt.context)});
#else
  (void)opt;
#endif
}

EarlyDeviceStart::~EarlyDeviceStart() = default;  // waits for the start (Start's thread)

}  // namespace gxsort
