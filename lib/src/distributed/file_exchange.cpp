#include "distributed/file_exchange.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include "distributed/comm.hpp"
#include "engine/engine.hpp"

namespace gxsort::distributed {

namespace {

// A rank's run as the others read it: its file, where it starts, and its cuts.
struct SharedRun {
  std::string path;
  uint64_t offset = 0, records = 0;
  std::vector<uint64_t> cuts;  // records for rank d: [cuts[d], cuts[d + 1])
};

std::string encode_runs(const LocalRuns& local, const std::vector<std::vector<uint64_t>>& cuts) {
  std::ostringstream o;
  o << local.runs.size() << ' ';
  for (size_t i = 0; i < local.runs.size(); ++i) {
    const RunRef run = local.files[i].ref();
    const std::string path = std::filesystem::absolute(run.name).string();  // the others' working directories may differ
    o << path.size() << ' ' << path << ' ' << run.offset << ' ' << run.records << ' ' << cuts[i].size();
    for (uint64_t c : cuts[i]) o << ' ' << c;
    o << ' ';
  }
  return o.str();
}

std::vector<SharedRun> decode_runs(const std::string& bytes) {
  std::istringstream in(bytes);
  size_t runs = 0;
  in >> runs;
  std::vector<SharedRun> out(runs);
  for (SharedRun& r : out) {
    size_t length = 0, cuts = 0;
    in >> length;
    in.ignore(1);
    r.path.resize(length);
    in.read(&r.path[0], std::streamsize(length));
    in >> r.offset >> r.records >> cuts;
    r.cuts.resize(cuts);
    for (uint64_t& c : r.cuts) in >> c;
  }
  return out;
}

}  // namespace

std::optional<Received> exchange_through_files(Comm& comm, const Format& f, const LocalRuns& local,
                                               const std::vector<std::vector<uint64_t>>& cuts, RankStats& stats,
                                               long no_peer_files_rank) {
  const auto t0 = Clock::now();
  const bool all_files = local.runs.empty() || (local.files.size() == local.runs.size());
  if (comm.allreduce(all_files ? 1 : 0, Comm::Op::min) == 0) return std::nullopt;
  const std::vector<std::string> all = comm.allgatherv(encode_runs(local, cuts));
  const size_t me = size_t(comm.rank()), rs = f.record_size;
  Received rec;
  rec.in_memory = false;
  bool opened = true;
  comm.collectively([&] {
    if (long(me) == no_peer_files_rank) {
      opened = false;
      return;
    }
    std::map<std::string, std::shared_ptr<io::File>> files;  // one open file for its runs
    for (const std::string& rank_runs : all) {                // input order: rank, then run
      for (const SharedRun& run : decode_runs(rank_runs)) {
        const uint64_t first = run.cuts[me], n = run.cuts[me + 1] - first;
        if (n == 0) continue;
        std::shared_ptr<io::File>& file = files[run.path];
        try {
          if (!file) file = std::make_shared<io::File>(io::File::open_rw(run.path));  // rw: to punch it
        } catch (const Error&) {
          opened = false;  // not this rank's file system: every rank takes the MPI exchange
          return;
        }
        if (file->size() < run.offset + run.records * rs) {
          opened = false;  // another file by that name
          return;
        }
        TreeInput piece;
        piece.file = file;
        piece.offset = run.offset + first * rs;
        piece.records = n;
        // What the merge read is punched, as a run of its own: the output's pages reuse
        // them, and they are never written back. Only whole pages inside this rank's
        // piece go (engine/run.hpp), so the neighbouring ranks' pieces of the file stay.
        piece.discardable = true;
        rec.file_pieces.push_back(piece);
        rec.pieces.push_back(piece.ref());
        rec.records += n;
      }
    }
  });
  if (comm.allreduce(opened ? 1 : 0, Comm::Op::min) == 0) return std::nullopt;
  const std::vector<uint64_t> out = records_for_ranks(cuts, size_t(comm.size()));
  stats.kept = out[me];
  stats.sent = std::accumulate(out.begin(), out.end(), uint64_t(0)) - stats.kept;
  stats.received = rec.records - stats.kept;
  stats.received_in_memory = false;
  stats.rounds = 0;
  stats.exchange_seconds = since(t0);
  return rec;
}

}  // namespace gxsort::distributed
