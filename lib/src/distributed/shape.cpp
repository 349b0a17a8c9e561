#include "distributed/shape.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "distributed/comm.hpp"
#include "gxsort/gxsort.hpp"

namespace gxsort::distributed {

namespace {
using u128 = unsigned __int128;
constexpr uint64_t kMaxStaging = uint64_t(512) << 20;
constexpr uint64_t kSamplesPerRun = 64;
constexpr uint64_t kMaxSampleBytes = uint64_t(64) << 20;  // all ranks' samples together
}  // namespace

Slice slice_of(uint64_t total_records, int rank, int ranks) {
  auto at = [&](int r) { return uint64_t(u128(total_records) * unsigned(r) / unsigned(ranks)); };
  return {at(rank), at(rank + 1) - at(rank)};
}

uint64_t staging_bytes(uint64_t memory) { return std::min(memory / 4, kMaxStaging); }

uint64_t round_records(uint64_t staging, size_t record_size, int ranks) {
  const uint64_t per_buffer = staging / 2 / record_size;
  const uint64_t extra = uint64_t(ranks);  // one record per pair from rounding the shares up
  if (per_buffer <= extra) return 0;
  return std::min(per_buffer - extra, Comm::kMaxElements - extra);
}

uint64_t exchange_rounds(uint64_t most, uint64_t per_round) {
  return most == 0 ? 0 : (most + per_round - 1) / per_round;
}

uint64_t pair_share(uint64_t pair_records, uint64_t rounds) {
  return rounds == 0 ? 0 : (pair_records + rounds - 1) / rounds;
}

uint64_t samples_for(uint64_t slice_records, uint64_t runs, size_t record_size, int ranks) {
  if (slice_records == 0) return 0;
  const uint64_t want = kSamplesPerRun * uint64_t(ranks) * std::max<uint64_t>(runs, 1);
  const uint64_t cap = kMaxSampleBytes / (uint64_t(ranks) * (record_size + 16));
  return std::min(slice_records, std::max(std::min(want, cap), runs));
}

std::vector<uint64_t> sample_positions(uint64_t records, uint64_t samples) {
  std::vector<uint64_t> at;
  samples = std::min(samples, records);
  for (uint64_t i = 0; i < samples; ++i) at.push_back(uint64_t(u128(2 * i + 1) * records / (2 * samples)));
  return at;
}

RankShape shape_rank(const PlanInput& in, const Slice& slice, int rank, int ranks) {
  RankShape s;
  s.rank = rank;
  s.slice = slice;
  s.memory = in.memory;
  s.threads = in.merge_threads;
  s.staging = staging_bytes(in.memory);
  s.round_records = round_records(s.staging, in.record_size, ranks);
  PlanInput ext = in;
  ext.ooc = OocMethod::merge;
  make_plan(ext);  // refuses a --memory below the minimum, as a one-process sort does
  if (slice.records == 0) return s;
  // In memory when the sort fits beside the staging buffers: the sorted data is then
  // held, and sent, while the exchange runs.
  PlanInput held = ext;
  held.memory = in.memory - s.staging;
  if (held.memory >= minimum_memory(held)) {
    const Plan p = make_plan(held);
    if (p.mode == PlanMode::in_memory || p.mode == PlanMode::runs_in_memory) {
      s.local = p.mode;
      s.runs = p.mode == PlanMode::in_memory ? 1 : p.runs;
      s.run_records = p.mode == PlanMode::in_memory ? slice.records : p.run_records;
      s.held = slice.records * in.record_size;
      return s;
    }
  }
  // Otherwise run files, formed with the whole budget (the staging buffers come after).
  s.local = PlanMode::external;
  s.run_records = external_run_records(ext);
  s.runs = (slice.records + s.run_records - 1) / s.run_records;
  return s;
}

bool receive_in_memory(const RankShape& s, uint64_t received, size_t record_size) {
  const uint64_t need = received * record_size + s.held + s.staging;
  return received <= s.memory / record_size && need <= s.memory;
}

RanksShape shape_job(std::vector<RankShape> ranks, uint64_t records, size_t record_size) {
  RanksShape j;
  j.records = records;
  j.record_size = record_size;
  j.round_records = UINT64_MAX;
  uint64_t most = 0;
  const uint64_t average = ranks.empty() ? 0 : (records + ranks.size() - 1) / ranks.size();
  for (const RankShape& r : ranks) {
    j.round_records = std::min(j.round_records, r.round_records);
    j.total_runs += r.runs;
    most = std::max({most, r.slice.records, average});
  }
  if (ranks.empty() || j.round_records == 0) j.round_records = 0;
  else j.rounds = exchange_rounds(records ? most : 0, j.round_records);
  j.ranks = std::move(ranks);
  return j;
}

std::string encode(const RankShape& s) {
  std::ostringstream o;
  o << s.rank << ' ' << s.slice.first << ' ' << s.slice.records << ' ' << s.memory << ' ' << int(s.local) << ' '
    << s.runs << ' ' << s.run_records << ' ' << s.staging << ' ' << s.round_records << ' ' << s.held << ' '
    << s.threads << ' ' << int(s.slice_fits_device) << ' ' << s.backend;
  return o.str();
}

RankShape decode(const std::string& bytes) {
  std::istringstream in(bytes);
  RankShape s;
  int local = 0, fits = 0;
  in >> s.rank >> s.slice.first >> s.slice.records >> s.memory >> local >> s.runs >> s.run_records >> s.staging >>
      s.round_records >> s.held >> s.threads >> fits;
  s.local = PlanMode(local);
  s.slice_fits_device = fits != 0;
  std::getline(in >> std::ws, s.backend);
  return s;
}

}  // namespace gxsort::distributed
