// sort, plan, runs and merge: the engine commands, each executing a Plan.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "io/mapped_file.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "plan/sizes.hpp"
#include "sort/engine.hpp"
#include "sort/merge.hpp"
#include "sort/partition_sort.hpp"
#include "sort/unique.hpp"

namespace gxsort {
namespace {

std::string output_dir_checked(const std::string& output) {
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  std::string dir = io::directory_of(output);
  io::require_writable_dir(dir, "output");
  return dir;
}

void check_tmp_dirs(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) io::require_writable_dir(d, "temporary");
}

// Space preflight: the output (a full copy beside the target until the rename) and
// the temp runs, spread evenly over the temp directories.
void preflight(const Prepared& p, const std::string& out_dir, uint64_t output_bytes) {
  std::vector<io::SpaceNeed> needs{{out_dir, output_bytes, "the output"}};
  if (p.plan.mode == PlanMode::external)
    for (const auto& d : p.tmp_dirs)
      needs.push_back({d, (p.plan.temp_bytes + p.tmp_dirs.size() - 1) / p.tmp_dirs.size(), "temporary runs"});
  if (p.plan.mode == PlanMode::partition)  // bucket b goes to directory b % dirs
    for (size_t i = 0; i < p.tmp_dirs.size(); ++i) {
      const uint64_t share = (p.plan.buckets - i + p.tmp_dirs.size() - 1) / p.tmp_dirs.size();
      needs.push_back({p.tmp_dirs[i], p.plan.temp_bytes / p.plan.buckets * share, "temporary buckets"});
    }
  io::check_space(needs);
}

struct RunFormation {
  std::vector<TreeInput> runs;
  double seconds = 0;
};

// Reads the input in chunks of the plan's run size, sorts each chunk on the backend
// and writes it to its own temp file: read, sort and write overlap in the scheduler.
RunFormation form_run_files(Prepared& p, const Plan& plan, const io::File& in, const Format& f,
                            const ProgressFn& progress, const std::string& run_dir, bool keep, bool unique) {
  RunFormation rf;
  auto t0 = Clock::now();
  const size_t rs = f.record_size;
  const size_t chunk_bytes = plan.run_records * rs;
  const size_t slots = std::min<size_t>(3, std::max<size_t>(1, plan.runs));
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slot_ptrs;
  for (size_t s = 0; s < slots; ++s) {
    buffers.push_back(p.backend->allocate_host(chunk_bytes));
    slot_ptrs.push_back(buffers.back().data());
  }
  HostBuffer scratch = p.backend->allocate_host(p.backend->sort_scratch_bytes(f, plan.run_records));
  const size_t chunks = size_t((plan.input_bytes + chunk_bytes - 1) / chunk_bytes);
  rf.runs.resize(chunks);
  pipeline::Stages st;
  st.read = [&](pipeline::Chunk& c) { in.read_at_parallel(c.data, c.bytes, c.offset, p.threads); };
  st.compute = [&](pipeline::Chunk& c) {
    p.backend->sort_chunk(f, c.data, c.bytes / rs, scratch.data());
    if (unique) c.bytes = unique_in_place(f, c.data, c.bytes / rs) * rs;  // runs shrink early
  };
  st.write = [&](pipeline::Chunk& c) {
    TreeInput run;
    if (keep) {
      char name[64];
      std::snprintf(name, sizeof name, "run-%06zu", c.index);
      run.temp = std::make_shared<io::TempFile>(io::TempFile::create(run_dir, name));
    } else {
      run.temp = std::make_shared<io::TempFile>(io::TempFile::create(p.tmp_dirs[c.index % p.tmp_dirs.size()], "gxsort-run"));
    }
    if (plan.direct_io) run.direct = run.temp->file().write_direct_at(c.data, c.bytes, 0, p.threads);
    else run.temp->file().write_at_parallel(c.data, c.bytes, 0, p.threads);
    run.records = c.bytes / rs;
    rf.runs[c.index] = std::move(run);  // run order is input order: ties keep it
  };
  pipeline::Config cfg;
  cfg.total_bytes = plan.input_bytes;
  cfg.chunk_bytes = chunk_bytes;
  cfg.phase = "sort runs";
  // Two runs are written at once, to two files: one writer is the bottleneck (the
  // reads use every core and the sort is on the device or overlapped).
  cfg.write_threads = slots >= 3 ? 2 : 1;
  pipeline::run_chunks(cfg, slot_ptrs, st, progress);
  rf.seconds = since(t0);
  return rf;
}

// Opens the input of a command after checking the format, and checks that it holds a
// whole number of records.
io::File open_input(const std::string& path, const Format& f) {
  f.validate();
  io::File in = io::File::open_read(path);
  checked_record_count(path, in.size(), f);
  return in;
}

MergeJob make_merge_job(const Prepared& p, const Format& f, const EngineOptions& opt, size_t buffer_bytes) {
  MergeJob job;
  job.format = &f;
  job.buffer_bytes = std::max<size_t>(buffer_bytes, f.record_size);
  job.threads = p.threads;
  job.progress = opt.progress;
  job.backend = p.backend.get();
  job.merge_kernel = opt.merge_kernel;
  job.window_memory = p.memory;
  job.unique = opt.unique;
  return job;
}

// Sorts all of `in` through sorted runs, as `plan` (runs-in-memory or external) says,
// into `out` from byte out_offset; returns the records written. With `st`, the phases
// and merge levels are recorded there (out_offset is then 0: the whole output).
uint64_t sort_through_runs(Prepared& p, const Plan& plan, const io::File& in, const EngineOptions& opt,
                           const io::File& out, uint64_t out_offset, RunStats* st) {
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  const uint64_t bytes = plan.input_bytes;
  auto phase = [&](const std::string& name, double secs, uint64_t r, uint64_t w) {
    if (st) st->phases.push_back({name, secs, r, w});
  };
  uint64_t kept = 0;
  if (plan.mode == PlanMode::runs_in_memory) {
    // Chunks sorted in place inside one buffer; the next chunk is read while one sorts.
    auto t0 = Clock::now();
    HostBuffer data = p.backend->allocate_host(size_t(bytes));
    HostBuffer scratch = p.backend->allocate_host(p.backend->sort_scratch_bytes(f, plan.run_records));
    std::vector<RunRef> runs;
    uint64_t first = 0;
    for (uint64_t cnt : plan.run_sizes) {
      RunRef r;
      r.mem = data.data() + first * rs;
      r.records = cnt;
      r.name = in.path();
      runs.push_back(r);
      first += cnt;
    }
    auto read_run = [&](size_t i) {
      in.read_at_parallel(const_cast<unsigned char*>(runs[i].mem), runs[i].records * rs, uint64_t(runs[i].mem - data.data()), p.threads);
    };
    read_run(0);
    for (size_t i = 0; i < runs.size(); ++i) {
      std::future<void> next;
      if (i + 1 < runs.size()) next = std::async(std::launch::async, read_run, i + 1);
      auto* run = const_cast<unsigned char*>(runs[i].mem);
      p.backend->sort_chunk(f, run, runs[i].records, scratch.data());
      const uint64_t end = uint64_t(run - data.data()) + runs[i].records * rs;
      if (opt.unique) runs[i].records = unique_in_place(f, run, runs[i].records);
      if (next.valid()) next.get();
      if (opt.progress) opt.progress("sort runs", end, bytes);
    }
    phase("sort runs", since(t0), bytes, 0);
    auto t1 = Clock::now();
    std::atomic<uint64_t> done{0};
    MergeJob job = make_merge_job(p, f, opt, 4 << 20);
    job.window_memory = std::max<uint64_t>(p.memory - std::min(p.memory, bytes), uint64_t(16) << 20);
    job.done_bytes = &done;
    job.total_bytes = bytes;
    kept = merge_runs(job, runs, out, out_offset);
    if (st) st->merge_levels = 1;
    phase("merge", since(t1), 0, bytes);
    return kept;
  }
  RunFormation rf = form_run_files(p, plan, in, f, opt.progress, "", false, opt.unique);
  phase("sort runs", rf.seconds, bytes, bytes);
  std::atomic<uint64_t> done{0};
  MergeJob job = make_merge_job(p, f, opt, plan.merge_buffer_bytes);
  job.threads = plan.merge_threads;
  // Runs too large for the page cache: the levels go around it, and so does the
  // output when it is synced anyway (the whole output only: O_DIRECT needs aligned
  // offsets).
  job.direct_temp = plan.direct_io;
  job.direct_output = plan.direct_io && opt.fsync && out_offset == 0 && st;
  job.done_bytes = &done;
  job.total_bytes = bytes;
  const size_t levels = merge_tree_to(job, std::move(rf.runs), plan.fan_in, p.tmp_dirs, out, out_offset,
                                      [&](size_t level, double secs, uint64_t b) {
                                        phase("merge level " + std::to_string(level), secs, b, b);
                                        done = 0;
                                      }, &kept);
  if (st) st->merge_levels = levels;
  return kept;
}

// Unmaps a mapping on its own thread; the destructor waits for it.
class BackgroundUnmap {
 public:
  BackgroundUnmap() = default;
  BackgroundUnmap(const BackgroundUnmap&) = delete;
  BackgroundUnmap& operator=(const BackgroundUnmap&) = delete;
  ~BackgroundUnmap() {
    if (thread_.joinable()) thread_.join();
  }
  void start(io::MappedFile m) {
    thread_ = std::thread([m = std::move(m)]() mutable { m.unmap(); });
  }

