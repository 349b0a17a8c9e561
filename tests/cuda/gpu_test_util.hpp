// Shared helpers for the GPU tests. Every GPU test case begins with
// GPU_TEST_REQUIRE_DEVICE(): without a usable GPU it prints a visible SKIPPED line
// and returns, so the suite still runs (and says what it skipped) on CPU machines.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <doctest/doctest.h>

namespace gxsort::test {
inline bool gpu_available() {
  static int state = -1;
  if (state < 0) {
    int n = 0;
    state = (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) ? 1 : 0;
    if (!state) cudaGetLastError();  // clear the sticky "no device" error
  }
  return state == 1;
}
}  // namespace gxsort::test

#define GPU_TEST_REQUIRE_DEVICE()                                                        \
  do {                                                                                   \
    if (!::gxsort::test::gpu_available()) {                                              \
      std::printf("SKIPPED (no usable GPU): %s\n", doctest::getContextOptions()->currentTest \
                                                        ? doctest::getContextOptions()->currentTest->m_name : "?"); \
      MESSAGE("SKIPPED: no usable GPU");                                                 \
      return;                                                                            \
    }                                                                                    \
  } while (0)
