// merge --distributed: rank r of n writes records [N·r/n, N·(r+1)/n) of the stable merge
// of the inputs (N: all their records). The multiway co-rank finds where that range
// starts and ends in every input, so each rank reads only its cuts and merges them with
// the engine straight into its range of the output: no exchange, no temp files. Each
// step is agreed on by every rank (Comm::collectively), as in the distributed sort.
#include <algorithm>
#include <deque>

#include "distributed/comm.hpp"
#include "distributed/shared_output.hpp"
#include "commands/command_plan.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "engine/run.hpp"
#include "gxsort/distributed.hpp"
#include "io/space.hpp"

namespace gxsort {
namespace {

// The inputs opened (regular files that every rank sees alike) as runs.
std::vector<RunRef> open_runs(distributed::Comm& comm, const std::vector<std::string>& inputs, const std::string& output,
                              const EngineOptions& opt, std::deque<io::File>& files) {
  const Format& f = opt.format;
  std::vector<RunRef> runs;
  std::string job = "merge\n" + output + "\n" + f.describe() + "\n" + std::to_string(f.key_offset) + "\n" + opt.npy_descr;
  comm.collectively([&] {
    for (const std::string& path : inputs) {
      files.push_back(open_input(path, f, opt.npy_streams));
      const io::File& file = files.back();
      if (file.is_stream())
        fail_usage(path + ": " + option_ref("distributed") + " reads regular files on a file system every rank shares, not a stream");
      RunRef r;
      r.file = &file;
      r.records = checked_record_count(path, file.size(), f);
      r.name = path;
      runs.push_back(r);
      job += "\n" + path + " " + std::to_string(file.size());
    }
  });
  const std::string job0 = comm.broadcast(job, 0);
  comm.collectively([&] {
    if (job != job0)
      fail_usage("the inputs, their sizes, the output or the format of this rank differ from rank 0's: every rank "
                 "must merge the same files on a file system they share");
  });
  return runs;
}

// This rank's part of every input: records [lo[i], hi[i]) of input i. Checks the pair
// of records across the cut at hi (the rank after merges the second): every pair of
// neighbours of an input is checked by one rank, as a one-process merge checks them all.
std::vector<RunRef> cut_pieces(const Format& f, const std::vector<RunRef>& runs, const std::vector<uint64_t>& lo,
                               const std::vector<uint64_t>& hi) {
  std::vector<RunRef> pieces;
  std::string a(f.record_size, '\0'), b(f.record_size, '\0');
  auto* pa = reinterpret_cast<unsigned char*>(&a[0]);
  auto* pb = reinterpret_cast<unsigned char*>(&b[0]);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (hi[i] > 0 && hi[i] < runs[i].records) {
      read_records(runs[i], f.record_size, hi[i] - 1, 1, pa);
      read_records(runs[i], f.record_size, hi[i], 1, pb);
      if (compare_keys(f, pb, pa) < 0)
        fail_usage(runs[i].name + ": input is not sorted: record " + std::to_string(hi[i]) + " is smaller than the one before it");
    }
    if (hi[i] == lo[i]) continue;
    RunRef p = runs[i];
    p.offset = lo[i] * f.record_size;
    p.records = hi[i] - lo[i];
    pieces.push_back(p);
  }
  return pieces;
}

}  // namespace

// A distributed merge's plan: the inputs open, this rank's range of the output and its
// cuts of the inputs, its engine and its merge's sizes (the output not yet open).
template <>
struct CommandPlan<DistributedMergeRequest>::State : PlanStateBase<DistributedMergeRequest> {
  std::deque<io::File> files;  // stable addresses: the runs point at them
  std::vector<RunRef> runs, pieces;
  uint64_t total = 0, first = 0, last = 0;  // the inputs' records; this rank's [first, last) of the output
  Plan merge;
};

PlanReport report_of(const CommandPlan<DistributedMergeRequest>::State& s) {
  const EngineOptions& opt = s.request.options;
  PlanReport r;
  r.command = CommandKind::merge;
  r.input = s.request.inputs.empty() ? "" : s.request.inputs[0];
  r.format = opt.format.describe();
  r.record_size = opt.format.record_size;
  r.records = s.total;
  r.input_bytes = s.total * opt.format.record_size;
  r.backend = s.prepared.backend->name();
  r.threads = s.prepared.threads;
  r.memory = s.prepared.memory;
  return r;
}

