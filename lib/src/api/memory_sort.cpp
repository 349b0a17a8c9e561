#include "api/memory_sort.hpp"

#include <new>

#include "engine/engine.hpp"
#include "io/temp_files.hpp"

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

// Out of core: the records go to a private temp file, sort_file sorts it into a second
// one with the budget (its runs in the same directories), and the result is read back.
// Both files are this process's temp files: removed on every path, signals included,
// and never a resumable job (engine/job.cpp). `data` is written only by the read-back,
// after the sort succeeded: a cancelled or failed sort leaves it untouched.
void sort_through_files(unsigned char* data, size_t n, const EngineOptions& opt, const std::string& dir) {
  const size_t bytes = n * opt.format.record_size;
  io::TempFile in = io::TempFile::create(opt.context, dir, "spill");
  in.file().write_at_parallel(data, bytes, 0, opt.threads);
  io::TempFile out = io::TempFile::create(opt.context, dir, "spill");  // the sorted output is renamed over it
  EngineOptions file_opt = opt;
  file_opt.fsync = false;  // read back at once, then removed
  sort_file(in.path(), out.path(), file_opt);
  const io::File sorted = io::File::open_read(out.path());
  if (sorted.size() != bytes) fail_io(out.path() + ": the sorted spill file has the wrong size");
  sorted.read_at_parallel(data, bytes, 0, opt.threads);
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

void sort_host(unsigned char* data, size_t n, const EngineOptions& given) {
  throw_if_cancelled(given.cancel);
  given.format.validate();
  if (n < 2) return;
  const uint64_t bytes = uint64_t(n) * given.format.record_size;
  EngineOptions opt = given;
  Prepared p = prepare(opt, bytes, kDefaultSpillDir);
  if (p.plan.mode == PlanMode::in_memory) return sort_in_memory(*p.backend, data, n, opt);
  const std::string dir = p.tmp_dirs[0];
  opt.tmp_dirs = p.tmp_dirs;
  p = Prepared();  // its backend (a GPU's arena) goes before the file sort makes its own
  sort_through_files(data, n, opt, dir);
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