 private:
  std::thread thread_;
};

}  // namespace

RunStats sort_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  auto t_start = Clock::now();
  const Format& f = opt.format;
  io::File in = open_input(input, f);
  const uint64_t bytes = in.size();
  const std::string out_dir = output_dir_checked(output);
  Prepared p = prepare(opt, bytes, out_dir);
  const double t_prepare = since(t_start);
  if (p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition) check_tmp_dirs(p.tmp_dirs);
  preflight(p, out_dir, bytes);

  RunStats st;
  st.command = "sort";
  st.backend = p.backend->name();
  st.mode = plan_mode_name(p.plan.mode);
  st.records = p.plan.records;
  st.input_bytes = st.output_bytes = bytes;
  st.runs = p.plan.runs;
  st.phases.push_back({"open and start the device", t_prepare, 0, 0});
  const size_t rs = f.record_size;
  // Unmaps the in-memory sort's input while the output's fsync waits for the disk (the
  // 2 GiB mapping took 50 ms to unmap on the 2-core VM, time in which the CPUs are idle
  // otherwise). Declared before `out`: joined after its commit, or on any error.
  BackgroundUnmap input_unmap;
  io::TempFile out = io::TempFile::beside(output);
  // The output streams to the disk while it is written, not all at the end: a synced
  // output's fsync then has little left, and an unsynced one never hits the kernel's
  // dirty-page throttle (measured slower than the synced default without this).
  out.file().start_write_behind();

  std::unique_ptr<DeviceResidentSort> resident;
  if (p.plan.mode == PlanMode::in_memory) resident = p.backend->begin_resident_sort(f, size_t(p.plan.records));
  if (resident) {
    // Slices stream file → device and device → file through a few pinned slots; the
    // scheduler overlaps the file reads and writes with the copies.
    auto t0 = Clock::now();
    const size_t slice = std::max<size_t>(1, (size_t(64) << 20) / rs) * rs;
    std::vector<HostBuffer> buffers;
    std::vector<unsigned char*> slots;
    for (int s = 0; s < 3; ++s) {
      buffers.push_back(p.backend->allocate_host(std::min<uint64_t>(slice, bytes)));
      slots.push_back(buffers.back().data());
    }
    pipeline::Config cfg;
    cfg.total_bytes = bytes;
    cfg.chunk_bytes = size_t(std::min<uint64_t>(slice, bytes));
    cfg.phase = "read";
    pipeline::Stages in_st;
    in_st.read = [&](pipeline::Chunk& c) { in.read_at_parallel(c.data, c.bytes, c.offset, p.threads); };
    in_st.compute = [&](pipeline::Chunk& c) { resident->load(c.data, c.offset / rs, c.bytes / rs); };
    pipeline::run_chunks(cfg, slots, in_st, opt.progress);
    double t_read = since(t0);
    auto t1 = Clock::now();
    resident->sort();
    double t_sort = since(t1);
    auto t2 = Clock::now();
    pipeline::Stages out_st;
    out_st.read = [&](pipeline::Chunk& c) { resident->unload(c.data, c.offset / rs, c.bytes / rs); };
    uint64_t written = 0;
    std::vector<unsigned char> last;
    bool have_last = false;
    out_st.write = [&](pipeline::Chunk& c) {
      const size_t keep = opt.unique ? unique_carry(f, c.data, c.bytes / rs, last, have_last) * rs : c.bytes;
      out.file().write_at(c.data, keep, written);
      written += keep;
    };
    cfg.phase = "write";
    pipeline::run_chunks(cfg, slots, out_st, opt.progress);
    resident.reset();
    st.output_bytes = written;
    st.phases.push_back({"read and copy in", t_read, bytes, 0});
    st.phases.push_back({"sort on the device", t_sort, 0, 0});
    st.phases.push_back({"copy out and write", since(t2), 0, bytes});
  } else if (p.plan.mode == PlanMode::in_memory) {
    // The input's cached pages are mapped and sorted straight into the mapped output:
    // no buffer holds a copy of the data, so the sort touches little fresh memory
    // (io/mapped_file.hpp says why that matters).
    auto t0 = Clock::now();
    const size_t n = size_t(p.plan.records);
    io::MappedFile src = io::MappedFile::map_read(in, n * rs, 0, false);
    io::MappedFile dst = io::MappedFile::map_write(out.file(), n * rs, p.threads);
    if (opt.progress) opt.progress("read", bytes, bytes);
    double t_map = since(t0);
    auto t1 = Clock::now();
    // Finished ranges start their writeback while the rest sorts, unmapped first (no
    // shootdowns as it cleans them; measured 3-4% off the sort). Not with -u: the
    // unique pass below still moves records.
    Backend::SortedRecords written;
    if (!opt.unique)
      written = [&](size_t first, size_t count) {
        dst.release(first * rs, count * rs);
        out.file().written_elsewhere(first * rs, count * rs);
      };
    p.backend->sort_into(f, src.data(), dst.data(), n, written);
    const size_t kept = opt.unique ? unique_in_place(f, dst.data(), n) : n;
    input_unmap.start(std::move(src));
    dst.unmap();
    if (kept < n && ::ftruncate(out.file().fd(), off_t(kept * rs)) != 0) fail_errno(output, "cannot truncate", errno);
    if (opt.progress) opt.progress("write", bytes, bytes);
    st.output_bytes = kept * rs;
    st.phases.push_back({"map input and output", t_map, bytes, 0});
    st.phases.push_back({"sort into the output", since(t1), 0, bytes});
  } else if (p.plan.mode == PlanMode::partition) {
    // A bucket the sample misjudged past the in-memory sort goes through runs: its own
    // plan, as if it were the input.
    auto sort_large = [&](const io::File& bucket, uint64_t records, uint64_t out_offset) {
      PlanInput pi = p.plan_input;
      pi.input_bytes = records * rs;
      pi.ooc = OocMethod::merge;
      return sort_through_runs(p, make_plan(pi), bucket, opt, out.file(), out_offset, nullptr);
    };
    st.buckets = p.plan.buckets;
    st.output_bytes = partition_sort(p, in, f, opt.unique, opt.progress, out.file(), sort_large, st.phases) * rs;
  } else {
    st.output_bytes = sort_through_runs(p, p.plan, in, opt, out.file(), 0, &st) * rs;
  }
  auto tc = Clock::now();
  out.commit_rename(output, opt.fsync);
  st.phases.push_back({"sync and rename", since(tc), 0, 0});
  st.seconds = since(t_start);
  return st;
}

