// sort --distributed: the steps of docs/distributed.md, each agreed on by every rank
// (Comm::collectively), so that an error on one rank unwinds every rank at the same step.
#include <algorithm>
#include <numeric>
#include <optional>
#include <sstream>

#include "distributed/comm.hpp"
#include "distributed/device_exchange.hpp"
#include "distributed/file_exchange.hpp"
#include "distributed/device_pass.hpp"
#include "distributed/exchange.hpp"
#include "distributed/shape.hpp"
#include "distributed/shared_output.hpp"
#include "distributed/slice.hpp"
#include "distributed/splitters.hpp"
#include "commands/command_plan.hpp"
#include "engine/engine.hpp"
#include "engine/merge.hpp"
#include "gxsort/distributed.hpp"
#include "io/mapped_file.hpp"
#include "io/space.hpp"

namespace gxsort {
namespace distributed {
namespace {

// Every rank must sort the same input into the same output with the same format: checked
// against rank 0's before any work (mpirun's MPMD form can start ranks with other options).
void check_same_job(Comm& comm, const io::File& in, const std::string& output, const EngineOptions& opt,
                    CommandKind command) {
  const std::string size = std::to_string(in.size());
  const std::string job = command_name(command) + std::string("\n") + in.path() + "\n" + output + "\n" + opt.format.describe() + "\n" +
                          std::to_string(opt.format.key_offset) + "\n" + (opt.unique ? "-u" : "") + "\n" + opt.npy_descr;
  const std::string size0 = comm.broadcast(size, 0), job0 = comm.broadcast(job, 0);
  comm.collectively([&] {
    if (job != job0)
      fail_usage("the options of this rank differ from rank 0's: the input, the output, the format, -u and -r must be "
                 "the same on every rank");
    if (size != size0)
      fail_usage(in.path() + ": this rank sees " + size + " bytes, rank 0 " + size0 +
                 ": the input must be on a file system every rank shares");
  });
}

// What a rank sets up before any work: its input, engine and plan (plan_rank), and the
// output (open_output, when the plan runs).
struct Setup {
  std::optional<io::File> in;
  Prepared p;
  RankShape shape;
  std::optional<SharedOutput> out;
  uint64_t records = 0;
};

// This rank's part planned (writing nothing): its input opened, the ranks' agreement
// checked, its engine prepared and its slice shaped.
void plan_rank(Comm& comm, Setup& s, const std::string& input, const std::string& output, const EngineOptions& opt,
               CommandKind command) {
  const size_t rs = opt.format.record_size;
  comm.collectively([&] {
    s.in.emplace(open_input(input, opt.format, opt.npy_streams));
    if (s.in->is_stream())
      fail_usage(input + ": " + option_ref("distributed") + " reads a regular file on a file system every rank shares, not a stream");
  });
  check_same_job(comm, *s.in, output, opt, command);
  s.records = s.in->size() / rs;
  const Slice slice = slice_of(s.records, comm.rank(), comm.size());
  comm.collectively([&] {
    s.p = prepare_rank(opt, slice.records * rs, default_temp_dir(output));
    s.shape = shape_rank(s.p.plan_input, slice, comm.rank(), comm.size());
    s.shape.backend = s.p.backend->name();
    if (s.shape.round_records == 0)
      fail_usage(option_ref("memory", format_bytes(s.p.memory)) + " is too small for the exchange buffers of " +
                 std::to_string(comm.size()) + " ranks");
    if (s.shape.local == PlanMode::external) {
      for (const auto& d : s.p.tmp_dirs) io::require_writable_dir(d, "temporary");
      io::check_space(opt.context, {{s.p.tmp_dirs[0], slice.records * rs, "temporary runs"}});
    }
  });
}

// The shared output, opened by every rank (rank 0 makes its temp file) at the run's start,
// then its room checked (after the open: it says what is wrong with an output that is no
// regular file first).
void open_output(Comm& comm, Setup& s, const std::string& output, const EngineOptions& opt) {
  const size_t rs = opt.format.record_size;
  s.out.emplace(SharedOutput::open(comm, opt.context, output, output_header(opt, rs)));
  s.out->start_write_behind(opt.fsync, opt.cancel);
  comm.collectively([&] {
    if (comm.rank() == 0) io::check_space(opt.context, {{io::directory_of(output), s.records * rs, "the output"}});
  });
}

// The received pieces merged into `out` from byte `offset` (stable: the pieces are in
// input order); -u drops the records of the key of `after` too. Returns the records
// written; *levels: the merge levels it took, *stages: a device merge's busy seconds.
uint64_t merge_received(Prepared& p, Received& rec, const EngineOptions& opt, const io::File& out, uint64_t offset,
                        const unsigned char* after, size_t* levels, MergeSetup::StageSeconds* stages) {
  *levels = rec.records && (rec.pieces.size() > 1 || opt.unique) ? 1 : 0;
  if (rec.records == 0) return 0;
  const Format& f = opt.format;
  const uint64_t bytes = rec.records * f.record_size;
  const bool all_in_memory =
      rec.in_memory && std::all_of(rec.pieces.begin(), rec.pieces.end(), [](const RunRef& r) { return r.mem; });
  if (all_in_memory && rec.pieces.size() == 1 && !opt.unique) {  // nothing to merge (one rank, say)
    io::MappedRange(out, offset, bytes, p.threads).put(rec.pieces[0].mem, 0, bytes);
    return rec.records;
  }
  if (all_in_memory && !opt.unique) {  // a device that holds them sorts the pieces again
    if (auto resident = p.backend->begin_resident_sort(f, size_t(rec.records))) {
      // Loaded in input order (rank, run), the stable sort keeps that order for equal
      // keys, as the merge does.
      io::MappedRange range(out, offset, bytes, p.threads);
      auto drain = [&](const unsigned char* src, uint64_t first, uint64_t count) {
        range.put(src, first * f.record_size, count * f.record_size);
      };
      sort_on_device(*p.backend, *resident, f.record_size, rec.records, p.plan.resident_slice_bytes,
                     fill_from_pieces(rec.pieces, f.record_size, p.threads), drain, opt.progress);
      return rec.records;
    }
  }
  // Pieces in memory are read in place (only the output buffers and the device's
  // windows); pieces in files are merged as a stream's runs are, by a merge tree.
  std::vector<uint64_t> piece_records;
  if (rec.in_memory)
    for (const RunRef& r : rec.pieces) piece_records.push_back(r.records);
  else
    for (const TreeInput& t : rec.file_pieces) piece_records.push_back(t.records);
  const Plan plan = plan_rank_merge(p.job, piece_records, rec.in_memory ? RankMerge::held_in_memory : RankMerge::files);
  std::atomic<uint64_t> done{0};
  MergeSetup job = merge_setup_of(p, opt, plan.window_records,
                              rec.in_memory ? plan.memory_merge_buffer_bytes : plan.merge_buffer_bytes);
  job.unique_after = after;
  job.stage_seconds = stages;
  job.done_bytes = &done;
  job.total_bytes = bytes;
  if (rec.in_memory) return merge_runs(job, rec.pieces, out, offset);
  job.threads = plan.merge_threads;
  job.direct_temp = plan.direct_io;
  uint64_t kept = 0;
  rec.pieces.clear();
  *levels = merge_tree_to(job, std::move(rec.file_pieces), plan.fan_in, p.tmp_dirs, out, offset, nullptr, &kept);
  return kept;
}

// -u: the last record of this rank's range (its largest piece end), "" when it has none.
std::string last_record(const Format& f, const Received& rec) {
  std::string best;
  std::string r(f.record_size, '\0');
  for (const RunRef& piece : rec.pieces) {
    read_records(piece, f.record_size, piece.records - 1, 1, reinterpret_cast<unsigned char*>(&r[0]));
    if (best.empty() || compare_keys(f, reinterpret_cast<const unsigned char*>(best.data()),
                                     reinterpret_cast<const unsigned char*>(r.data())) < 0)
      best = r;
  }
  return best;
}

// Merges what this rank received into its range of the output; returns the records
// written (*levels: the merge levels it took, *stages: a device merge's busy seconds).
uint64_t write_range(Comm& comm, Setup& s, Received& rec, const EngineOptions& opt, size_t* levels,
                     MergeSetup::StageSeconds* stages) {
  const size_t rs = opt.format.record_size;
  uint64_t written = 0;
  if (!opt.unique) {  // the range's size is what it received: merged straight into place
    const uint64_t offset = SharedOutput::offset_of(comm, rec.records * rs);
    comm.collectively([&] { written = merge_received(s.p, rec, opt, s.out->file(), offset, nullptr, levels, stages); });
    return written;
  }
  // -u: the key before this range is the last of the nearest earlier rank with records;
  // records of that key are dropped here too. The size is known once merged (into a temp
  // file), and the range copied into place then.
  std::string mine;
  comm.collectively([&] { mine = last_record(opt.format, rec); });
  const std::vector<std::string> lasts = comm.allgatherv(mine);
  const unsigned char* after = nullptr;
  for (int r = comm.rank() - 1; r >= 0 && !after; --r)
    if (!lasts[size_t(r)].empty()) after = reinterpret_cast<const unsigned char*>(lasts[size_t(r)].data());
  io::TempFile merged;
  comm.collectively([&] {
    merged = io::TempFile::create(opt.context, s.p.tmp_dirs[0], "unique");
    written = merge_received(s.p, rec, opt, merged.file(), 0, after, levels, stages);
  });
  const uint64_t offset = SharedOutput::offset_of(comm, written * rs);
  comm.collectively([&] { copy_range(merged.file(), written * rs, s.out->file(), offset); });
  return written;
}

std::string encode(const RankStats& r) {
  std::ostringstream o;
  o.precision(17);
  o << r.rank << ' ' << r.slice_records << ' ' << r.runs << ' ' << r.sent << ' ' << r.received << ' ' << r.kept << ' '
    << r.output_records << ' ' << r.received_in_memory << ' ' << r.rounds << ' ' << r.sort_seconds << ' '
    << r.splitters_seconds << ' ' << r.exchange_seconds << ' ' << r.mpi_seconds << ' ' << r.merge_seconds << ' '
    << r.seconds << '\n' << r.local << '\n' << r.backend;
  for (const PhaseStat& st : r.stages) o << '\n' << st.seconds << ' ' << st.name;
  return o.str();
}

RankStats decode_stats(const std::string& bytes) {
  std::istringstream in(bytes);
  RankStats r;
  in >> r.rank >> r.slice_records >> r.runs >> r.sent >> r.received >> r.kept >> r.output_records >>
      r.received_in_memory >> r.rounds >> r.sort_seconds >> r.splitters_seconds >> r.exchange_seconds >> r.mpi_seconds >>
      r.merge_seconds >> r.seconds;
  in.ignore(1);
  std::getline(in, r.local);
  std::getline(in, r.backend);
  PhaseStat st;
  while (in >> st.seconds && in.ignore(1) && std::getline(in, st.name)) r.stages.push_back(st);
  return r;
}

// Rank 0's stats of the job: every rank's part, gathered.
void gather_stats(Comm& comm, RunStats& st, const RankStats& mine, uint64_t records, uint64_t bound_records) {
  const std::vector<std::string> all = comm.allgatherv(encode(mine));
  if (comm.rank() != 0) return;
  uint64_t largest = 0;
  for (const std::string& a : all) {
    st.ranks.push_back(decode_stats(a));
    largest = std::max(largest, st.ranks.back().received + st.ranks.back().kept);
  }
  const double average = double(records) / double(comm.size());
  st.imbalance = records ? double(largest) / average : 1.0;
  st.imbalance_bound = records ? double(bound_records) / average : 1.0;
}

// The exchange where the devices' did not run: the slice's runs (first copied back from
// its device, where some device could not hold what it receives or reach another's),
// read in place by the ranks of one host from their run files (file_exchange.hpp), else
// moved by MPI (exchange.hpp). `local` stays whole until the merge read what it shares.
Received exchange_on_host(Comm& comm, Setup& s, LocalRuns& local, std::optional<OnDevice>& dev,
                          const std::vector<std::vector<uint64_t>>& cuts, bool one_host, const EngineOptions& opt,
                          RankStats& me, uint64_t& round_records) {
  if (dev) {
    me.local = "on device, exchanged through MPI (a device could not hold what it receives or open the others')";
    comm.collectively([&] { local = to_host(*dev, s.p, *s.in, opt); });
    dev.reset();
  }
  if (one_host) {
    if (std::optional<Received> shared = exchange_through_files(comm, opt.format, local, cuts, me, opt.context.test.no_peer_files_rank)) {
      me.local = "run files, read in place by every rank (one host)";
      return std::move(*shared);
    }
  }
  return exchange(comm, opt.format, local, cuts, s.shape, opt.context, s.p.tmp_dirs, s.p.threads, me, round_records);
}

// The splitters the ranks agree on from their samples, and this rank's runs cut at them
// (cut_runs); `bound`: splitter_bound, the most records they let one rank receive.
struct SplitterCuts {
  std::vector<std::vector<uint64_t>> cuts;
  uint64_t bound = 0;
};
SplitterCuts cut_at_agreed_splitters(Comm& comm, const Format& f, const RunsView& view) {
  Sampled mine;
  comm.collectively([&] {
    const uint64_t records = std::accumulate(view.records.begin(), view.records.end(), uint64_t(0));
    const uint64_t samples = samples_for(records, view.records.size(), f.record_size, comm.size());
    mine = take_samples(f, view, uint32_t(comm.rank()), samples);
  });
  Splitters sp = agree_splitters(comm, f, mine);
  SplitterCuts c;
  comm.collectively([&] { c.cuts = cut_runs(f, view, uint32_t(comm.rank()), sp.splitters, comm.size()); });
  c.bound = splitter_bound(comm, sp, mine);
  return c;
}

// The job's stats every rank has (a collective: the runs summed, the levels the deepest
// rank's); rank 0 adds the ranks' own (gather_stats).
RunStats job_stats(Comm& comm, const Setup& s, CommandKind command, const Format& f, uint64_t total,
                   size_t levels, uint64_t round_records) {
  RunStats st;
  st.command = command_name(command);
  st.backend = s.shape.backend;
  st.mode = "distributed (" + std::to_string(comm.size()) + " ranks)";
  st.records = s.records;
  st.input_bytes = s.records * f.record_size;
  st.output_bytes = total * f.record_size;
  st.runs = size_t(comm.allreduce(s.shape.runs, Comm::Op::sum));
  st.merge_levels = size_t(comm.allreduce(levels, Comm::Op::max));  // the deepest rank's
  st.round_records = round_records;
  return st;
}

const char* local_name(PlanMode m) {
  return m == PlanMode::in_memory ? "in memory" : m == PlanMode::runs_in_memory ? "runs in memory" : "run files";
}

}  // namespace
}  // namespace distributed

// A distributed sort's plan: this rank's Setup (the output not yet open) and every
// rank's shape (report()).
template <>
struct CommandPlan<DistributedSortRequest>::State : PlanStateBase<DistributedSortRequest> {
  distributed::Setup setup;
  std::vector<distributed::RankShape> shapes;
  bool one_host = false;  // every rank on this host, --exchange auto
};

PlanReport report_of(const CommandPlan<DistributedSortRequest>::State& s) {
  PlanReport r = distributed::job_plan_report(s.shapes, s.setup.records, s.request.input, s.request.options, s.one_host);
  r.command = s.request.command;
  return r;
}

template class CommandPlan<DistributedSortRequest>;

CommandPlan<DistributedSortRequest> plan(DistributedSortRequest request) {
  using namespace distributed;
  const auto t_start = Clock::now();
  if (!request.job) fail_usage("a distributed sort's request names no DistributedSession");
  auto st = std::make_unique<CommandPlan<DistributedSortRequest>::State>();
  st->request = std::move(request);
  DistributedSortRequest& r = st->request;
  r.options.ooc = OocMethod::merge;  // a rank's slice is sorted into runs, never partitioned
  Comm& comm = r.job->comm();
  Setup& s = st->setup;
  plan_rank(comm, s, r.input, r.output, r.options, r.command);
  RankShape mine = s.shape;
  comm.collectively([&] { mine.slice_fits_device = slice_fits_device(*s.p.backend, r.options.format, mine); });
  for (const std::string& e : comm.allgatherv(encode(mine))) st->shapes.push_back(decode(e));
  st->one_host = comm.host_size() == comm.size() && r.options.exchange == Exchange::automatic;
  st->planning = Clock::now() - t_start;
  return PlanAccess::make<DistributedSortRequest>(std::move(st));
}

RunStats run(CommandPlan<DistributedSortRequest> plan) {
  using namespace distributed;
  CommandPlan<DistributedSortRequest>::State& state = PlanAccess::state(plan);
  const auto t0 = Clock::now() - state.planning;
  const EngineOptions& opt = state.request.options;
  const CommandKind command = state.request.command;
  const Format& f = opt.format;
  Comm& comm = state.request.job->comm();
  Setup& s = state.setup;
  open_output(comm, s, state.request.output, opt);
  RankStats me;
  me.rank = comm.rank();
  me.backend = s.shape.backend;
  me.local = local_name(s.shape.local);
  me.slice_records = s.shape.slice.records;
  me.runs = s.shape.runs;

  // Through the GPUs of one host where every rank can (device_exchange.hpp), else the
  // slice sorted into host memory or run files, whose records the ranks of one host read
  // in place (file_exchange.hpp) and MPI moves otherwise.
  const bool one_host = state.one_host;
  auto t = Clock::now();
  LocalRuns local;
  std::optional<OnDevice> dev;
  comm.collectively([&] { dev = begin_on_device(s.p, s.shape, opt, one_host, comm.size()); });
  if (comm.allreduce(dev ? 1 : 0, Comm::Op::min) == 0) dev.reset();
  comm.collectively([&] {
    if (dev) sort_slice_on_device(*dev, s.p, s.shape, *s.in, opt);
    else local = sort_slice(s.p, s.shape, *s.in, opt);
  });
  me.sort_seconds = since(t);
  me.stages = local.stages;

  t = Clock::now();
  const RunsView view = dev ? dev->view() : view_of(local.runs, f.record_size);
  const SplitterCuts split = cut_at_agreed_splitters(comm, f, view);
  const std::vector<std::vector<uint64_t>>& cuts = split.cuts;
  const uint64_t bound = split.bound;
  me.splitters_seconds = since(t);

  uint64_t round_records = 0;
  size_t levels = 0;
  DeviceReceived on_device;
  if (dev) on_device = exchange_on_devices(comm, *dev, cuts[0], s.p, *s.out, me);
  if (on_device.sort) {
    me.local = comm.size() > 1 ? "on device (device-to-device exchange)" : "on device (one rank: nothing to exchange)";
    t = Clock::now();
    me.output_records = write_from_device(comm, on_device, s.p, opt);
  } else {
    Received rec = exchange_on_host(comm, s, local, dev, cuts, one_host, opt, me, round_records);
    t = Clock::now();
    MergeSetup::StageSeconds stages;
    me.output_records = write_range(comm, s, rec, opt, &levels, &stages);
    for (PhaseStat& st : window_stages(stages)) me.stages.push_back(std::move(st));
  }
  comm.collectively([&] {
    s.in->check_unchanged();  // every rank read its slice: a changed input fails the job
    s.out->finish_range(opt.fsync);
  });
  me.merge_seconds = since(t);
  const uint64_t total = comm.allreduce(me.output_records, Comm::Op::sum);
  me.seconds = since(t0);

  RunStats st = job_stats(comm, s, command, f, total, levels, round_records);
  gather_stats(comm, st, me, s.records, bound);
  // The stats are complete before the commit: --stats-json is written before the output
  // is made real (nothing that can fail comes after the rename).
  comm.collectively([&] {
    if (comm.rank() != 0) return;
    s.out->commit(total * f.record_size, opt.fsync, [&] {
      st.seconds = since(t0);
      if (opt.before_commit) opt.before_commit(st);
    });
  });
  return st;
}

RunStats sort_distributed(const std::string& input, const std::string& output, const EngineOptions& opt,
                          DistributedSession& job, CommandKind command) {
  return run(plan(DistributedSortRequest{input, output, opt, &job, command}));
}

}  // namespace gxsort
