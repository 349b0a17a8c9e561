// The sizes of a distributed sort, decided before any data moves (pure functions, unit
// tested): each rank's slice of the input, how it sorts it (in memory or through run
// files), its staging buffers for the exchange, the samples it gives the splitters, and
// the exchange's rounds. `sort --distributed` runs by these, and `plan --distributed`
// returns them (docs/distributed.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gxsort/gxsort.hpp"
#include "plan/plan.hpp"

namespace gxsort::distributed {

// Records [first, first + records) of the input: rank r of n gets records
// [total * r / n, total * (r + 1) / n), so slices differ by at most one record.
struct Slice {
  uint64_t first = 0;
  uint64_t records = 0;
};
Slice slice_of(uint64_t total_records, int rank, int ranks);

// The exchange's two staging buffers (one sends a round, one receives it) take this much
// of a rank's --memory: a quarter, at most 512 MiB (larger rounds gained nothing measured).
uint64_t staging_bytes(uint64_t memory);
// The records a round may move from or to one rank, given its staging bytes: each buffer
// holds this plus one record per rank (the per-pair shares are rounded up). 0: the buffers
// cannot hold a round for this many ranks (the budget is too small).
uint64_t round_records(uint64_t staging, size_t record_size, int ranks);
// Rounds that move `most` records (the most any one rank sends or receives) at `per_round`
// a round (at least one round when there is anything to move).
uint64_t exchange_rounds(uint64_t most, uint64_t per_round);
// What one pair (sender, receiver) moves in each round: its records spread evenly over
// the rounds, rounded up, so that no rank moves more than per_round + ranks records.
uint64_t pair_share(uint64_t pair_records, uint64_t rounds);

// Samples a rank gives the splitters: about 64 per rank and run (regular sampling's bound
// on a range is then about 1/64 over the average, docs/distributed.md), at least one per
// run, at most the slice's records, and all ranks' samples together at most 64 MiB.
uint64_t samples_for(uint64_t slice_records, uint64_t runs, size_t record_size, int ranks);
// Positions of `samples` regular samples of a sorted run of `records` (the middle of
// each of `samples` equal parts), increasing.
std::vector<uint64_t> sample_positions(uint64_t records, uint64_t samples);

// How one rank runs, from its local plan input (prepare()'s, for its slice and memory).
struct RankShape {
  int rank = 0;
  Slice slice;
  uint64_t memory = 0;             // this rank's --memory
  PlanMode local = PlanMode::in_memory;  // in_memory, runs_in_memory (data held during the
                                   // exchange) or external (run files)
  uint64_t runs = 0;               // local sorted runs
  uint64_t run_records = 0;
  uint64_t staging = 0;            // bytes of the two staging buffers
  uint64_t round_records = 0;      // what its buffers let a round move (0: too small)
  uint64_t held = 0;               // bytes its sorted data holds in memory during the exchange
  unsigned threads = 1;
  bool slice_fits_device = false;  // a GPU's resident sort can hold its slice (the device exchange)
  std::string backend;
};
// `in`: the local plan input of this rank (its memory, backend, threads) with input_bytes
// set to its slice's bytes.
RankShape shape_rank(const PlanInput& in, const Slice& slice, int rank, int ranks);

// Whether `received` records can be held in memory during the exchange beside what the
// rank holds already (else they go to a temp file per sender).
bool receive_in_memory(const RankShape& s, uint64_t received, size_t record_size);

// The planned shape of the whole job: every rank's, the round size they agree on, and
// the rounds and per-rank exchange at balance (the real ones depend on the splitters).
struct RanksShape {
  std::vector<RankShape> ranks;
  uint64_t records = 0;
  size_t record_size = 0;
  uint64_t round_records = 0;      // the least of the ranks'
  uint64_t rounds = 0;             // at balance
  uint64_t total_runs = 0;
  // Every rank on one host sorts its slice on a GPU that holds it, without -u: the
  // exchange goes device to device (device_exchange.hpp) where every device can also
  // hold what its rank receives.
  bool device_exchange = false;
  // ... or each rank reads its pieces of the others' run files in place
  // (file_exchange.hpp), where every rank forms run files and can open the others'.
  bool file_exchange = false;
};
RanksShape shape_job(std::vector<RankShape> ranks, uint64_t records, size_t record_size);

// A RankShape as bytes and back (gathered from every rank of a job).
std::string encode(const RankShape& s);
RankShape decode(const std::string& bytes);

// plan --distributed's report of a job of these ranks' shapes (distributed/plan.cpp);
// one_host: every rank on one host, --exchange auto (the device and file exchanges' room).
PlanReport job_plan_report(std::vector<RankShape> shapes, uint64_t records, const std::string& input,
                           const EngineOptions& opt, bool one_host);

}  // namespace gxsort::distributed
