// What every engine command prepares before any I/O: the backend, the budgets, the
// input's record count and the plan, with all user errors reported up front.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "io/file.hpp"
#include "io/output.hpp"
#include "gxsort/gxsort.hpp"
#include "plan/device_choice.hpp"
#include "plan/plan_request.hpp"
#include "plan/plan.hpp"

namespace gxsort {

// A command ready to run: its backend and temp directories, its PlanRequest and the Plan that
// sizes everything it does (memory and threads are the plan's, copied for brevity).
struct Prepared {
  DeviceChoice device;  // the backend's choice (choose_backend), and why
  std::unique_ptr<Backend> backend;
  uint64_t memory = 0;
  unsigned threads = 1;
  std::vector<std::string> tmp_dirs;
  PlanRequest job;
  PlanInput plan_input;  // job.sort: what a later plan of part of the work starts from
  Plan plan;
  const CancelToken* cancel = nullptr;  // EngineOptions::cancel: polled at chunk and run boundaries
  Context context;       // the command's (EngineOptions::context): test hooks, tuning, trace
};

// Per-phase stats: seconds since t0.
using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Input size must be a whole number of records; names the file otherwise.
uint64_t checked_record_count(const std::string& path, uint64_t bytes, const Format& f);

// backend.sort_into of n records of `in` mapped at src (io::MappedFile) into dst: a
// mapping another process can write while it is sorted, so the sort may find it changed
// (kernels/radix_sort.hpp: SourceChanged); that becomes in's error line, exit 3.
void sort_mapped_input(Backend& backend, const Format& f, const io::File& in, const unsigned char* src,
                       unsigned char* dst, size_t n, const Backend::SortedRecords& sorted = {});
// Throws that error line: `path` changed while a sort read it twice.
[[noreturn]] void fail_input_changed(const std::string& path);

// Opens an input of a command (io::File::open_input: "-" and streams too) after checking
// the format; a regular file must hold a whole number of records (a stream is checked
// when it ends). A .npy stream npy_input opened (in `npy_streams`: the command's
// EngineOptions::npy_streams) is taken from there, its header read, not opened again.
io::File open_input(const std::string& path, const Format& f, const NpyStreams& npy_streams);

// The header an output gets: a .npy header when opt.npy_descr is set (for records of
// record_size bytes), else none.
io::OutputHeader output_header(const EngineOptions& opt, size_t record_size);

// The directory temp files go to by default when no --tmp-dir and no $TMPDIR is given:
// the output's (symlinks followed), or /tmp for an output that is not a regular file
// ("-", a device, a FIFO).
std::string default_temp_dir(const std::string& output);

// The last step of a command that writes outputs: readies them (io::commit_all: all
// that can fail), adds the "sync and rename" phase and the total time to `st`, hands
// `st` to opt.before_commit (--stats-json), then makes the outputs real. Nothing that
// can fail comes after an output replaced a user's file.
void commit_outputs(const std::vector<io::Output*>& outputs, RunStats& st, Clock::time_point t_start,
                    const EngineOptions& opt);

// --memory in bytes (resolve_memory under this process's memory limit): a percent of it
// resolved; not given, half of it shared by `sharing` processes (a distributed job's
// ranks on one host).
uint64_t host_budget(const EngineOptions& opt, unsigned sharing = 1);

// The PlanRequest of a command from its options, before the backend is known: the format, the
// budget in bytes (host_budget; bfs: all of RAM when --memory is not given), --threads,
// and the sort options (--fan-in, --direct-io, --ooc) with the page cache's size.
PlanRequest plan_request(CommandKind kind, const EngineOptions& opt, uint64_t input_bytes, bool stream, const std::string& input_label = "");
// The backend's limits added to a job: the sort's scratch, the device's chunk, window
// and BFS limits and its memory budget.
void add_backend_limits(PlanRequest& job, const Backend& backend);

// The machine's facts choose_backend weighs for `job` (its threads resolved): none that
// starts a device.
MachineFacts machine_facts(const PlanRequest& job);

// --tmp-dir, else $TMPDIR (Context::temp_dir), else `default_tmp_dir`.
std::vector<std::string> temp_dirs(const EngineOptions& opt, const std::string& default_tmp_dir);

// Resolves --memory, --threads, --tmp-dir (default $TMPDIR, else `default_tmp_dir`,
// normally default_temp_dir(output)) and the backend (choose_backend); plans the sort of
// `input_bytes`.
// `input_label` names the input in the plan's messages.
Prepared prepare(const EngineOptions& opt, uint64_t input_bytes, const std::string& default_tmp_dir,
                 const std::string& input_label = "");
// The same for a rank of --distributed: the sort of its part, --device as given (its
// exchange may go through the GPU; choose_backend).
Prepared prepare_rank(const EngineOptions& opt, uint64_t input_bytes, const std::string& default_tmp_dir);
// The same for any command's job (job_of): the backend chosen (choose_backend) and made,
// its limits added, planned.
Prepared prepare(const EngineOptions& opt, PlanRequest job, const std::string& default_tmp_dir);

}  // namespace gxsort
