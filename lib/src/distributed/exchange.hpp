// The exchange of a distributed sort: every rank sends each other rank the records of
// its runs between that rank's splitters, with MPI_Alltoallv in rounds. A round moves at
// most round_records (+ one record per rank) from and to each rank, each pair its share
// of the rounds, through two staging buffers, so the exchange never holds more than the
// budget gave them; counts are records (one MPI element each), never past 2^31. What a
// rank receives is held in memory when it fits beside what it holds, else written to a
// temp file per sender. Every round agrees on failures first (Comm::collectively): an
// error on one rank stops every rank between rounds.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "distributed/shape.hpp"
#include "gxsort/gxsort.hpp"
#include "distributed/slice.hpp"

namespace gxsort::distributed {

class Comm;

// What a rank received: one piece of each run of each rank, in input order (by rank, then
// run), each sorted. A rank whose runs are in memory keeps its own pieces where they are
// (`own`, the sorted slice): they never pass through MPI or the receive area.
struct Received {
  HostBuffer own;                                     // the rank's own runs, when kept in place
  HostBuffer memory;                                  // every other piece back to back, or
  std::vector<std::shared_ptr<io::TempFile>> files;   // a file per sender (pieces back to back)
  std::vector<TreeInput> file_pieces;                 // the pieces in those files
  std::vector<RunRef> pieces;                         // every non-empty piece, in input order
  uint64_t records = 0;
  bool in_memory = true;
};

// The records of this rank's runs that go to each of `ranks` ranks: for rank d, the sum
// over runs i of cuts[i][d + 1] - cuts[i][d].
std::vector<uint64_t> records_for_ranks(const std::vector<std::vector<uint64_t>>& cuts, size_t ranks);

// `cuts[i]`: run i's records for rank d are [cuts[i][d], cuts[i][d + 1]). The runs of
// `local` are released (files removed) once sent. Fills the exchange's part of `stats`
// (records sent, received and kept, rounds, seconds, of which in MPI) and returns the
// records a round moved at most from or to one rank. `context`: the temp files' (test hooks).
Received exchange(Comm& comm, const Format& f, LocalRuns& local, const std::vector<std::vector<uint64_t>>& cuts,
                  const RankShape& shape, const Context& context, const std::vector<std::string>& tmp_dirs, unsigned threads,
                  RankStats& stats, uint64_t& round_records);

}  // namespace gxsort::distributed
