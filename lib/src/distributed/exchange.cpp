#include "distributed/exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "distributed/comm.hpp"
#include "distributed/device_pass.hpp"
#include "io/space.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort::distributed {
namespace {

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t(0)); }

// One copy of a round: `count` records from record `first` of a run to byte `at` of the
// outgoing buffer.
struct Copy {
  uint64_t first, count;
  size_t run;
  size_t at;
};

// The records this rank sends: for each receiver, the pieces of its runs back to back.
class Outbox {
 public:
  Outbox(const std::vector<RunRef>& runs, const std::vector<std::vector<uint64_t>>& cuts, int ranks, size_t rs)
      : runs_(runs), cuts_(cuts), rs_(rs), totals_(records_for_ranks(cuts, size_t(ranks))) {}
  const std::vector<uint64_t>& totals() const { return totals_; }
  // The copies that put records [from[d], from[d] + count[d]) of each receiver's pieces
  // into a buffer, receiver after receiver.
  std::vector<Copy> copies(const std::vector<uint64_t>& from, const std::vector<uint64_t>& count) const {
    std::vector<Copy> out;
    size_t at = 0;
    for (size_t d = 0; d < totals_.size(); ++d) {
      uint64_t skip = from[d], left = count[d];
      for (size_t i = 0; i < runs_.size() && left; ++i) {
        const uint64_t piece = cuts_[i][d + 1] - cuts_[i][d];
        if (skip >= piece) { skip -= piece; continue; }
        const uint64_t n = std::min(piece - skip, left);
        out.push_back({cuts_[i][d] + skip, n, i, at});
        at += size_t(n * rs_);
        left -= n;
        skip = 0;
      }
    }
    return out;
  }

 private:
  const std::vector<RunRef>& runs_;
  const std::vector<std::vector<uint64_t>>& cuts_;
  size_t rs_;
  std::vector<uint64_t> totals_;
};

// Where received records go: the sender's pieces back to back, in memory or in its file.
class Inbox {
 public:
  // `totals`: the records each sender moves here (0 for this rank's own pieces when they
  // stay in place, described from `own` instead).
  Inbox(Received& r, const std::vector<uint64_t>& totals, size_t rs, unsigned threads, const Context& context,
        const std::vector<std::string>& tmp_dirs, const LocalRuns* own, size_t me)
      : r_(r), rs_(rs), base_(totals.size(), 0), own_(own), me_(me) {
    if (r.in_memory) {
      // Touched on every thread first: MPI's copy into fresh pages faulted them on one
      // thread (2-3 s a GiB on the CPU machine's VM); pageable, since the records go to
      // a device, if at all, through the pinned slots of distributed/device_pass.
      if (sum(totals)) r.memory = touched_host_buffer(size_t(sum(totals) * rs), threads);
      for (size_t s = 1; s < totals.size(); ++s) base_[s] = base_[s - 1] + totals[s - 1];
      return;
    }
    // Sender s's file goes to temp directory s mod dirs: the space for each first.
    std::vector<io::SpaceNeed> needs;
    for (size_t i = 0; i < tmp_dirs.size(); ++i) needs.push_back({tmp_dirs[i], 0, "records received"});
    for (size_t s = 0; s < totals.size(); ++s) needs[s % tmp_dirs.size()].bytes += totals[s] * rs;
    io::check_space(context, needs);
    r.files.resize(totals.size());
    for (size_t s = 0; s < totals.size(); ++s)
      if (totals[s])
        r.files[s] = std::make_shared<io::TempFile>(io::TempFile::create(context, tmp_dirs[s % tmp_dirs.size()], "recv"));
  }
  // Where sender s's records start in the receive area (in memory).
  uint64_t first(size_t sender) const { return base_[sender]; }
  void store(size_t sender, uint64_t first, const unsigned char* data, uint64_t count) const {
    if (count == 0) return;
    if (r_.in_memory) std::memcpy(r_.memory.data() + (base_[sender] + first) * rs_, data, size_t(count * rs_));
    else r_.files[sender]->file().write_at(data, size_t(count * rs_), first * rs_);
  }
  // The pieces: sender s's run i gave piece_records[s][i] records, in that order.
  void describe(const std::vector<std::vector<uint64_t>>& piece_records,
                const std::vector<std::vector<uint64_t>>& cuts) const {
    for (size_t s = 0; s < piece_records.size(); ++s) {
      if (s == me_ && own_) {  // kept in place: each of our runs' own piece
        for (size_t i = 0; i < own_->runs.size(); ++i) {
          const uint64_t n = cuts[i][s + 1] - cuts[i][s];
          if (n == 0) continue;
          if (own_->files.empty()) {
            RunRef ref;
            ref.records = n;
            ref.mem = own_->runs[i].mem + cuts[i][s] * rs_;
            ref.name = "this rank's sorted slice";
            r_.pieces.push_back(ref);
            continue;
          }
          TreeInput t = own_->files[i];  // its file owned by the piece (and merged by the tree)
          t.offset += cuts[i][s] * rs_;
          t.records = n;
          r_.file_pieces.push_back(t);
          r_.pieces.push_back(t.ref());
        }
        continue;
      }
      uint64_t at = 0;
      for (uint64_t n : piece_records[s]) {
        if (n == 0) continue;
        RunRef ref;
        ref.records = n;
        if (r_.in_memory) {
          ref.mem = r_.memory.data() + (base_[s] + at) * rs_;
          ref.name = "the records received from rank " + std::to_string(s);
        } else {
          TreeInput t;
          t.temp = r_.files[s];
          t.records = n;
          t.offset = at * rs_;
          r_.file_pieces.push_back(t);
          ref = t.ref();
        }
        r_.pieces.push_back(ref);
        at += n;
      }
    }
  }

