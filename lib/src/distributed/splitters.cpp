#include "distributed/splitters.hpp"

#include <algorithm>
#include <cstring>

#include "distributed/comm.hpp"
#include "distributed/shape.hpp"

namespace gxsort::distributed {

int compare_samples(const Format& f, const Sample& a, const Sample& b) {
  const int c = compare_keys(f, a.record, b.record);
  if (c != 0) return c;
  if (a.place.rank != b.place.rank) return a.place.rank < b.place.rank ? -1 : 1;
  if (a.place.run != b.place.run) return a.place.run < b.place.run ? -1 : 1;
  if (a.place.position != b.place.position) return a.place.position < b.place.position ? -1 : 1;
  return 0;
}

RunsView view_of(const std::vector<RunRef>& runs, size_t record_size) {
  RunsView v;
  for (const RunRef& r : runs) v.records.push_back(r.records);
  v.read = [&runs, record_size](size_t run, uint64_t index, uint64_t count, unsigned char* dst) {
    read_records(runs[run], record_size, index, count, dst);
  };
  return v;
}

Sampled take_samples(const Format& f, const std::vector<RunRef>& runs, uint32_t rank, uint64_t samples) {
  return take_samples(f, view_of(runs, f.record_size), rank, samples);
}

Sampled take_samples(const Format& f, const RunsView& runs, uint32_t rank, uint64_t samples) {
  const size_t rs = f.record_size;
  uint64_t total = 0;
  for (uint64_t r : runs.records) total += r;
  Sampled out;
  std::vector<unsigned char> rec(rs);
  for (size_t i = 0; i < runs.records.size(); ++i) {
    const uint64_t n = runs.records[i];
    if (n == 0) continue;
    // Each run its share of the samples, at least one (the bound counts every run's gap).
    const uint64_t share = std::min(n, std::max<uint64_t>(1, uint64_t((unsigned __int128)samples * n / total)));
    for (uint64_t pos : sample_positions(n, share)) {
      runs.read(i, pos, 1, rec.data());
      const Place place{rank, uint32_t(i), pos};
      out.bytes.append(reinterpret_cast<const char*>(rec.data()), rs);
      out.bytes.append(reinterpret_cast<const char*>(&place), sizeof place);
    }
    ++out.runs;
    out.widest_gap = std::max(out.widest_gap, (n + share - 1) / share);
  }
  return out;
}

std::vector<Sample> sorted_samples(const Format& f, const std::vector<std::string>& blobs) {
  const size_t entry = f.record_size + sizeof(Place);
  std::vector<Sample> all;
  for (const std::string& b : blobs)
    for (size_t at = 0; at + entry <= b.size(); at += entry) {
      Sample s;
      s.record = reinterpret_cast<const unsigned char*>(b.data() + at);
      std::memcpy(&s.place, b.data() + at + f.record_size, sizeof(Place));
      all.push_back(s);
    }
  // Places are unique: the order is total, so every rank sorts to the same sequence.
  std::sort(all.begin(), all.end(), [&](const Sample& a, const Sample& b) { return compare_samples(f, a, b) < 0; });
  return all;
}

std::vector<Sample> choose_splitters(const std::vector<Sample>& sorted, int ranks) {
  std::vector<Sample> s;
  if (sorted.empty()) return s;
  for (int d = 1; d < ranks; ++d) s.push_back(sorted[size_t(uint64_t(sorted.size()) * unsigned(d) / unsigned(ranks))]);
  return s;
}

uint64_t cut_run(const Format& f, const RunRef& run, uint32_t rank, uint32_t run_index, const Sample& splitter,
                 uint64_t lower) {
  RunsView v;  // the run at its index; only its entry is read
  v.records.assign(size_t(run_index) + 1, 0);
  v.records[run_index] = run.records;
  v.read = [&run, &f](size_t, uint64_t index, uint64_t count, unsigned char* dst) {
    read_records(run, f.record_size, index, count, dst);
  };
  return cut_run(f, v, rank, run_index, splitter, lower);
}

uint64_t cut_run(const Format& f, const RunsView& runs, uint32_t rank, uint32_t run_index, const Sample& splitter,
                 uint64_t lower) {
  const Place& at = splitter.place;
  if (at.rank == rank && at.run == run_index) return at.position;  // the splitter is this run's record
  // Records of the splitter's key come before it in an earlier run, after it in a later one.
  const bool earlier = rank < at.rank || (rank == at.rank && run_index < at.run);
  std::vector<unsigned char> buf(f.record_size);
  uint64_t lo = lower, hi = runs.records[run_index];  // the answer lies in [lo, hi]
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    runs.read(run_index, mid, 1, buf.data());
    const int c = compare_keys(f, buf.data(), splitter.record);
    if (c < 0 || (c == 0 && earlier)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

std::vector<std::vector<uint64_t>> cut_runs(const Format& f, const std::vector<RunRef>& runs, uint32_t rank,
                                            const std::vector<Sample>& splitters, int ranks) {
  return cut_runs(f, view_of(runs, f.record_size), rank, splitters, ranks);
}

std::vector<std::vector<uint64_t>> cut_runs(const Format& f, const RunsView& runs, uint32_t rank,
                                            const std::vector<Sample>& splitters, int ranks) {
  std::vector<std::vector<uint64_t>> cuts(runs.records.size());
  for (size_t i = 0; i < cuts.size(); ++i) {
    std::vector<uint64_t>& c = cuts[i];
    const uint64_t n = runs.records[i];
    c.assign(size_t(ranks) + 1, 0);
    c[size_t(ranks)] = n;
    // Without splitters (no samples anywhere: no records) everything stays at 0.
    for (size_t d = 1; d < size_t(ranks); ++d)
      c[d] = splitters.empty() ? n : cut_run(f, runs, rank, uint32_t(i), splitters[d - 1], c[d - 1]);
  }
  return cuts;
}

Splitters agree_splitters(Comm& comm, const Format& f, const Sampled& mine) {
  Splitters s;
  s.blobs = comm.allgatherv(mine.bytes);
  const std::vector<Sample> sorted = sorted_samples(f, s.blobs);
  s.samples = sorted.size();
  s.splitters = choose_splitters(sorted, comm.size());
  return s;
}

uint64_t splitter_bound(Comm& comm, const Splitters& s, const Sampled& mine) {
  const uint64_t gap = comm.allreduce(mine.widest_gap, Comm::Op::max);
  const uint64_t runs = comm.allreduce(mine.runs, Comm::Op::sum);
  const uint64_t ranks = uint64_t(comm.size());
  return gap * ((s.samples + ranks - 1) / ranks + runs);
}

}  // namespace gxsort::distributed
