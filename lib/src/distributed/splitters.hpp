// Splitters of a distributed sort: which records each rank receives. Every rank samples
// each of its sorted runs regularly; the samples of all ranks, sorted, give ranks - 1
// splitters evenly spaced among them; every run is cut at each splitter, and rank d
// receives every run's records between splitters d - 1 and d.
//
// Ties: the order is by key, then by input position, and a record's input position is
// (its rank, its run, its place in the run): slices and runs follow the input, and a run
// is sorted stably. A sample carries that place, so a group of equal keys larger than a
// rank's share is split between ranks at a position, and every rank still receives its
// records of that key in input order.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/run.hpp"
#include "gxsort/format.hpp"

namespace gxsort::distributed {

class Comm;

// Where a record stands among records of equal keys: its rank, run and place in the run.
struct Place {
  uint32_t rank = 0;
  uint32_t run = 0;
  uint64_t position = 0;
};

// A sample: a whole record (compared by compare_keys, whatever the format's key) and its place.
struct Sample {
  const unsigned char* record = nullptr;
  Place place;
};
// <0, 0, >0: by key, then by place.
int compare_samples(const Format& f, const Sample& a, const Sample& b);

// A rank's sorted runs as the splitters read them: RunRefs (in memory or in files), or a
// slice that stays on its device. read(run, index, count, dst) copies records
// [index, index + count) of run `run` into dst.
struct RunsView {
  std::vector<uint64_t> records;  // each run's records
  std::function<void(size_t run, uint64_t index, uint64_t count, unsigned char* dst)> read;
};
RunsView view_of(const std::vector<RunRef>& runs, size_t record_size);  // reads `runs` (kept alive)

// The samples of one rank's runs (rank `rank`): about `samples` spread over the runs by
// their sizes, at least one a run.
struct Sampled {
  std::string bytes;        // each sample's record followed by its place
  uint64_t runs = 0;        // runs with records (each has samples)
  uint64_t widest_gap = 0;  // the most records of a run up to and between its samples
};
Sampled take_samples(const Format& f, const RunsView& runs, uint32_t rank, uint64_t samples);
Sampled take_samples(const Format& f, const std::vector<RunRef>& runs, uint32_t rank, uint64_t samples);
// Parses the gathered samples of every rank (pointing into `blobs`), sorted.
std::vector<Sample> sorted_samples(const Format& f, const std::vector<std::string>& blobs);
// ranks - 1 splitters, evenly spaced among the sorted samples (none without samples).
std::vector<Sample> choose_splitters(const std::vector<Sample>& sorted, int ranks);

// The records of `run` (rank `rank`'s run `run_index`) that come before the splitter.
uint64_t cut_run(const Format& f, const RunsView& runs, uint32_t rank, uint32_t run_index, const Sample& splitter,
                 uint64_t lower);
uint64_t cut_run(const Format& f, const RunRef& run, uint32_t rank, uint32_t run_index, const Sample& splitter,
                 uint64_t lower);
// For each run, ranks + 1 cuts: run i's records for rank d are [cuts[i][d], cuts[i][d + 1]).
std::vector<std::vector<uint64_t>> cut_runs(const Format& f, const RunsView& runs, uint32_t rank,
                                            const std::vector<Sample>& splitters, int ranks);
std::vector<std::vector<uint64_t>> cut_runs(const Format& f, const std::vector<RunRef>& runs, uint32_t rank,
                                            const std::vector<Sample>& splitters, int ranks);

// The splitters of a job: each rank's samples gathered on every rank, which all choose
// the same splitters. Owns the gathered bytes the splitters point into.
struct Splitters {
  std::vector<std::string> blobs;
  std::vector<Sample> splitters;
  uint64_t samples = 0;  // every rank's together
};
Splitters agree_splitters(Comm& comm, const Format& f, const Sampled& mine);

// The most records any rank can receive (collective): regular sampling's bound. A rank's
// range holds at most ceil(samples / ranks) samples; each run gives it its records up to
// the samples just outside the range, at most (samples of the run inside + 1) gaps, so
// the range is at most widest_gap * (ceil(samples / ranks) + runs) records.
uint64_t splitter_bound(Comm& comm, const Splitters& s, const Sampled& mine);

}  // namespace gxsort::distributed
