// The GPU test runner. Without a usable GPU every GPU test case prints a SKIPPED line
// and returns; the runner then exits 77, which ctest reports as "Skipped", so a CPU-only
// run says plainly that the GPU tests did not run (the host-only cases still ran).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "gpu_test_util.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit() || rc != 0) return rc;
  if (!gxsort::test::gpu_available()) {
    std::printf("GPU tests SKIPPED: no usable CUDA device (run tools/gpu-check.sh on the GPU machine)\n");
    return 77;
  }
  return 0;
}