 private:
  Received& r_;
  size_t rs_;
  std::vector<uint64_t> base_;
  const LocalRuns* own_;  // this rank's runs, its own pieces kept in place (or null)
  size_t me_;
};

// Each sender's piece sizes, run by run: every rank tells every other how many records
// of each of its runs it sends there.
std::vector<std::vector<uint64_t>> exchange_piece_sizes(Comm& comm, const std::vector<std::vector<uint64_t>>& cuts) {
  const size_t ranks = size_t(comm.size()), runs = cuts.size();
  std::vector<uint64_t> send;
  for (size_t d = 0; d < ranks; ++d)
    for (const auto& c : cuts) send.push_back(c[d + 1] - c[d]);
  const std::vector<uint64_t> their_runs = comm.allgather(runs);
  std::vector<uint64_t> got(size_t(sum(their_runs)));
  comm.alltoallv(send.data(), std::vector<uint64_t>(ranks, runs), got.data(), their_runs, sizeof(uint64_t));
  std::vector<std::vector<uint64_t>> sizes(ranks);
  size_t at = 0;
  for (size_t s = 0; s < ranks; ++s)
    for (uint64_t i = 0; i < their_runs[s]; ++i) sizes[s].push_back(got[at++]);
  return sizes;
}

// A round: each pair's share of its records, the records before it already moved.
struct Round {
  std::vector<uint64_t> from, count;
  Round(const std::vector<uint64_t>& totals, uint64_t rounds, uint64_t k) {
    for (uint64_t total : totals) {
      const uint64_t share = pair_share(total, rounds);
      from.push_back(std::min(total, k * share));
      count.push_back(std::min(total - from.back(), share));
    }
  }
};

std::vector<uint64_t> packed(const std::vector<uint64_t>& counts) {
  std::vector<uint64_t> at(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) at[i] = at[i - 1] + counts[i - 1];
  return at;
}

// The staging buffers hold the first round, the largest (every pair's share rounded up).
uint64_t first_round(const std::vector<uint64_t>& totals, uint64_t rounds) {
  uint64_t n = 0;
  for (uint64_t t : totals) n += pair_share(t, rounds);
  return n;
}

}  // namespace

std::vector<uint64_t> records_for_ranks(const std::vector<std::vector<uint64_t>>& cuts, size_t ranks) {
  std::vector<uint64_t> totals(ranks, 0);
  for (size_t d = 0; d < ranks; ++d)
    for (const auto& c : cuts) totals[d] += c[d + 1] - c[d];
  return totals;
}

