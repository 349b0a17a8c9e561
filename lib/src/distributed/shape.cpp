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

JobShape shape_job(std::vector<RankShape> ranks, uint64_t records, size_t record_size) {
  JobShape j;
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

namespace {

std::string local_text(const RankShape& r) {
  if (r.slice.records == 0) return "nothing (an empty slice)";
  if (r.local == PlanMode::in_memory) return "in memory";
  const std::string runs = std::to_string(r.runs) + " runs of " + std::to_string(r.run_records) + " records";
  return r.local == PlanMode::runs_in_memory ? runs + " in memory" : runs + " in temp files";
}

std::string pad(std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " "; }

}  // namespace

std::string shape_text(const JobShape& j, const std::string& format) {
  std::ostringstream o;
  const size_t n = j.ranks.size();
  const uint64_t bytes = j.records * j.record_size;
  o << "distributed sort: " << n << " ranks, " << j.records << " records (" << format_bytes(bytes) << ") of "
    << format << "\n";
  o << pad("rank", 6) << pad("slice (records)", 26) << pad("bytes", 12) << pad("memory", 12) << pad("local sort", 38)
    << pad("staging <=", 12) << "backend\n";
  for (const RankShape& r : j.ranks) {
    const std::string range = "[" + std::to_string(r.slice.first) + ", " + std::to_string(r.slice.first + r.slice.records) + ")";
    o << pad(std::to_string(r.rank), 6) << pad(range, 26) << pad(format_bytes(r.slice.records * j.record_size), 12)
      << pad(format_bytes(r.memory), 12) << pad(local_text(r), 38) << pad(format_bytes(r.staging), 12) << r.backend
      << "\n";
  }
  if (j.round_records == 0) {
    o << "exchange: --memory is too small for the staging buffers of " << n << " ranks\n";
    return o.str();
  }
  const uint64_t moved = n ? bytes - bytes / n : 0;
  o << "splitters: regular samples of every rank's sorted runs (" << j.total_runs
    << " runs), ties broken by input position\n";
  if (j.device_exchange)
    o << "exchange: device to device (CUDA IPC): each slice stays on its GPU, and each rank copies its pieces from "
         "the others' GPUs, where every GPU can also hold what its rank receives; otherwise:\n";
  if (j.file_exchange)
    o << "exchange: through the file system (one host): each rank reads its pieces of every rank's run files in "
         "place, where every rank can open the others'; otherwise:\n";
  o << "exchange: about " << format_bytes(moved) << " between ranks at balance, in rounds of up to " << j.round_records
    << " records a rank: " << j.rounds << " rounds at balance (more where the keys are skewed)\n";
  o << "merge: each rank merges the pieces it received (up to " << j.total_runs
    << ") into its range of the output, at the offset the ranks before it fill\n";
  return o.str();
}

std::string shape_json(const JobShape& j) {
  std::ostringstream o;
  o << "{\"mode\":\"distributed\",\"ranks\":" << j.ranks.size() << ",\"records\":" << j.records
    << ",\"record_size\":" << j.record_size << ",\"round_records\":" << j.round_records << ",\"rounds\":" << j.rounds
    << ",\"total_runs\":" << j.total_runs << ",\"device_exchange\":" << (j.device_exchange ? "true" : "false")
    << ",\"file_exchange\":" << (j.file_exchange ? "true" : "false")
    << ",\"per_rank\":[";
  for (size_t i = 0; i < j.ranks.size(); ++i) {
    const RankShape& r = j.ranks[i];
    o << (i ? "," : "") << "{\"rank\":" << r.rank << ",\"first\":" << r.slice.first << ",\"records\":" << r.slice.records
      << ",\"memory\":" << r.memory << ",\"local\":\"" << plan_mode_name(r.local) << "\",\"runs\":" << r.runs
      << ",\"run_records\":" << r.run_records << ",\"staging\":" << r.staging << ",\"round_records\":" << r.round_records
      << ",\"held\":" << r.held << ",\"threads\":" << r.threads
      << ",\"slice_fits_device\":" << (r.slice_fits_device ? "true" : "false") << ",\"backend\":" << json_quote(r.backend)
      << "}";
  }
  o << "]}\n";
  return o.str();
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
