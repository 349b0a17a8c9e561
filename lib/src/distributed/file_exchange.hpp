// The exchange of run files between the ranks of one host: each rank reads its pieces of
// every rank's run files in place, through the file system they share (the -T
// directories of one host). The records cross no MPI call and no receive file: the
// merge reads each of them once, as a one-process external sort reads its runs, where
// the MPI exchange reads them, sends them and writes them to a receive file first.
#pragma once
#include <optional>
#include <vector>

#include "distributed/exchange.hpp"

namespace gxsort::distributed {

// This rank's pieces of every rank's runs (`cuts` of its own runs, as for exchange()), in
// input order (rank, then run), as the pieces of files it opened by path; nothing where
// some rank has runs that are not all in files, or cannot open another's (ranks in
// containers with their own /tmp): every rank then takes exchange(). `local` is not
// released: its files must stay until every rank merged (the agreement after the merge).
// Tests: rank `no_peer_files_rank` acts as one that cannot open the others' files
// (TestHooks::no_peer_files_rank), so that the fallback runs on one machine.
std::optional<Received> exchange_through_files(Comm& comm, const Format& f, const LocalRuns& local,
                                               const std::vector<std::vector<uint64_t>>& cuts, RankStats& stats,
                                               long no_peer_files_rank = -1);

}  // namespace gxsort::distributed