namespace {

// How this rank's records move in the exchange: which of its own pieces stay where they
// are, whether MPI reads the sent run and writes the receive area in place, and the
// records it sends to and receives from each rank through MPI.
struct Ways {
  bool own_memory = false, own_files = false, send_in_place = false, recv_in_place = false;
  std::vector<uint64_t> sends, receives;
  bool own_in_place() const { return own_memory || own_files; }
};

Ways choose_ways(const LocalRuns& local, const Outbox& out, const std::vector<uint64_t>& incoming,
                 const RankShape& shape, size_t me, size_t rs, Received& r) {
  Ways w;
  // Runs in memory keep this rank's own pieces in place (1/ranks of the data, all of it
  // on one rank): they are not copied to a receive area through MPI.
  // (Where the others' pieces go to files, in-memory runs go there too: the merge tree
  // takes files.) Run files keep their own pieces too, as pieces of the files they are in,
  // except those written around the page cache (their reads must be aligned).
  w.own_memory = std::all_of(local.runs.begin(), local.runs.end(), [](const RunRef& x) { return x.mem; }) &&
                 receive_in_memory(shape, r.records - incoming[me], rs);
  w.own_files = !local.files.empty() && local.files.size() == local.runs.size() &&
                std::none_of(local.files.begin(), local.files.end(), [](const TreeInput& t) { return t.direct; });
  w.sends = out.totals();
  w.receives = incoming;
  if (w.own_in_place()) w.sends[me] = w.receives[me] = 0;
  // Own pieces in run files take the merge tree, planned for the fan-in and budget; the
  // others' pieces go to files for it too.
  r.in_memory = w.own_memory || (!w.own_files && receive_in_memory(shape, sum(w.receives), rs));
  // In place: MPI reads the one in-memory run and writes the receive area itself, where
  // their records fit its int displacements: no staging copies, and no staging buffers
  // to bound the rounds.
  w.send_in_place = local.runs.size() <= 1 && (local.runs.empty() || local.runs[0].mem) &&
                    local.records() <= Comm::kMaxElements;
  w.recv_in_place = r.in_memory && sum(w.receives) <= Comm::kMaxElements;
  return w;
}

// The exchange's rounds: each stores what arrived in the round before and stages (unless
// sent in place) this round's share of every receiver's pieces, then one MPI_Alltoallv.
void run_rounds(Comm& comm, const Ways& w, const Outbox& out, LocalRuns& local,
                const std::vector<std::vector<uint64_t>>& cuts, Inbox& inbox, size_t rs, unsigned threads,
                RankStats& st, Received& r) {
  const size_t ranks = size_t(comm.size());
  io::AlignedBuffer outgoing, arriving;
  comm.collectively([&] {
    if (!w.send_in_place && st.rounds) outgoing = io::AlignedBuffer(size_t(first_round(w.sends, st.rounds) * rs));
    if (!w.recv_in_place && st.rounds) arriving = io::AlignedBuffer(size_t(first_round(w.receives, st.rounds) * rs));
  });
  const unsigned char* send = w.send_in_place ? (local.runs.empty() ? nullptr : local.runs[0].mem) : outgoing.data();
  unsigned char* recv = w.recv_in_place ? r.memory.data() : arriving.data();
  Round last(w.receives, st.rounds, st.rounds);  // nothing arrived before round 0
  for (uint64_t k = 0; k <= st.rounds; ++k) {
    const Round sending(w.sends, st.rounds, k), receiving(w.receives, st.rounds, k);
    comm.collectively([&] {
      // The round before: what arrived goes to its place (a file write may fail here).
      if (!w.recv_in_place) {
        const std::vector<uint64_t> at = packed(last.count);
        parallel::parallel_for(ranks, threads, [&](size_t s) {
          inbox.store(s, last.from[s], arriving.data() + at[s] * rs, last.count[s]);
        });
      }
      if (k == st.rounds || w.send_in_place) return;
      // This round: each pair's share, from the runs into the outgoing buffer.
      const std::vector<Copy> copies = out.copies(sending.from, sending.count);
      parallel::parallel_for(copies.size(), threads, [&](size_t i) {
        const Copy& c = copies[i];
        const RunRef& run = local.runs[c.run];
        read_records(run, rs, c.first, c.count, outgoing.data() + c.at);
        // Sent: our own run file's pages are not needed again.
        if (run.file && run.discardable) run.file->discard(run.offset + c.first * rs, c.count * rs);
      });
    });
    if (k == st.rounds) break;
    std::vector<uint64_t> send_at = packed(sending.count), recv_at = packed(receiving.count);
    for (size_t d = 0; d < ranks && w.send_in_place; ++d)
      send_at[d] = (local.runs.empty() ? 0 : cuts[0][d]) + sending.from[d];
    for (size_t s = 0; s < ranks && w.recv_in_place; ++s) recv_at[s] = inbox.first(s) + receiving.from[s];
    comm.barrier();  // the wait for the slowest rank stays out of the MPI time below
    const auto m0 = std::chrono::steady_clock::now();
    comm.alltoallv(send, sending.count, send_at, recv, receiving.count, recv_at, rs);
    st.mpi_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - m0).count();
    last = receiving;
  }
}

}  // namespace

Received exchange(Comm& comm, const Format& f, LocalRuns& local, const std::vector<std::vector<uint64_t>>& cuts,
                  const RankShape& shape, const Context& context, const std::vector<std::string>& tmp_dirs,
                  unsigned threads, RankStats& st, uint64_t& round_records) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t rs = f.record_size, ranks = size_t(comm.size()), me = size_t(comm.rank());
  const Outbox out(local.runs, cuts, comm.size(), rs);
  const std::vector<uint64_t> incoming = comm.alltoall(out.totals());
  const std::vector<std::vector<uint64_t>> piece_records = exchange_piece_sizes(comm, cuts);
  Received r;
  r.records = sum(incoming);
  const Ways w = choose_ways(local, out, incoming, shape, me, rs, r);
  const uint64_t mine = w.send_in_place && w.recv_in_place ? Comm::kMaxElements - ranks : shape.round_records;
  round_records = comm.allreduce(mine, Comm::Op::min);
  st.rounds = comm.allreduce(exchange_rounds(std::max(sum(w.sends), sum(w.receives)), round_records), Comm::Op::max);
  st.received_in_memory = r.in_memory;
  st.kept = out.totals()[me];
  st.sent = sum(out.totals()) - st.kept;
  st.received = r.records - incoming[me];

  std::unique_ptr<Inbox> inbox;
  comm.collectively([&] {
    inbox = std::make_unique<Inbox>(r, w.receives, rs, threads, context, tmp_dirs, w.own_in_place() ? &local : nullptr, me);
  });
  run_rounds(comm, w, out, local, cuts, *inbox, rs, threads, st, r);
  inbox->describe(piece_records, cuts);
  if (w.own_memory) r.own = std::move(local.memory);  // the pieces kept in place point into it
  local.release();
  st.exchange_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gxsort::distributed
