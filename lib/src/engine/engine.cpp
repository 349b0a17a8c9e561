#include "engine/engine.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "device/backend_select.hpp"
#include "format/npy.hpp"
#include "format/sniff.hpp"
#include "gxsort/timeline.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "kernels/radix_sort.hpp"
#include "platform/sizes.hpp"

namespace gxsort {

uint64_t checked_record_count(const std::string& path, uint64_t bytes, const Format& f) {
  if (bytes % f.record_size != 0)
    fail_usage(path + ": size " + std::to_string(bytes) + " bytes is not a multiple of the " +
               std::to_string(f.record_size) + "-byte record size (" + f.describe() + ")");
  return bytes / f.record_size;
}

void sort_mapped_input(Backend& backend, const Format& f, const io::File& in, const unsigned char* src,
                       unsigned char* dst, size_t n, const Backend::SortedRecords& sorted) {
  try {
    backend.sort_into(f, src, dst, n, sorted);
  } catch (const SourceChanged&) {
    fail_input_changed(in.path());
  }
}

void fail_input_changed(const std::string& path) {
  throw Error(ExitCode::io, path + ": input changed while it was read (another process wrote it during the sort); "
                                   "nothing was written, run it again on a stable file");
}

namespace {

// Reads the .npy header at the start of `in` (a stream: consumed, not a byte more; a
// regular file: read ahead); the data then starts after it (File::set_base).
npy::Header read_npy_header(io::File& in) {
  npy::Header h;
  std::string bytes;
  uint64_t need = in.is_stream() ? 10 : 64;  // a stream: the fixed part, then what it says
  while (true) {
    const size_t have = bytes.size();
    bytes.resize(size_t(need));
    const size_t got = in.is_stream() ? in.read_stream(&bytes[have], size_t(need - have))
                                      : size_t(std::min<uint64_t>(need, in.raw_size()) - std::min<uint64_t>(have, in.raw_size()));
    if (!in.is_stream() && got) in.read_at(&bytes[have], got, have);
    bytes.resize(have + got);
    if (npy::parse_header(in.path(), bytes, h, &need)) break;
    if (got == 0) fail_usage(in.path() + ": not a .npy file this gxsort reads: the file ends inside its header");
  }
  in.set_base(h.data_offset);
  return h;
}

// A .npy file under another name (`cat a.npy | gxsort sort -`) would have its header
// sorted in with the data: refused. So is, when no format was given (f.sniff_inputs),
// an input that looks like another kind of file (format/sniff.hpp).
void refuse_head(const std::string& path, bool is_stdin, const unsigned char* head, size_t n, bool sniff) {
  const FileKind kind = what_file_looks_like(head, n);
  if (kind == FileKind::npy)
    fail_usage(path + ": starts with a .npy header, but its name does not end in .npy: gxsort reads the header of "
               "a .npy input only by that name (save it as a file, or a FIFO, named *.npy); as raw records the header "
               "would be sorted in with the data");
  if (sniff && kind != FileKind::records)
    fail_usage(path + ": looks like " + file_kind_name(kind) + ", not u64 records (the format when none is given): " +
               file_kind_advice(kind, is_stdin ? "" : path) + ", or give a format option (" + option_ref("type") + ", " + option_ref("record-size") + ") to " +
               "sort its bytes as records");
}

void refuse_other_files(io::File& in, bool is_stdin, const Format& f) {
  const std::string path = in.path();
  if (in.is_stream()) {
    // On its first bytes, when the command reads them (after it checked its outputs).
    const bool sniff = f.sniff_inputs;
    in.check_first_bytes([path, is_stdin, sniff](const unsigned char* data, size_t n) {
      refuse_head(path, is_stdin, data, n, sniff);
    });
  } else {
    std::string head(size_t(std::min<uint64_t>(in.raw_size(), f.sniff_inputs ? kSniffBytes : 8)), '\0');
    if (!head.empty()) in.read_at(&head[0], head.size(), 0);
    refuse_head(path, is_stdin, reinterpret_cast<const unsigned char*>(head.data()), head.size(), f.sniff_inputs);
  }
}

}  // namespace

// A .npy stream npy_input opened, its header read, until the command's open_input of
// its path takes `file` (NpyInput::stream, EngineOptions::npy_streams).
struct NpyStream {
  std::string path;
  io::File file;
  npy::Header header;
};

namespace {

// The stream of `streams` opened for `path` that no open took yet (its file still
// there), or null.
NpyStream* untaken_npy_stream(const NpyStreams& streams, const std::string& path) {
  for (const std::shared_ptr<NpyStream>& s : streams)
    if (s && s->path == path && s->file.is_open()) return s.get();
  return nullptr;
}

}  // namespace

io::File open_input(const std::string& path, const Format& f, const NpyStreams& npy_streams) {
  f.validate();
  NpyStream* stream = untaken_npy_stream(npy_streams, path);
  io::File in = stream ? std::move(stream->file) : io::File::open_input(path);
  if (!npy::has_npy_name(path)) refuse_other_files(in, path == "-", f);
  if (npy::has_npy_name(path)) {
    const npy::Header h = stream ? stream->header : read_npy_header(in);
    if (h.itemsize != f.record_size)
      fail_usage(in.path() + ": its dtype holds " + std::to_string(h.itemsize) + "-byte records, the format " +
                 std::to_string(f.record_size));
    if (!in.is_stream() && (h.count > in.size() / h.itemsize || in.size() != h.count * h.itemsize))
      fail_usage(in.path() + ": the header says " + std::to_string(h.count) + " records of " + std::to_string(h.itemsize) +
                 " bytes, the file holds " + std::to_string(in.size()) + " bytes of data");
  }
  if (!in.is_stream()) checked_record_count(in.path(), in.size(), f);
  return in;
}

bool has_npy_name(const std::string& path) { return npy::has_npy_name(path); }

NpyInput npy_input(const std::string& path, const Format* given, const std::vector<std::string>& keys) {
  io::File in = io::File::open_input(path);
  const npy::Header h = read_npy_header(in);
  NpyInput r{npy::format_of(in.path(), h, given, keys), h.descr, nullptr};
  if (in.is_stream()) r.stream = std::make_shared<NpyStream>(NpyStream{path, std::move(in), h});
  return r;
}

std::string npy_descr_for(const Format& format) { return npy::descr_for(format); }

io::OutputHeader output_header(const EngineOptions& opt, size_t record_size) {
  if (opt.npy_descr.empty()) return {};
  // A record with its group's count appended (dedupe --count): the fields and 'count'.
  const std::string descr = record_size == opt.format.record_size ? opt.npy_descr
                            : record_size == opt.format.record_size + 8 ? npy::with_count_field(opt.npy_descr)
                                                                        : "'|V" + std::to_string(record_size) + "'";
  const uint64_t bytes = npy::header_bytes(descr);
  return {bytes, [descr, bytes, record_size](uint64_t data) { return npy::header(descr, data / record_size, bytes); }};
}

std::string default_temp_dir(const std::string& output) {
  if (output == "-") return "/tmp";
  int own_fd = -1;
  const std::string target = io::resolve_symlinks(output, &own_fd);
  if (own_fd >= 0) return "/tmp";  // /dev/stdout and the like
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return "/tmp";
  return io::directory_of(target);
}

void commit_outputs(const std::vector<io::Output*>& outputs, RunStats& st, Clock::time_point t_start,
                    const EngineOptions& opt) {
  const auto t_commit = Clock::now();
  io::commit_all(outputs, opt.fsync, [&] {
    st.phases.push_back({"sync and rename", since(t_commit), 0, 0});
    st.seconds = since(t_start);
    if (opt.before_commit) opt.before_commit(st);
  });
  timeline(opt.context, "outputs committed");
}

uint64_t host_budget(const EngineOptions& opt, unsigned sharing) {
  return resolve_memory(opt.memory, memory_limit(opt.context).bytes, sharing);  // RAM, or the cgroup's limit when lower
}

std::vector<std::string> temp_dirs(const EngineOptions& opt, const std::string& default_tmp_dir) {
  if (!opt.tmp_dirs.empty()) return opt.tmp_dirs;
  return {opt.context.temp_dir.empty() ? default_tmp_dir : opt.context.temp_dir};
}

PlanRequest plan_request(CommandKind kind, const EngineOptions& opt, uint64_t input_bytes, bool stream, const std::string& input_label) {
  PlanRequest j;
  j.command = kind;
  j.format = opt.format;
  j.threads = opt.threads;
  j.stream = stream;
  j.dedupe = opt.dedupe;
  j.device = opt.device;
  PlanInput& in = j.sort;
  in.input_bytes = input_bytes;
  in.input_label = input_label;
  in.record_size = opt.format.record_size;
  // Every command's budget, bfs's too: --memory, by default half of the memory limit
  // (the cgroup's, where lower than RAM), so that a batch job's graph too large for it
  // fails in read_csr with one line, not by the OOM killer.
  in.memory = host_budget(opt);
  in.fan_in = opt.fan_in;
  in.merge_threads = resolve_threads(opt.threads);
  in.direct_io = opt.direct_io;
  in.page_cache_bytes = available_memory_bytes();
  // A cgroup's writeback has thresholds of its own, of the memory it may have.
  in.dirty_background_bytes = dirty_background_bytes(std::min(in.page_cache_bytes, memory_limit(opt.context).bytes));
  in.ooc = opt.ooc;
  j.held_runs = opt.context.tuning.sort_held_runs;
  j.unique = opt.unique;
  j.fsync = opt.fsync;
  j.run_files = opt.context.tuning.sort_run_files;
  return j;
}

void add_backend_limits(PlanRequest& j, const Backend& backend) {
  const Format& f = j.format;
  j.sort.sort_bytes_per_record = sort_bytes_per_record(backend, f);
  j.sort.max_chunk_records = backend.max_chunk_records(f);
  j.window_records = backend.max_window_records(f);
  // A backend without a device merge merges on the CPU's loser tree, which costs more
  // than partition's one scatter pass.
  j.sort.partition_preferred = j.window_records == 0;
  j.device_budget = backend.device_budget();
  j.max_device_vertices = backend.max_bfs_vertices();
}

MachineFacts machine_facts(const PlanRequest& job) {
  MachineFacts m;
  m.gpu = GXSORT_HAVE_CUDA != 0;  // whether one is usable is known as the backend starts
  m.threads = resolve_threads(job.threads);
  m.cpu_sort_bytes_per_record = cpu_sort_bytes_per_record(job.format);
  return m;
}

Prepared prepare(const EngineOptions& opt, PlanRequest job, const std::string& default_tmp_dir) {
  opt.format.validate();
  Prepared p;
  p.tmp_dirs = temp_dirs(opt, default_tmp_dir);
  job.threads = resolve_threads(job.threads);
  p.device = choose_backend(job, machine_facts(job));
  p.backend = make_backend(p.device.device, job.threads, opt.device_memory, opt.device_index);
  p.backend->set_context(opt.context);
  p.context = opt.context;
  add_backend_limits(job, *p.backend);
  p.plan = make_plan(job);
  p.threads = p.plan.threads;
  p.memory = job.sort.memory;
  p.plan_input = job.sort;
  p.job = std::move(job);
  p.cancel = opt.cancel;
  return p;
}

Prepared prepare(const EngineOptions& opt, uint64_t input_bytes, const std::string& default_tmp_dir,
                 const std::string& input_label) {
  return prepare(opt, plan_request(CommandKind::sort, opt, input_bytes, false, input_label), default_tmp_dir);
}

Prepared prepare_rank(const EngineOptions& opt, uint64_t input_bytes, const std::string& default_tmp_dir) {
  PlanRequest job = plan_request(CommandKind::sort, opt, input_bytes, false);
  job.distributed = true;
  return prepare(opt, std::move(job), default_tmp_dir);
}

}  // namespace gxsort
