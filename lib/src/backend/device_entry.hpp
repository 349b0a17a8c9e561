// The CUDA backend's entry points: the only functions the host library calls into cuda/
// (defined in cuda/backend_factory.cu, linked only when GXSORT_HAVE_CUDA is 1, and only
// called by device/, the backend factory, the one target that links cuda/). Every other
// device use goes through the Backend these return.
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "gxsort/context.hpp"
#include "gxsort/options.hpp"
#include "parallel/own_thread.hpp"

namespace gxsort {

// True when the CUDA runtime sees at least one device. Clears the runtime's sticky
// error when it does not, so a later CPU fallback starts clean.
bool cuda_device_usable();
// The devices the CUDA runtime sees (0 without one).
int cuda_device_count();

// The CUDA backend on `device`, its device memory budget given by --device-memory
// (see cuda::device_budget). Throws Error(device) when the device is not usable.
std::unique_ptr<Backend> make_cuda_backend(unsigned device, const SizeOption& device_memory);

// The calling thread's current CUDA device, made current again when the returned guard
// goes (null when the runtime sees no device).
std::shared_ptr<void> cuda_keep_current_device();

// Every visible device with the budget `device_memory` would give it; empty without a GPU.
std::vector<DeviceInfo> cuda_list_devices(const SizeOption& device_memory);

// Starts CUDA (the primary context of device `device` mod the devices visible) on the
// thread of its own it returns, for a command that will use the GPU; the caller joins it
// (before exit; the OwnThread's destructor does). `context`: its timeline.
parallel::OwnThread cuda_start_early(unsigned device, const Context& context);

}  // namespace gxsort