template class CommandPlan<DistributedMergeRequest>;

CommandPlan<DistributedMergeRequest> plan(DistributedMergeRequest request) {
  using namespace distributed;
  const auto t_start = Clock::now();
  if (!request.job) fail_usage("a distributed merge's request names no DistributedSession");
  auto st = std::make_unique<CommandPlan<DistributedMergeRequest>::State>();
  st->request = std::move(request);
  const DistributedMergeRequest& q = st->request;
  const EngineOptions& opt = q.options;
  const Format& f = opt.format;
  const size_t rs = f.record_size;
  Comm& comm = q.job->comm();
  st->runs = open_runs(comm, q.inputs, q.output, opt, st->files);
  for (const RunRef& run : st->runs) st->total += run.records;
  const uint64_t n = uint64_t(comm.size()), r = uint64_t(comm.rank()), total = st->total;
  st->first = total / n * r + total % n * r / n;
  st->last = total / n * (r + 1) + total % n * (r + 1) / n;
  comm.collectively([&] { st->prepared = prepare_rank(opt, (st->last - st->first) * rs, default_temp_dir(q.output)); });
  comm.collectively([&] {
    const std::vector<uint64_t> lo = multiway_corank(f, st->runs, st->first);
    const std::vector<uint64_t> hi = multiway_corank(f, st->runs, st->last, &lo);
    st->pieces = cut_pieces(f, st->runs, lo, hi);
    std::vector<uint64_t> piece_records;
    for (const RunRef& piece : st->pieces) piece_records.push_back(piece.records);
    st->merge = plan_rank_merge(st->prepared.job, piece_records, RankMerge::in_place);
  });
  st->planning = Clock::now() - t_start;
  return PlanAccess::make<DistributedMergeRequest>(std::move(st));
}

RunStats run(CommandPlan<DistributedMergeRequest> plan) {
  using namespace distributed;
  CommandPlan<DistributedMergeRequest>::State& s = PlanAccess::state(plan);
  const auto t0 = Clock::now() - s.planning;
  const EngineOptions& opt = s.request.options;
  const size_t rs = opt.format.record_size;
  const uint64_t total = s.total;
  Comm& comm = s.request.job->comm();
  std::optional<SharedOutput> out;
  out.emplace(SharedOutput::open(comm, opt.context, s.request.output, output_header(opt, rs)));
  out->start_write_behind(opt.fsync, opt.cancel);
  comm.collectively([&] {
    if (comm.rank() == 0) io::check_space(opt.context, {{io::directory_of(s.request.output), total * rs, "the output"}});
  });
  comm.collectively([&] {
    std::atomic<uint64_t> done{0};
    MergeSetup job = merge_setup_of(s.prepared, opt, s.merge.window_records, s.merge.memory_merge_buffer_bytes);
    job.done_bytes = &done;
    job.total_bytes = (s.last - s.first) * rs;
    job.verify_sorted = true;
    merge_runs(job, s.pieces, out->file(), s.first * rs);
    for (const io::File& file : s.files) file.check_unchanged();
    out->finish_range(opt.fsync);
  });
  RunStats st;
  st.command = "merge";
  st.backend = s.prepared.backend->name();
  st.mode = "distributed merge (" + std::to_string(comm.size()) + " ranks)";
  st.records = total;
  st.input_bytes = st.output_bytes = total * rs;
  st.runs = s.runs.size();
  st.merge_levels = 1;
  comm.collectively([&] {
    if (comm.rank() != 0) return;
    out->commit(total * rs, opt.fsync, [&] {
      st.seconds = since(t0);
      if (opt.before_commit) opt.before_commit(st);
    });
  });
  return st;
}

RunStats merge_distributed(const std::vector<std::string>& inputs, const std::string& output, const EngineOptions& opt,
                           DistributedSession& job) {
  return run(plan(DistributedMergeRequest{inputs, output, opt, &job}));
}

}  // namespace gxsort
