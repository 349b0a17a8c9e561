// gxsort check: order violations, duplicate keys and an order-independent checksum,
// streamed through the chunk scheduler.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "io/checksum.hpp"
#include "io/file.hpp"
#include "pipeline/chunk_scheduler.hpp"
#include "engine/engine.hpp"
#include "backend/backend.hpp"
#include "commands/command_plan.hpp"
#include "commands/command_plans.hpp"
#include "kernels/check_chunk.hpp"

namespace gxsort {

Prepared prepare_check(const io::File& in, const EngineOptions& opt) {
  return prepare(opt, plan_request(CommandKind::check, opt, in.is_stream() ? 0 : in.size(), in.is_stream(), in.path()), "/tmp");
}

// A check's plan's parts: what plan() opened and prepared, for run() to use as they are.
template <>
struct CommandPlan<CheckRequest>::State : PlanStateBase<CheckRequest> {
  io::File in;
};

PlanReport report_of(const CommandPlan<CheckRequest>::State& s) {
  return command_report(s.prepared, s.request.path, s.request.options);
}

template class CommandPlan<CheckRequest>;

CommandPlan<CheckRequest> plan(CheckRequest request) {
  const auto t_start = Clock::now();
  auto s = std::make_unique<CommandPlan<CheckRequest>::State>();
  s->request = std::move(request);
  const EngineOptions& opt = s->request.options;
  s->in = open_input(s->request.path, opt.format, opt.npy_streams);
  s->prepared = prepare_check(s->in, opt);
  s->planning = Clock::now() - t_start;
  return PlanAccess::make<CheckRequest>(std::move(s));
}

CheckResult run(CommandPlan<CheckRequest> plan) {
  CommandPlan<CheckRequest>::State& s = PlanAccess::state(plan);
  const auto t0 = Clock::now() - s.planning;
  const EngineOptions& opt = s.request.options;
  const Format& f = opt.format;
  io::File& in = s.in;
  const uint64_t bytes = in.is_stream() ? pipeline::kUntilEnd : in.size();
  const size_t rs = f.record_size;
  Prepared& p = s.prepared;
  auto& backend = p.backend;
  std::vector<HostBuffer> buffers;
  std::vector<unsigned char*> slots;
  for (unsigned s = 0; s < p.plan.chunks.slots; ++s) {
    buffers.push_back(backend->allocate_host(p.plan.chunks.chunk_bytes));
    slots.push_back(buffers.back().data());
  }
  const unsigned threads = p.threads;

  CheckResult r;
  std::vector<unsigned char> prev(rs);
  bool have_prev = false;
  pipeline::Stages st;
  io::Xxh3 file_hash;  // of the bytes in order, as Python's xxhash.xxh3_64 would give
  st.read = [&](pipeline::Chunk& c) {
    c.bytes = in.read_chunk(c.data, c.bytes, c.offset, threads);
    if (c.bytes % rs) checked_record_count(in.path(), c.offset + c.bytes, f);  // a stream's partial record
  };
  // Chunks reach compute in order: the backend checks inside the chunk, and here the
  // last record of one chunk meets the first of the next.
  st.compute = [&](pipeline::Chunk& c) {
    const size_t n = c.bytes / rs;
    const uint64_t first = c.offset / rs;
    CheckPartial part = backend->check_chunk(f, c.data, n, first);
    if (n && have_prev) {
      int cmp = compare_keys(f, prev.data(), c.data);
      if (cmp > 0 && r.sorted) { r.sorted = false; r.first_violation = first; }
      if (cmp == 0) ++r.duplicates;
    }
    if (part.first_violation != UINT64_MAX && r.sorted) { r.sorted = false; r.first_violation = part.first_violation; }
    r.duplicates += part.duplicates;
    r.checksum += part.checksum;
    file_hash.update(c.data, c.bytes);
    if (n) { std::memcpy(prev.data(), c.data + (n - 1) * rs, rs); have_prev = true; }
    r.records += n;
  };
  pipeline::Config cfg;
  cfg.total_bytes = bytes;
  cfg.chunk_bytes = p.plan.chunks.chunk_bytes;
  cfg.phase = "check";
  pipeline::run_chunks(cfg, slots, st, opt.progress);
  in.check_unchanged();
  r.xxh3 = file_hash.digest();
  r.stats.command = "check";
  r.stats.backend = backend->name();
  r.stats.mode = "stream";
  r.stats.records = r.records;
  r.stats.input_bytes = r.records * rs;
  r.stats.seconds = since(t0);
  r.stats.phases.push_back({"check", r.stats.seconds, r.stats.input_bytes, 0});
  return r;
}

CheckResult check_file(const std::string& path, const EngineOptions& opt) { return run(plan(CheckRequest{path, opt})); }

}  // namespace gxsort
