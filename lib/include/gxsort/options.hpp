// Typed option values: the command line is parsed once, into these, in the app; the
// library and the Backend take them as they are and never parse text again.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "gxsort/error.hpp"
#include "gxsort/format.hpp"

namespace gxsort {

// A size as users write it: bytes (K/M/G/T suffixes, powers of 1024) or a percent of a
// base known only later (RAM for --memory, free device memory for --device-memory).
struct SizeOption {
  uint64_t bytes = 0;
  double percent = 0;  // (0, 100]; 0: a byte count
  bool given = false;  // false: the option's default applies
  uint64_t of(uint64_t base) const { return percent > 0 ? uint64_t(double(base) * percent / 100.0) : bytes; }
};
// "123", "64K", "1.5G", "2TiB", "25%". Throws Error(usage) naming `option` on bad text.
SizeOption parse_size_option(const std::string& text, const std::string& option);
std::string format_bytes(uint64_t bytes);  // "1.5 GiB"

enum class Device { automatic, cpu, cuda };                       // --device
enum class MergeKernel { automatic, basic, tiled, circular, thrust };  // --merge-kernel (GPU)
enum class DirectIo { automatic, on, off };                       // --direct-io
enum class OocMethod { automatic, merge, partition };             // --ooc
enum class Exchange { automatic, mpi };                           // --exchange (--distributed)
enum class DedupeStrategy { automatic, sort, bitmap };            // dedupe --strategy
enum class ReduceOp { sum, min, max, count, mean, minmax };       // reduce --op
enum class ReduceAlgo { flat, nested, cub };                      // reduce --algo (GPU kernels)
enum class EdgeFormat { automatic, snap, mtx, bin32, bin64 };     // graph build --input-format
enum class Renumber { none, first_seen, sorted };                 // graph build --renumber
enum class GenDist { uniform, sorted, reverse, few_unique, zipf, all_equal, bits };  // gen --dist
enum class GraphKind { none, rmat, uniform };                     // gen --graph
enum class PlanFormat { text, json, dot };                        // plan --json | --dot

// Each option's names, in the order the help lists them; "auto" is `automatic`.
template <class E>
struct Choice {
  const char* name;
  E value;
};
inline constexpr Choice<Device> kDevices[] = {{"cpu", Device::cpu}, {"cuda", Device::cuda}, {"auto", Device::automatic}};
inline constexpr Choice<MergeKernel> kMergeKernels[] = {{"auto", MergeKernel::automatic},
                                                        {"basic", MergeKernel::basic},
                                                        {"tiled", MergeKernel::tiled},
                                                        {"circular", MergeKernel::circular},
                                                        {"thrust", MergeKernel::thrust}};
inline constexpr Choice<DirectIo> kDirectIos[] = {{"auto", DirectIo::automatic}, {"on", DirectIo::on}, {"off", DirectIo::off}};
inline constexpr Choice<OocMethod> kOocMethods[] = {
    {"auto", OocMethod::automatic}, {"merge", OocMethod::merge}, {"partition", OocMethod::partition}};
inline constexpr Choice<Exchange> kExchanges[] = {{"auto", Exchange::automatic}, {"mpi", Exchange::mpi}};
inline constexpr Choice<DedupeStrategy> kDedupeStrategies[] = {
    {"sort", DedupeStrategy::sort}, {"bitmap", DedupeStrategy::bitmap}, {"auto", DedupeStrategy::automatic}};
inline constexpr Choice<ReduceOp> kReduceOps[] = {{"sum", ReduceOp::sum},     {"min", ReduceOp::min},
                                                  {"max", ReduceOp::max},     {"count", ReduceOp::count},
                                                  {"mean", ReduceOp::mean},   {"minmax", ReduceOp::minmax}};
inline constexpr Choice<ReduceAlgo> kReduceAlgos[] = {
    {"flat", ReduceAlgo::flat}, {"nested", ReduceAlgo::nested}, {"cub", ReduceAlgo::cub}};
inline constexpr Choice<EdgeFormat> kEdgeFormats[] = {{"auto", EdgeFormat::automatic}, {"snap", EdgeFormat::snap},
                                                      {"mtx", EdgeFormat::mtx},        {"bin32", EdgeFormat::bin32},
                                                      {"bin64", EdgeFormat::bin64}};
inline constexpr Choice<Renumber> kRenumbers[] = {{"first-seen", Renumber::first_seen}, {"sorted", Renumber::sorted}};
inline constexpr Choice<GenDist> kGenDists[] = {
    {"uniform", GenDist::uniform},  {"sorted", GenDist::sorted}, {"reverse", GenDist::reverse},
    {"few-unique", GenDist::few_unique}, {"zipf", GenDist::zipf}, {"all-equal", GenDist::all_equal},
    {"bits", GenDist::bits}};
// --float-order
inline constexpr Choice<FloatOrder> kFloatOrders[] = {{"total", FloatOrder::total}, {"numpy", FloatOrder::numpy}};
inline constexpr Choice<GraphKind> kGraphKinds[] = {{"rmat", GraphKind::rmat}, {"uniform", GraphKind::uniform}};

// "a, b or c": the names of a choice list, for help and messages.
template <class E, size_t N>
std::string choice_names(const Choice<E> (&choices)[N], const char* last_sep = " or ") {
  std::string s;
  for (size_t i = 0; i < N; ++i) s += std::string(i == 0 ? "" : i + 1 == N ? last_sep : ", ") + choices[i].name;
  return s;
}
// The value named `text`; throws Error(usage) "OPTION: expected a, b or c, got 'x'".
template <class E, size_t N>
E parse_choice(const std::string& text, const std::string& option, const Choice<E> (&choices)[N]) {
  for (const auto& c : choices)
    if (text == c.name) return c.value;
  fail_usage(option + ": expected " + choice_names(choices) + ", got '" + text + "'");
}
template <class E, size_t N>
const char* choice_name(E value, const Choice<E> (&choices)[N]) {
  for (const auto& c : choices)
    if (c.value == value) return c.name;
  return "?";
}

// The CPUs this process may run on (sched_getaffinity: taskset, cgroup cpusets), at least 1.
unsigned default_threads();

}  // namespace gxsort
