// The backend factory: the Backend for --device cpu|cuda|auto, and the devices there are.
// Above the Backend (backend/) and the CUDA backend (cuda/, linked only here).
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "gxsort/options.hpp"

namespace gxsort {

// --device: automatic takes CUDA when a device is usable, else the CPU. `device_memory`
// is the device budget (not given: 80% of free device memory). The GPU is device
// `device_index` mod the number visible (0 unless a distributed sort gives each rank its own).
std::unique_ptr<Backend> make_backend(Device device, unsigned threads, const SizeOption& device_memory,
                                      unsigned device_index = 0);

// The calling thread's current CUDA device, made current again when the returned guard
// goes: a call that runs on its caller's thread (the in-memory API's) leaves the caller's
// CUDA state (CuPy's and torch's current device) as it found it. Null without CUDA.
std::shared_ptr<void> keep_current_device();

// Devices visible to the CUDA backend (empty without CUDA or without a GPU).
std::vector<DeviceInfo> list_devices(const SizeOption& device_memory);
// How many there are, without starting any (0 without CUDA or without a GPU).
unsigned visible_gpus();

}  // namespace gxsort