std::string plan_sort(const std::string& input, const std::string& output, const EngineOptions& opt,
                      const std::string& format) {
  opt.format.validate();
  const uint64_t bytes = io::file_size(input);
  checked_record_count(input, bytes, opt.format);
  Prepared p = prepare(opt, bytes, output.empty() ? io::directory_of(input) : io::directory_of(output));
  if (format == "json") return plan_json(p.plan);
  if (format == "dot") return plan_dot(p.plan);
  std::string text = "backend: " + p.backend->name() + "\nformat: " + opt.format.describe() + "\n" + plan_text(p.plan);
  std::string dirs;
  for (const auto& d : p.tmp_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
  if (p.plan.mode == PlanMode::external || p.plan.mode == PlanMode::partition) text += "temporary directories: " + dirs + "\n";
  return text;
}

RunStats form_runs(const std::string& input, const std::string& out_dir, const EngineOptions& opt) {
  auto t_start = Clock::now();
  const Format& f = opt.format;
  io::File in = open_input(input, f);
  const uint64_t bytes = in.size();
  if (out_dir.empty()) fail_usage("an output directory is required (-o DIR)");
  // Every option is checked before the directory is made: a refused run leaves nothing.
  Prepared p = prepare(opt, bytes, io::directory_of(out_dir));
  if (::mkdir(out_dir.c_str(), 0755) != 0 && errno != EEXIST) fail_errno(out_dir, "cannot create directory", errno);
  io::require_writable_dir(out_dir, "output");
  struct stat existing;
  if (::stat((out_dir + "/manifest.txt").c_str(), &existing) == 0)
    fail_usage(out_dir + ": already holds a manifest.txt; choose an empty directory");
  // `runs` always writes run files, sized as the external plan sizes them, so that
  // read, sort and write of three chunks fit in --memory.
  {
    const PlanInput& pi = p.plan_input;
    uint64_t per = pi.sort_bytes_per_record + uint64_t(pi.record_size) * 2;
    uint64_t cap = pi.max_chunk_records ? std::min<uint64_t>(pi.max_chunk_records, UINT32_MAX) : UINT32_MAX;
    uint64_t run = std::max<uint64_t>(1, std::min({p.memory / per, cap, std::max<uint64_t>(p.plan.records, 1)}));
    p.plan.run_records = size_t(run);
    p.plan.runs = size_t((p.plan.records + run - 1) / run);
    p.plan.direct_io = use_direct_io(pi.direct_io, bytes, pi.page_cache_bytes);
  }
  io::check_space({{out_dir, bytes, "the runs"}});
  RunStats st;
  st.command = "runs";
  st.backend = p.backend->name();
  st.mode = "runs";
  st.records = p.plan.records;
  st.input_bytes = st.output_bytes = bytes;
  RunFormation rf;
  if (p.plan.records > 0) rf = form_run_files(p, p.plan, in, f, opt.progress, out_dir, true, opt.unique);
  // Name the runs by their order, then write the manifest last (atomically): a
  // directory with a manifest holds complete runs.
  std::ostringstream manifest;
  manifest << "gxsort-runs 1\nformat " << f.record_size << " " << f.key_offset << " " << key_type_name(f.key_type) << " "
           << f.key_bytes << " " << (f.reverse ? 1 : 0) << "\nruns " << rf.runs.size() << "\n";
  std::vector<std::string> finals;
  for (size_t i = 0; i < rf.runs.size(); ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "run-%06zu.bin", i);
    finals.push_back(out_dir + "/" + name);
    manifest << name << " " << rf.runs[i].records << "\n";
  }
  io::TempFile mf = io::TempFile::create(out_dir, ".gxsort-manifest");
  std::string text = manifest.str();
  mf.file().write_at(text.data(), text.size(), 0);
  for (size_t i = 0; i < rf.runs.size(); ++i) rf.runs[i].temp->commit_rename(finals[i]);
  mf.commit_rename(out_dir + "/manifest.txt");
  st.runs = rf.runs.size();
  st.phases.push_back({"sort runs", rf.seconds, bytes, bytes});
  st.seconds = since(t_start);
  return st;
}

