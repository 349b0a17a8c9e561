// gxsort dedupe: sorted, one record per distinct key (docs/dedupe.md). Three strategies:
//   sort    keep first, no counts: the sort engine with -u (runs shrink early, the final
//           merge drops the rest). --count or --keep last (records wider than their key):
//           a stable sort without dropping anything into a temp file, then the streamed
//           group pass (first or last record of each group, its size).
//   bitmap  flat 4-byte keys: one bit per possible key set while the chunks stream
//           through the scheduler, then the set bits written out in order.
//   stream  --assume-sorted: the group pass straight over the input, verifying the order.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "gxsort/gxsort.hpp"
#include "io/output.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "io/debris.hpp"
#include "resume/staged_job.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "plan/sizes.hpp"
#include "engine/group_pass.hpp"
#include "engine/engine.hpp"

namespace gxsort {
namespace {

GroupPass make_group_pass(const EngineOptions& opt, const std::string& name, unsigned threads, uint64_t memory,
                          bool verify) {
  GroupPass g;
  g.format = &opt.format;
  g.count = opt.dedupe.count;
  g.keep_last = opt.dedupe.keep_last;
  g.verify = verify;
  g.name = name;
  g.threads = threads;
  // Three slots of input and output buffers within --memory (at least one record).
  const size_t per = 2 * opt.format.record_size + 8;
  g.chunk_bytes = size_t(std::min<uint64_t>(uint64_t(32) << 20, memory / 3 / per * opt.format.record_size));
  g.chunk_bytes = std::max(g.chunk_bytes, opt.format.record_size);
  g.progress = opt.progress;
  return g;
}

// Keep first (for flat keys the record is the key: keep last is the same bytes): the
// sort engine with -u.
RunStats dedupe_by_sort_unique(io::File& in, const std::string& output, const EngineOptions& opt,
                               Clock::time_point t_start) {
  EngineOptions o = opt;
  o.unique = true;
  auto as_dedupe = [t_start](RunStats s) {
    s.command = "dedupe";
    s.mode = "sort -u (" + s.mode + ")";
    s.seconds = since(t_start);
    return s;
  };
  if (opt.before_commit) o.before_commit = [&](const RunStats& s) { opt.before_commit(as_dedupe(s)); };
  return as_dedupe(sort_input(in, output, o));
}

// The bitmap strategy: every key's bit set while the chunks stream through the
// scheduler, then the set bits written out in order.
void dedupe_by_bitmap(Prepared& p, io::File& in, KeyBitmap& bitmap, size_t chunk_records, const std::string& output,
                      const EngineOptions& opt, RunStats& st, Clock::time_point t_start) {
  io::Output out = io::Output::open(output, p.tmp_dirs[0], "out", output_header(opt, 4));
  io::check_space({{out.space_dir(), in.is_stream() ? 0 : in.size(), "the output"}});
  // The keys are written in one burst at the end (up to 16 GiB): start their writeback
  // as they go so that the final fsync is not a second pass at disk speed.
  if (!out.streamed()) out.file().start_write_behind();
  auto t0 = Clock::now();
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (int s = 0; s < 3; ++s) {
    buffers.push_back(p.backend->allocate_host(chunk_records * 4));
    slots.push_back(buffers.back().data());
  }
  pipeline::Stages stages;
  stages.read = [&](pipeline::Chunk& c) {
    c.bytes = in.read_chunk(c.data, c.bytes, c.offset, p.threads);
    if (c.bytes % 4) checked_record_count(in.path(), c.offset + c.bytes, opt.format);  // a stream's partial record
  };
  stages.compute = [&](pipeline::Chunk& c) { bitmap.add(c.data, c.bytes / 4); };
  pipeline::Config cfg;
  cfg.total_bytes = in.is_stream() ? pipeline::kUntilEnd : in.size();
  cfg.chunk_bytes = chunk_records * 4;
  cfg.phase = "bitmap";
  if (cfg.total_bytes) pipeline::run_chunks(cfg, slots, stages, opt.progress);
  const uint64_t bytes = in.is_stream() ? in.stream_bytes() : in.size();
  st.records = bytes / 4;
  st.input_bytes = bytes;
  st.phases.push_back({"set bits", since(t0), bytes, 0});
  auto t1 = Clock::now();
  uint64_t off = 0;
  const uint64_t kept = bitmap.extract([&](const unsigned char* data, size_t n) {
    out.file().write_at_parallel(data, n, off, p.threads);  // the pieces are large: page-cache copies on all cores
    off += n;
  });
  st.output_bytes = kept * 4;
  st.phases.push_back({"write keys", since(t1), 0, st.output_bytes});
  in.check_unchanged();
  commit_outputs({&out}, st, t_start, opt);
}


// The group pass straight over a sorted input (--assume-sorted), verifying its order.
void dedupe_by_stream(Prepared& p, io::File& in, const std::string& output, const EngineOptions& opt, RunStats& st,
                      Clock::time_point t_start) {
  const size_t rs = opt.format.record_size, out_rs = rs + (opt.dedupe.count ? 8 : 0);
  const uint64_t records = st.records;
  io::Output out = io::Output::open(output, p.tmp_dirs[0], "out", output_header(opt, out_rs));
  io::check_space({{out.space_dir(), records * out_rs, "the output"}});
  if (!out.streamed()) out.file().start_write_behind();
  auto t0 = Clock::now();
  GroupPass g = make_group_pass(opt, in.path(), p.threads, p.memory, true);
  const uint64_t kept = group_pass(g, *p.backend, in, records, out.file());
  const uint64_t read = in.is_stream() ? in.stream_bytes() : st.input_bytes;
  st.records = read / rs;
  st.input_bytes = read;
  st.output_bytes = kept * out_rs;
  st.phases.push_back({"dedupe", since(t0), read, st.output_bytes});
  in.check_unchanged();
  commit_outputs({&out}, st, t_start, opt);
}

// What defines the result of a dedupe that sorts and groups (its job's digest).
std::string group_digest(const io::File& in, const std::string& output, const EngineOptions& opt) {
  const Format& f = opt.format;
  std::vector<std::string> parts{"gxsort dedupe job 1"};
  for (const std::string& s : resume::input_parts(in)) parts.push_back(s);
  for (const std::string& s : {std::to_string(f.record_size), f.key_text(), std::string(f.reverse ? "r" : "-"),
                               std::string(opt.dedupe.count ? "count" : "-"), std::string(opt.dedupe.keep_last ? "last" : "first"),
                               opt.npy_descr, io::output_key(output)})
    parts.push_back(s);
  return resume::job_digest(parts);
}

// The stable sort of a dedupe that groups, into `path` (nothing dropped: the later
// records of a group survive every run and merge). Its temp directories are the job's.
RunStats sort_for_group(io::File& in, const std::string& path, const std::vector<std::string>& tmp_dirs,
                        const EngineOptions& opt) {
  EngineOptions o = opt;
  o.unique = false;
  o.fsync = false;
  o.npy_descr.clear();  // a file of bare records, read back by the group pass
  o.before_commit = nullptr;  // the sort into a stage file: its stats are not the command's
  o.tmp_dirs = tmp_dirs;
  return sort_input(in, path, o);
}

// The sorted records: the stage a killed run of this job kept (verified), or sorted now
// (a resumable sort of its own, inside the job) and journalled.
RunStats sorted_stage(io::File& in, resume::StagedJob& job, const EngineOptions& opt) {
  RunStats s;
  if (const resume::Piece* kept = job.kept("sorted", "the sorted records")) {
    s.records = kept->records;
    s.input_bytes = kept->records * opt.format.record_size;
    s.mode = "kept from a killed run";
    return s;
  }
  s = sort_for_group(in, job.path("sorted"), job.dirs(), opt);
  job.record("sorted", s.records, {});
  return s;
}

// --count or --keep last of records wider than their key: a stable sort that drops
// nothing into a file, then the group pass keeps the first or last of each group and
// counts it. A regular input makes it a resumable job (resume/staged_job.hpp): the
// sorted file is its stage, the sort's runs its sort's pieces; a stream sorts into a
// temp file (it cannot be read again).
void dedupe_by_sort_and_group(Prepared& p, io::File& in, const std::string& output, const EngineOptions& opt,
                              RunStats& st, Clock::time_point t_start) {
  const size_t out_rs = opt.format.record_size + (opt.dedupe.count ? 8 : 0);
  const std::string sort_dir = p.tmp_dirs[0];
  io::require_writable_dir(sort_dir, "temporary");
  const unsigned threads = p.threads;
  const uint64_t memory = p.memory;
  p.backend.reset();  // the sort reserves the device again
  io::Output out = io::Output::open(output, sort_dir, "out", output_header(opt, out_rs));  // checked before the sort
  std::unique_ptr<resume::StagedJob> job;
  std::optional<io::TempFile> temp;
  RunStats s;
  if (in.is_stream()) {
    temp.emplace(io::TempFile::create(sort_dir, "dedupe"));
    s = sort_for_group(in, temp->path(), p.tmp_dirs, opt);
  } else {
    job = std::make_unique<resume::StagedJob>(p.tmp_dirs, group_digest(in, output, opt), opt.resume, io::output_key(output),
                                              threads, opt.note);
    if (!out.streamed()) out.keep_for_job(io::kJobPrefix + job->digest() + ".out", false);  // a stable name: no debris
    s = sorted_stage(in, *job, opt);
  }
  st.backend = s.backend.empty() ? st.backend : s.backend;
  st.records = s.records;
  st.input_bytes = s.input_bytes;
  st.runs = s.runs;
  st.merge_levels = s.merge_levels;
  st.buckets = s.buckets;
  for (auto& ph : s.phases) st.phases.push_back(ph);
  st.mode = "sort + group (" + s.mode + ")";
  if (job) {
    st.resumed = job->summary(s.resumed);
    st.discarded = job->discarded() + s.discarded;
  }
  const std::string sorted = job ? job->path("sorted") : temp->path();
  io::File sorted_in = io::File::open_read(sorted);
  io::check_space({{out.space_dir(), s.records * out_rs, "the output"}});
  if (!out.streamed()) out.file().start_write_behind();
  auto t0 = Clock::now();
  auto host = make_cpu_backend(threads);
  GroupPass g = make_group_pass(opt, sorted, threads, memory, false);
  const uint64_t kept = group_pass(g, *host, sorted_in, s.records, out.file());
  st.output_bytes = kept * out_rs;
  st.phases.push_back({"group", since(t0), s.input_bytes, st.output_bytes});
  if (temp) temp->remove();
  commit_outputs({&out}, st, t_start, opt);
  if (job) job->finish();  // after the commit: killed in between, a resume groups again
}

// The sort's plan only matters to the auto rule; the stream and the bitmap need none
// (and a --memory too small to merge runs must not stop them).
Prepared prepare_for_dedupe(const EngineOptions& opt, uint64_t bytes, const std::string& tmp_dir) {
  try {
    return prepare(opt, bytes, tmp_dir);
  } catch (const Error& e) {
    const DedupeOptions& d = opt.dedupe;
    if (e.code() != ExitCode::usage || (!d.assume_sorted && d.strategy == DedupeStrategy::sort)) throw;
    EngineOptions tiny = opt;
    tiny.memory.bytes = uint64_t(64) << 20;  // a plan that succeeds; the budget below is the user's
    tiny.memory.percent = 0;
    Prepared p = prepare(tiny, bytes, tmp_dir);
    p.memory = host_budget(opt);
    return p;
  }
}

// The bitmap for the bitmap strategy, or null where it does not fit (auto then sorts).
std::unique_ptr<KeyBitmap> make_bitmap(Prepared& p, const EngineOptions& opt, uint64_t records, bool stream,
                                       size_t& chunk_records) {
  // Chunks of at most 64 MiB, three in flight within --memory.
  chunk_records = size_t(std::max<uint64_t>(1024, std::min<uint64_t>(uint64_t(16) << 20, p.memory / 4 / 4)));
  if (!stream) chunk_records = size_t(std::min<uint64_t>(chunk_records, std::max<uint64_t>(records, 1)));
  const uint64_t chunks_bytes = 3 * uint64_t(chunk_records) * 4;
  const bool asked = opt.dedupe.strategy == DedupeStrategy::bitmap;
  const uint64_t budget = asked ? UINT64_MAX : (p.memory > chunks_bytes ? p.memory - chunks_bytes : 0);
  std::unique_ptr<KeyBitmap> bitmap = p.backend->make_key_bitmap(opt.format, chunk_records, budget);
  if (!bitmap && asked)
    throw Error(ExitCode::io, "--strategy bitmap: the " + format_bytes(kBitmapBytes) + " key bitmap does not fit in " +
                                  p.backend->name() + "'s memory budget (raise --device-memory, or use --device cpu or --strategy sort)");
  return bitmap;
}

}  // namespace

RunStats dedupe_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  const auto t_start = Clock::now();
  const Format& f = opt.format;
  const DedupeOptions& d = opt.dedupe;
  io::File in = open_input(input, f);
  // A stream's size is unknown: the auto rule takes it for a small input (sort).
  const bool stream = in.is_stream();
  const uint64_t bytes = stream ? 0 : in.size();
  const uint64_t records = bytes / f.record_size;
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  // When the strategy is sort whatever the plan, and the sort drops the duplicates
  // itself (keep first), go straight to the sort engine: it prepares its own backend
  // and plan, and a second one here would start the device twice.
  const bool keep_first = !d.count && (!d.keep_last || f.flat());
  if (keep_first && choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, true) == DedupePath::sort &&
      choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, false) == DedupePath::sort)
    return dedupe_by_sort_unique(in, output, opt, t_start);
  Prepared p = prepare_for_dedupe(opt, bytes, default_temp_dir(output));
  const bool sort_in_memory = stream || p.plan.mode == PlanMode::in_memory;
  DedupePath strategy = choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, sort_in_memory);
  RunStats st;
  st.command = "dedupe";
  st.backend = p.backend->name();
  st.records = records;
  st.input_bytes = bytes;
  std::unique_ptr<KeyBitmap> bitmap;
  size_t chunk_records = 0;
  if (strategy == DedupePath::bitmap) {
    bitmap = make_bitmap(p, opt, records, stream, chunk_records);
    if (!bitmap) strategy = DedupePath::sort;
  }
  st.mode = dedupe_path_name(strategy);
  if (strategy == DedupePath::bitmap) {
    dedupe_by_bitmap(p, in, *bitmap, chunk_records, output, opt, st, t_start);
  } else if (strategy == DedupePath::stream) {
    dedupe_by_stream(p, in, output, opt, st, t_start);
  } else if (keep_first) {
    p.backend.reset();  // sort_file reserves the device again
    return dedupe_by_sort_unique(in, output, opt, t_start);
  } else {
    dedupe_by_sort_and_group(p, in, output, opt, st, t_start);
  }
  return st;
}

}  // namespace gxsort
