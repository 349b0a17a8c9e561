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

#include "gxsort/gxsort.hpp"
#include "io/space.hpp"
#include "io/temp_files.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "plan/sizes.hpp"
#include "sort/bitmap_dedupe.hpp"
#include "sort/engine.hpp"

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
RunStats dedupe_by_sort_unique(const std::string& input, const std::string& output, const EngineOptions& opt,
                               Clock::time_point t_start) {
  EngineOptions o = opt;
  o.unique = true;
  RunStats s = sort_file(input, output, o);
  s.command = "dedupe";
  s.mode = "sort -u (" + s.mode + ")";
  s.seconds = since(t_start);
  return s;
}

}  // namespace

RunStats dedupe_file(const std::string& input, const std::string& output, const EngineOptions& opt) {
  const auto t_start = Clock::now();
  const Format& f = opt.format;
  const DedupeOptions& d = opt.dedupe;
  f.validate();
  io::File in = io::File::open_read(input);
  const uint64_t bytes = in.size();
  const uint64_t records = checked_record_count(input, bytes, f);
  if (output.empty()) fail_usage("an output file is required (-o FILE)");
  const std::string out_dir = io::directory_of(output);
  io::require_writable_dir(out_dir, "output");
  // When the strategy is sort whatever the plan, and the sort drops the duplicates
  // itself (keep first), go straight to the sort engine: it prepares its own backend
  // and plan, and a second one here would start the device twice.
  const bool keep_first = !d.count && (!d.keep_last || f.flat());
  if (keep_first && choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, true) == "sort" &&
      choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, false) == "sort")
    return dedupe_by_sort_unique(input, output, opt, t_start);
  // The sort's plan only matters to the auto rule; the stream and the bitmap need none
  // (and a --memory too small to merge runs must not stop them).
  Prepared p;
  bool sort_in_memory = false;
  try {
    p = prepare(opt, bytes, out_dir);
    sort_in_memory = p.plan.mode == PlanMode::in_memory;
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage || (!d.assume_sorted && d.strategy != "bitmap" && d.strategy != "auto")) throw;
    EngineOptions tiny = opt;
    tiny.memory = "64M";  // a plan that succeeds; the budget below is the user's
    p = prepare(tiny, bytes, out_dir);
    p.memory = parse_size(opt.memory, physical_memory_bytes(), "--memory");
  }
  std::string strategy = choose_dedupe_strategy(d.strategy, f, d.count, d.assume_sorted, records, sort_in_memory);
  const size_t rs = f.record_size;
  const size_t out_rs = rs + (d.count ? 8 : 0);

  RunStats st;
  st.command = "dedupe";
  st.backend = p.backend->name();
  st.records = records;
  st.input_bytes = bytes;

  std::unique_ptr<KeyBitmap> bitmap;
  size_t chunk_records = 0;
  if (strategy == "bitmap") {
    // Chunks of at most 64 MiB, three in flight within --memory.
    chunk_records = size_t(std::max<uint64_t>(1024, std::min<uint64_t>(uint64_t(16) << 20, p.memory / 4 / 4)));
    chunk_records = size_t(std::min<uint64_t>(chunk_records, std::max<uint64_t>(records, 1)));
    const uint64_t chunks_bytes = 3 * uint64_t(chunk_records) * 4;
    const uint64_t host_budget = d.strategy == "bitmap" ? UINT64_MAX : (p.memory > chunks_bytes ? p.memory - chunks_bytes : 0);
    bitmap = p.backend->make_key_bitmap(f, chunk_records, host_budget);
    if (!bitmap) {
      if (d.strategy == "bitmap")
        throw Error(ExitCode::io, "--strategy bitmap: the " + format_bytes(kBitmapBytes) + " key bitmap does not fit in " +
                                      p.backend->name() + "'s memory budget (raise --device-memory, or use --device cpu or --strategy sort)");
      strategy = "sort";
    }
  }
  st.mode = strategy;

  if (strategy == "bitmap") {
    io::check_space({{out_dir, bytes, "the output"}});
    io::TempFile out = io::TempFile::beside(output);
    // The keys are written in one burst at the end (up to 16 GiB): start their writeback
    // as they go so that the final fsync is not a second pass at disk speed.
    out.file().start_write_behind();
    auto t0 = Clock::now();
    std::vector<HostBuffer> buffers;
    std::vector<unsigned char*> slots;
    for (int s = 0; s < 3; ++s) {
      buffers.push_back(p.backend->allocate_host(chunk_records * 4));
      slots.push_back(buffers.back().data());
    }
    pipeline::Stages stages;
    stages.read = [&](pipeline::Chunk& c) { in.read_at_parallel(c.data, c.bytes, c.offset, p.threads); };
    stages.compute = [&](pipeline::Chunk& c) { bitmap->add(c.data, c.bytes / 4); };
    pipeline::Config cfg;
    cfg.total_bytes = bytes;
    cfg.chunk_bytes = chunk_records * 4;
    cfg.phase = "bitmap";
    if (records) pipeline::run_chunks(cfg, slots, stages, opt.progress);
    st.phases.push_back({"set bits", since(t0), bytes, 0});
    auto t1 = Clock::now();
    uint64_t off = 0;
    const uint64_t kept = bitmap->extract([&](const unsigned char* data, size_t n) {
      out.file().write_at_parallel(data, n, off, p.threads);  // the pieces are large: page-cache copies on all cores
      off += n;
    });
    bitmap.reset();
    st.output_bytes = kept * 4;
    st.phases.push_back({"write keys", since(t1), 0, st.output_bytes});
    auto t2 = Clock::now();
    out.commit_rename(output, opt.fsync);
    st.phases.push_back({"sync and rename", since(t2), 0, 0});
  } else if (strategy == "stream") {
    io::check_space({{out_dir, records * out_rs, "the output"}});
    io::TempFile out = io::TempFile::beside(output);
    out.file().start_write_behind();
    auto t0 = Clock::now();
    GroupPass g = make_group_pass(opt, input, p.threads, p.memory, true);
    const uint64_t kept = group_pass(g, *p.backend, in, records, out.file());
    st.output_bytes = kept * out_rs;
    st.phases.push_back({"dedupe", since(t0), bytes, st.output_bytes});
    out.commit_rename(output, opt.fsync);
  } else if (keep_first) {
    p.backend.reset();  // sort_file reserves the device again
    return dedupe_by_sort_unique(input, output, opt, t_start);
  } else {
    // A stable sort that drops nothing (so the later records of a group survive every
    // run and merge), into a temp file; then the group pass keeps the first or last of
    // each group and counts it.
    const std::string tmp_dir = p.tmp_dirs[0];
    io::require_writable_dir(tmp_dir, "temporary");
    io::check_space({{out_dir, records * out_rs, "the output"}});
    const unsigned threads = p.threads;
    const uint64_t memory = p.memory;
    p.backend.reset();
    io::TempFile sorted = io::TempFile::create(tmp_dir, "gxsort-dedupe");
    EngineOptions o = opt;
    o.unique = false;
    o.fsync = false;
    o.tmp_dirs = p.tmp_dirs;
    RunStats s = sort_file(input, sorted.path(), o);
    st.backend = s.backend;
    st.runs = s.runs;
    st.merge_levels = s.merge_levels;
    st.buckets = s.buckets;
    for (auto& ph : s.phases) st.phases.push_back(ph);
    st.mode = "sort + group (" + s.mode + ")";
    io::File sorted_in = io::File::open_read(sorted.path());
    io::TempFile out = io::TempFile::beside(output);
    out.file().start_write_behind();
    auto t0 = Clock::now();
    auto host = make_cpu_backend(threads);
    GroupPass g = make_group_pass(opt, sorted.path(), threads, memory, false);
    const uint64_t kept = group_pass(g, *host, sorted_in, records, out.file());
    st.output_bytes = kept * out_rs;
    st.phases.push_back({"group", since(t0), bytes, st.output_bytes});
    sorted.remove();
    out.commit_rename(output, opt.fsync);
  }
  st.seconds = since(t_start);
  return st;
}

}  // namespace gxsort
