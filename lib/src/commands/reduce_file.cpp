// gxsort reduce: the file streams through the chunk scheduler; each chunk is reduced on
// the backend and the partials are combined in file order.
#include <algorithm>
#include <chrono>
#include <optional>

#include "gxsort/gxsort.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "kernels/reduce.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "engine/engine.hpp"

namespace gxsort {

Prepared prepare_reduce(const io::File& in, const EngineOptions& opt) {
  return prepare(opt, plan_request(CommandKind::reduce, opt, in.is_stream() ? 0 : in.size(), in.is_stream(), in.path()), "/tmp");
}

// A reduce's plan's parts: what plan() opened and prepared, for run() to use as they are.
template <>
struct CommandPlan<ReduceRequest>::State : PlanStateBase<ReduceRequest> {
  io::File in;
};

PlanReport report_of(const CommandPlan<ReduceRequest>::State& s) {
  return command_report(s.prepared, s.request.path, s.request.options);
}

template class CommandPlan<ReduceRequest>;

CommandPlan<ReduceRequest> plan(ReduceRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<ReduceRequest>::State>();
  s->request = std::move(request);
  const EngineOptions& opt = s->request.options;
  opt.format.validate();
  check_reducible(opt.format, 0);
  s->in = open_input(s->request.path, opt.format, opt.npy_streams);
  s->prepared = prepare_reduce(s->in, opt);
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<ReduceRequest>(std::move(s));
}

ReduceResult run(CommandPlan<ReduceRequest> plan) {
  CommandPlan<ReduceRequest>::State& s = PlanAccess::state(plan);
  const auto t0 = Clock::now() - s.planning;
  const EngineOptions& opt = s.request.options;
  const ReduceOp op = s.request.op;
  const ReduceAlgo algo = s.request.algo;
  const Format& f = opt.format;
  io::File& in = s.in;
  const uint64_t bytes = in.is_stream() ? pipeline::kUntilEnd : in.size();
  Prepared& p = s.prepared;
  auto& backend = p.backend;
  const double t_start = std::chrono::duration<double>(s.planning).count();

  // Chunks are whole reduction blocks (results must not depend on the chunking): the plan's.
  const size_t rs = f.record_size;
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (unsigned s = 0; s < p.plan.chunks.slots; ++s) {
    buffers.push_back(backend->allocate_host(p.plan.chunks.chunk_bytes));
    slots.push_back(buffers.back().data());
  }
  ReducePartial total;
  bool first_chunk = true;
  pipeline::Stages st;
  const unsigned threads = p.threads;
  st.read = [&](pipeline::Chunk& c) {
    c.bytes = in.read_chunk(c.data, c.bytes, c.offset, threads);
    if (c.bytes % rs) checked_record_count(in.path(), c.offset + c.bytes, f);  // a stream's partial record
  };
  st.compute = [&](pipeline::Chunk& c) {
    ReducePartial part = backend->reduce_chunk(f, c.data, c.bytes / rs, c.offset / rs, algo);
    if (first_chunk) { total = part; first_chunk = false; }
    else combine(total, part);
  };
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = p.plan.chunks.chunk_bytes;
  cfg.phase = "reduce";
  pipeline::run_chunks(cfg, slots, st, opt.progress);
  in.check_unchanged();
  const uint64_t read = in.is_stream() ? in.stream_bytes() : bytes;
  if (first_chunk) total = reduce_chunk_cpu(f, nullptr, 0, 0);

  ReduceResult r;
  r.op = op;
  r.values = reduce_values(f, op, total);
  r.stats.command = "reduce";
  r.stats.backend = backend->name();
  r.stats.mode = std::string(choice_name(op, kReduceOps)) + "/" + choice_name(algo, kReduceAlgos);
  r.stats.records = read / rs;
  r.stats.input_bytes = read;
  r.stats.seconds = since(t0);
  r.stats.phases.push_back({"open and start the device", t_start, 0, 0});
  r.stats.phases.push_back({"reduce", r.stats.seconds - t_start, read, 0});
  return r;
}

ReduceResult reduce_file(const std::string& path, ReduceOp op, ReduceAlgo algo, const EngineOptions& opt) {
  return run(plan(ReduceRequest{path, op, algo, opt}));
}

}  // namespace gxsort
