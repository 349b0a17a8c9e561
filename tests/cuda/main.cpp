// The GPU test runner. Without a usable GPU every GPU test case prints a SKIPPED line
// and returns; the runner then exits 77, which ctest reports as "Skipped", so a CPU-only
// run says plainly that the GPU tests did not run (the host-only cases still ran).
//
// Long cases (the full sweeps, in the test suite "long": doctest::test_suite("long")) do
// not run by default, so that the default suite fits one run on the GPU machine: doctest's
// summary counts them as skipped and a line says how many and how to run them.
//   gxsort_cuda_tests --long            every case, the long ones too
//   gxsort_cuda_tests --long -ts=long   the long ones only
// Listings (--list-test-cases, --list-test-suites, --count) show the long cases too.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu_test_util.hpp"

namespace {

constexpr const char* kLongSuite = "long";

// Counts the cases of the long suite that this run skipped (doctest's own summary gives
// only the total of skipped cases).
struct LongSkips : doctest::IReporter {
  static inline int count = 0;
  explicit LongSkips(const doctest::ContextOptions&) {}
  void test_case_skipped(const doctest::TestCaseData& tc) override {
    if (std::strcmp(tc.m_test_suite, kLongSuite) == 0) ++count;
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
};
REGISTER_LISTENER("long_skips", 1, LongSkips);

// doctest's listing options, with or without their "dt-" prefix: a listing names every case.
bool is_query(const char* arg) {
  while (*arg == '-') ++arg;
  if (std::strncmp(arg, "dt-", 3) == 0) arg += 3;
  for (const char* q : {"ltc", "list-test-cases", "lts", "list-test-suites", "c", "count"})
    if (std::strcmp(arg, q) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  bool run_long = false, query = false;
  std::vector<char*> args;  // argv without --long, which doctest does not know
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--long") == 0) run_long = true;
    else args.push_back(argv[i]);
    query = query || is_query(argv[i]);
  }
  doctest::Context context(int(args.size()), args.data());
  if (!run_long && !query) context.addFilter("test-suite-exclude", kLongSuite);
  const int rc = context.run();
  if (LongSkips::count > 0)
    std::printf("%d long cases (test suite \"long\") did not run: gxsort_cuda_tests --long runs them too "
                "(tools/gpu-check.sh: LONG=1)\n", LongSkips::count);
  if (context.shouldExit() || rc != 0) return rc;
  if (!gxsort::test::gpu_available()) {
    std::printf("GPU tests SKIPPED: no usable CUDA device (run tools/gpu-check.sh on the GPU machine)\n");
    return 77;
  }
  return 0;
}