namespace {

// Expands directory arguments that hold a `runs` manifest into their run files.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, const Format& f) {
  std::vector<std::string> out;
  for (const auto& a : inputs) {
    struct stat st;
    if (::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::ifstream m(a + "/manifest.txt");
      if (!m) fail_usage(a + ": is a directory without a manifest.txt (not a `gxsort runs` directory)");
      std::string magic, word;
      int version = 0;
      size_t rs = 0, off = 0, kb = 0, count = 0;
      std::string kt;
      int rev = 0;
      m >> magic >> version >> word >> rs >> off >> kt >> kb >> rev >> word >> count;
      if (!m || magic != "gxsort-runs") fail_usage(a + "/manifest.txt: not a gxsort runs manifest");
      if (rs != f.record_size || off != f.key_offset || kb != f.key_bytes || kt != key_type_name(f.key_type) ||
          (rev != 0) != f.reverse)
        fail_usage(a + ": runs were made with another format (record size " + std::to_string(rs) + ", key " + kt +
                   " of " + std::to_string(kb) + " bytes at offset " + std::to_string(off) +
                   (rev ? ", reversed" : "") + "); give the same format options");
      for (size_t i = 0; i < count; ++i) {
        std::string name;
        uint64_t records;
        m >> name >> records;
        if (!m) fail_usage(a + "/manifest.txt: truncated");
        out.push_back(a + "/" + name);
      }
    } else {
      out.push_back(a);
    }
  }
  return out;
}

}  // namespace

