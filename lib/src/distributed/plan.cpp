// plan --distributed: the job's shape (distributed/shape.hpp) for the ranks of a job, or
// for --ranks N like this process.
#include <algorithm>

#include "distributed/comm.hpp"
#include "distributed/device_exchange.hpp"
#include "distributed/shape.hpp"
#include "engine/engine.hpp"
#include "gxsort/distributed.hpp"

namespace gxsort {

namespace {

RankPlanReport rank_report(const distributed::RankShape& s) {
  RankPlanReport r;
  r.rank = s.rank;
  r.first = s.slice.first;
  r.records = s.slice.records;
  r.memory = s.memory;
  r.local = s.local;
  r.runs = s.runs;
  r.run_records = s.run_records;
  r.staging = s.staging;
  r.round_records = s.round_records;
  r.held = s.held;
  r.threads = s.threads;
  r.slice_fits_device = s.slice_fits_device;
  r.backend = s.backend;
  return r;
}

PlanReport job_report(const distributed::RanksShape& j, const std::string& input, const Format& f) {
  PlanReport r;
  r.command = CommandKind::sort;
  r.input = input;
  r.format = f.describe();
  r.records = j.records;
  r.record_size = j.record_size;
  r.input_bytes = j.records * j.record_size;
  DistributedPlanReport d;
  for (const distributed::RankShape& s : j.ranks) d.ranks.push_back(rank_report(s));
  d.round_records = j.round_records;
  d.rounds = j.rounds;
  d.total_runs = j.total_runs;
  d.device_exchange = j.device_exchange;
  d.file_exchange = j.file_exchange;
  r.distributed = std::move(d);
  return r;
}

}  // namespace

PlanReport plan_distributed(const std::string& input, const EngineOptions& options, DistributedSession* job, int ranks) {
  using namespace distributed;
  EngineOptions opt = options;
  opt.ooc = OocMethod::merge;
  const size_t rs = opt.format.record_size;
  io::File in = open_input(input, opt.format, opt.npy_streams);
  if (in.is_stream()) fail_usage(input + ": " + option_ref("distributed") + " reads a regular file, not a stream");
  const uint64_t records = in.size() / rs;
  // A rank's shape, from its own engine (memory, backend, threads) planning its slice.
  auto shape_of = [&](const Prepared& p, int rank, int of) {
    const Slice slice = slice_of(records, rank, of);
    PlanInput pi = p.plan_input;
    pi.input_bytes = slice.records * rs;
    RankShape s = shape_rank(pi, slice, rank, of);
    s.backend = p.backend->name();
    s.slice_fits_device = slice_fits_device(*p.backend, opt.format, s);
    return s;
  };
  std::vector<RankShape> shapes;
  if (job) {
    std::string mine;
    job->collectively([&] { mine = encode(shape_of(prepare_rank(opt, 0, default_temp_dir(input)), job->rank(), job->size())); });
    for (const std::string& s : job->comm().allgatherv(mine)) shapes.push_back(decode(s));
  } else {
    const Prepared p = prepare_rank(opt, 0, default_temp_dir(input));  // every rank like this process
    for (int r = 0; r < ranks; ++r) shapes.push_back(shape_of(p, r, ranks));
  }
  const bool one_host = (!job || job->comm().host_size() == job->size()) && opt.exchange == Exchange::automatic;
  return distributed::job_plan_report(std::move(shapes), records, input, opt, one_host);
}

namespace distributed {

PlanReport job_plan_report(std::vector<RankShape> shapes, uint64_t records, const std::string& input,
                           const EngineOptions& opt, bool one_host) {
  RanksShape j = shape_job(std::move(shapes), records, opt.format.record_size);
  auto every_rank = [&](auto pred) { return !j.ranks.empty() && std::all_of(j.ranks.begin(), j.ranks.end(), pred); };
  j.device_exchange = one_host && !opt.unique && every_rank([](const RankShape& r) { return r.slice_fits_device; });
  j.file_exchange = one_host && !j.device_exchange &&
                    every_rank([](const RankShape& r) { return r.local == PlanMode::external || r.slice.records == 0; });
  return job_report(j, input, opt.format);
}

}  // namespace distributed
}  // namespace gxsort
