#include "api/memory_sort.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "api/buffer_spill.hpp"
#include "device/backend_select.hpp"
#include "engine/engine.hpp"
#include "io/file.hpp"

namespace gxsort::api {
namespace {

// The default temp directory of a buffer's spill when neither tmp_dirs nor
// Context::temp_dir names one (a file sort takes its output's; a buffer has none).
constexpr const char* kDefaultSpillDir = "/tmp";

// In memory, as `gxsort sort` sorts a file its plan holds in memory: one sort on the
// backend, in place (the CPU sorts into its scratch and copies back; a GPU copies in
// and out of its memory).
void sort_in_memory(Backend& backend, unsigned char* data, size_t n, const EngineOptions& opt) {
  const uint64_t bytes = uint64_t(n) * opt.format.record_size;
  fit_device_to_sorts(backend, opt.format, n);  // a GPU's arena: this sort's, as sort_file fits it
  HostBuffer scratch = backend.allocate_host(backend.sort_scratch_bytes(opt.format, n));
  throw_if_cancelled(opt.cancel);
  backend.sort_chunk(opt.format, data, n, scratch.data());
  if (opt.progress) opt.progress({"sort", bytes, bytes});
}

// opt.device for a host buffer of `bytes` (host_buffer_device); the caller's current
// CUDA device, kept where the sort may use a GPU.
std::shared_ptr<void> choose_host_device(EngineOptions& opt, uint64_t bytes) {
  opt.device = host_buffer_device(opt.device, bytes, opt.threads);
  return opt.device == Device::cpu ? nullptr : keep_current_device();
}

// Whether a host sort of n records is in memory under any budget, so that it can skip
// prepare()'s probe of the machine (its cgroup and /proc files: tens of microseconds, more
// than a sort of a thousand records): no memory= given, the CPU's, and its need within
// kMinMemory, the least budget a plan takes (a default budget is half the memory limit of
// a running process: more than that).
bool held_under_any_budget(const EngineOptions& opt, size_t n) {
  return !opt.memory.given && opt.device == Device::cpu &&
         uint64_t(n) * cpu_sort_bytes_per_record(opt.format) <= kMinMemory;
}

// The CPU backend of a held_under_any_budget sort.
std::unique_ptr<Backend> small_sort_backend(const EngineOptions& opt) {
  std::unique_ptr<Backend> cpu = make_backend(Device::cpu, resolve_threads(opt.threads), opt.device_memory);
  cpu->set_context(opt.context);
  return cpu;
}

// The plan of a host sort of n records (n >= 2) on opt's device: a held_under_any_budget
// one gets a CPU backend and Plan's default, in memory, without asking the machine; any
// other is prepared as `--ooc merge`, so that past the budget its runs come from memory.
Prepared prepare_host_sort(const EngineOptions& opt, size_t n, uint64_t bytes) {
  Prepared p;
  if (held_under_any_budget(opt, n)) {
    p.backend = small_sort_backend(opt);
    return p;
  }
  EngineOptions merged = opt;
  merged.ooc = OocMethod::merge;
  return prepare(merged, bytes, kDefaultSpillDir);
}

// An in-memory sort from `in` into `out` (the same buffer: in place) on `backend`.
void sort_held(Backend& backend, const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& opt) {
  if (out == in) return sort_in_memory(backend, out, n, opt);
  const uint64_t bytes = uint64_t(n) * opt.format.record_size;
  fit_device_to_sorts(backend, opt.format, n);
  throw_if_cancelled(opt.cancel);
  backend.sort_into(opt.format, in, out, n);
  if (opt.progress) opt.progress({"sort", bytes, bytes});
}

}  // namespace

EngineOptions engine_options(const Format& f, const MemoryOptions& o) {
  EngineOptions opt;
  opt.format = f;
  opt.memory = o.memory;
  opt.threads = o.threads;
  opt.device = o.device;
  opt.device_index = o.device_index;
  opt.device_memory = o.device_memory;
  opt.tmp_dirs = o.tmp_dirs;
  opt.cancel = o.cancel;
  opt.progress = o.progress;
  opt.context = o.context;
  return opt;
}

Device host_buffer_device(Device asked, uint64_t bytes, unsigned threads) {
  if (asked != Device::automatic || bytes > kCpuBytesPerThread * std::max(1u, threads)) return asked;
  return Device::cpu;
}

void sort_host(unsigned char* data, size_t n, const EngineOptions& given) {
  sort_host_copy(data, data, n, given);
}

void sort_host_copy(const unsigned char* in, unsigned char* out, size_t n, const EngineOptions& given) {
  throw_if_cancelled(given.cancel);
  given.format.validate();
  const uint64_t bytes = uint64_t(n) * given.format.record_size;
  if (n < 2) {
    if (out != in) std::memcpy(out, in, bytes);
    return;
  }
  EngineOptions opt = given;
  const std::shared_ptr<void> caller_device = choose_host_device(opt, bytes);
  Prepared p = prepare_host_sort(opt, n, bytes);
  if (p.plan.mode == PlanMode::in_memory) return sort_held(*p.backend, in, out, n, opt);
  if (out != in && merges_once(p.plan)) return sort_through_runs(p, in, out, n, opt);
  if (merges_runs(p.plan)) return sort_through_merged_file(p, in, out, n, opt);
  // Runs kept in memory (the records fit the budget, their sort's scratch does not):
  // sort_file's own way, on a spill file.
  const std::string dir = p.tmp_dirs[0];
  opt.tmp_dirs = p.tmp_dirs;
  p = Prepared();  // its backend (a GPU's arena) goes before the file sort makes its own
  if (out != in) io::parallel_copy(out, in, bytes, opt.threads);
  sort_through_files(out, n, opt, dir);
}

void sort_made_records(size_t n, const EngineOptions& given, const FillRecords& fill, const TakeRecords& take) {
  throw_if_cancelled(given.cancel);
  given.format.validate();
  const size_t bytes = records_bytes(n, given.format);
  EngineOptions opt = given;
  const std::shared_ptr<void> caller_device = choose_host_device(opt, bytes);
  Prepared p = n < 2 ? Prepared() : prepare_host_sort(opt, n, bytes);
  if (p.plan.mode == PlanMode::in_memory) {
    const std::unique_ptr<unsigned char[]> records = host_bytes(bytes);
    fill(records.get(), 0, n);
    if (n >= 2) sort_in_memory(*p.backend, records.get(), n, opt);
    return take(records.get(), 0, n);
  }
  if (merges_runs(p.plan)) return made_records_through_runs(p, n, opt, fill, take);
  const std::string dir = p.tmp_dirs[0];
  opt.tmp_dirs = p.tmp_dirs;
  const size_t piece = spill_piece_records(p.memory, given.format.record_size);
  p = Prepared();  // as sort_host's
  made_records_through_files(n, opt, dir, piece, fill, take);
}

std::unique_ptr<unsigned char[]> host_bytes(size_t bytes) {
  try {
    return std::unique_ptr<unsigned char[]>(new unsigned char[bytes ? bytes : 1]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(bytes);
  }
}

size_t records_bytes(size_t n, const Format& f) {
  if (f.record_size && n > SIZE_MAX / f.record_size)
    fail_usage(std::to_string(n) + " records of " + std::to_string(f.record_size) + " bytes do not fit in memory");
  return n * f.record_size;
}

}  // namespace gxsort::api