RunStats merge_files(const std::vector<std::string>& inputs_arg, const std::string& output, const EngineOptions& opt) {
  auto t_start = Clock::now();
  const Format& f = opt.format;
  f.validate();
  if (inputs_arg.empty()) fail_usage("merge needs at least one input file");
  std::vector<std::string> inputs = expand_inputs(inputs_arg, f);
  std::vector<TreeInput> tree;
  uint64_t bytes = 0;
  for (const auto& path : inputs) {
    TreeInput t;
    t.file = std::make_shared<io::File>(io::File::open_read(path));
    uint64_t b = t.file->size();
    t.records = checked_record_count(path, b, f);
    bytes += b;
    tree.push_back(std::move(t));
  }
  const std::string out_dir = output_dir_checked(output);
  Prepared p = prepare(opt, bytes, out_dir);
  // Merging needs no run formation: re-plan the tree for the files as given.
  std::vector<uint64_t> sizes;
  for (const auto& t : tree) sizes.push_back(t.records);
  const uint64_t min_buf = std::max<uint64_t>(kMinMergeBuffer, f.record_size);
  // As in the planner: the fan-in first, then as many merge threads as the budget allows.
  const uint64_t k_target = std::min<uint64_t>(opt.fan_in ? opt.fan_in : kDefaultFanIn, std::max<size_t>(inputs.size(), 2));
  const unsigned merge_threads =
      unsigned(std::max<uint64_t>(1, std::min<uint64_t>(p.threads, p.memory / (min_buf * (k_target + 1)))));
  uint64_t max_k = p.memory / (min_buf * merge_threads);
  max_k = max_k > 1 ? max_k - 1 : 0;
  if (max_k < 2) fail_usage("--memory " + format_bytes(p.memory) + " is too small to merge (need at least " +
                            format_bytes(3 * min_buf) + ")");
  size_t k = std::min<uint64_t>(opt.fan_in ? opt.fan_in : kDefaultFanIn, max_k);
  if (k < 2) fail_usage("--fan-in must be at least 2");
  uint64_t temp = 0;
  auto levels = merge_tree(sizes, f.record_size, k, &temp);
  std::vector<io::SpaceNeed> needs{{out_dir, bytes, "the output"}};
  if (levels.size() > 1) {
    check_tmp_dirs(p.tmp_dirs);
    for (const auto& d : p.tmp_dirs) needs.push_back({d, temp / p.tmp_dirs.size() + 1, "temporary runs"});
  }
  io::check_space(needs);

  RunStats st;
  st.command = "merge";
  st.backend = p.backend->name();
  st.mode = "merge";
  st.records = bytes / f.record_size;
  st.input_bytes = st.output_bytes = bytes;
  st.runs = inputs.size();
  io::TempFile out = io::TempFile::beside(output);
  out.file().start_write_behind();
  std::atomic<uint64_t> done{0};
  MergeJob job = make_merge_job(p, f, opt, size_t(p.memory / (merge_threads * (std::min<size_t>(k, inputs.size()) + 1))));
  job.threads = merge_threads;
  job.verify_sorted = true;
  job.direct_temp = use_direct_io(p.plan_input.direct_io, temp, p.plan_input.page_cache_bytes);
  job.direct_output = use_direct_io(p.plan_input.direct_io, bytes, p.plan_input.page_cache_bytes) && opt.fsync;
  job.done_bytes = &done;
  job.total_bytes = bytes;
  uint64_t kept = 0;
  st.merge_levels = merge_tree_to(job, std::move(tree), k, p.tmp_dirs, out.file(), 0,
                                  [&](size_t level, double secs, uint64_t b) {
                                    st.phases.push_back({"merge level " + std::to_string(level), secs, b, b});
                                    done = 0;
                                  }, &kept);
  st.output_bytes = kept * f.record_size;
  out.commit_rename(output, opt.fsync);
  st.seconds = since(t_start);
  return st;
}

}  // namespace gxsort
