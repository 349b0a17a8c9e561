#include "distributed/exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "distributed/comm.hpp"
#include "parallel/parallel_for.hpp"

namespace gxsort::distributed {
namespace {

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t(0)); }

// One copy of a round: `count` records from record `first` of a run, or into a sender's
// place, at byte `at` of a staging buffer.
struct Copy {
  size_t peer;
  uint64_t first, count;
  size_t run;
  size_t at;
};

// The records this rank sends: for each receiver, the pieces of its runs back to back.
class Outbox {
 public:
  Outbox(const std::vector<RunRef>& runs, const std::vector<std::vector<uint64_t>>& cuts, int ranks, size_t rs)
      : runs_(runs), cuts_(cuts), rs_(rs), totals_(size_t(ranks), 0) {
    for (size_t d = 0; d < totals_.size(); ++d)
      for (const auto& c : cuts_) totals_[d] += c[d + 1] - c[d];
  }
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
        out.push_back({d, cuts_[i][d] + skip, n, i, at});
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
  Inbox(Received& r, const std::vector<uint64_t>& totals, size_t rs, Backend& backend,
        const std::vector<std::string>& tmp_dirs)
      : r_(r), rs_(rs), base_(totals.size(), 0) {
    if (r.in_memory) {
      if (sum(totals)) r.memory = backend.allocate_host(size_t(sum(totals) * rs));
      for (size_t s = 1; s < totals.size(); ++s) base_[s] = base_[s - 1] + totals[s - 1];
      return;
    }
    r.files.resize(totals.size());
    for (size_t s = 0; s < totals.size(); ++s)
      if (totals[s])
        r.files[s] = std::make_shared<io::TempFile>(io::TempFile::create(tmp_dirs[s % tmp_dirs.size()], "recv"));
  }
  void store(size_t sender, uint64_t first, const unsigned char* data, uint64_t count) const {
    if (count == 0) return;
    if (r_.in_memory) std::memcpy(r_.memory.data() + (base_[sender] + first) * rs_, data, size_t(count * rs_));
    else r_.files[sender]->file().write_at(data, size_t(count * rs_), first * rs_);
  }
  // The pieces: sender s's run i gave piece_records[s][i] records, in that order.
  void describe(const std::vector<std::vector<uint64_t>>& piece_records) const {
    for (size_t s = 0; s < piece_records.size(); ++s) {
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

}  // namespace

Received exchange(Comm& comm, const Format& f, LocalRuns& local, const std::vector<std::vector<uint64_t>>& cuts,
                  const RankShape& shape, Backend& backend, const std::vector<std::string>& tmp_dirs, unsigned threads,
                  RankStats& st, uint64_t& round_records) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t rs = f.record_size, ranks = size_t(comm.size()), me = size_t(comm.rank());
  const Outbox out(local.runs, cuts, comm.size(), rs);
  const std::vector<uint64_t> incoming = comm.alltoall(out.totals());
  const std::vector<std::vector<uint64_t>> piece_records = exchange_piece_sizes(comm, cuts);
  Received r;
  r.records = sum(incoming);
  r.in_memory = receive_in_memory(shape, r.records, rs);
  round_records = comm.allreduce(shape.round_records, Comm::Op::min);
  st.rounds = comm.allreduce(exchange_rounds(std::max(sum(out.totals()), r.records), round_records), Comm::Op::max);
  st.received_in_memory = r.in_memory;
  st.kept = out.totals()[me];
  st.sent = sum(out.totals()) - st.kept;
  st.received = r.records - incoming[me];

  // The staging buffers hold the first round, the largest (every pair's share rounded
  // up): at most round_records + ranks records.
  uint64_t first_out = 0, first_in = 0;
  for (size_t d = 0; d < ranks; ++d) {
    first_out += pair_share(out.totals()[d], st.rounds);
    first_in += pair_share(incoming[d], st.rounds);
  }
  std::unique_ptr<Inbox> inbox;
  io::AlignedBuffer outgoing, arriving;
  comm.collectively([&] {
    inbox = std::make_unique<Inbox>(r, incoming, rs, backend, tmp_dirs);
    if (first_out) outgoing = io::AlignedBuffer(size_t(first_out * rs));
    if (first_in) arriving = io::AlignedBuffer(size_t(first_in * rs));
  });
  std::vector<uint64_t> send_from(ranks), send_count(ranks), recv_from(ranks), recv_count(ranks, 0);
  for (uint64_t k = 0; k <= st.rounds; ++k) {
    comm.collectively([&] {
      // The round before: what arrived goes to its place (a file write may fail here).
      std::vector<Copy> stores;
      size_t at = 0;
      for (size_t s = 0; s < ranks; ++s) {
        if (recv_count[s]) stores.push_back({s, recv_from[s], recv_count[s], 0, at});
        at += size_t(recv_count[s] * rs);
      }
      parallel::parallel_for(stores.size(), threads, [&](size_t i) {
        inbox->store(stores[i].peer, stores[i].first, arriving.data() + stores[i].at, stores[i].count);
      });
      if (k == st.rounds) return;
      // This round: each pair's share, from the runs into the outgoing buffer.
      for (size_t d = 0; d < ranks; ++d) {
        const uint64_t share = pair_share(out.totals()[d], st.rounds);
        send_from[d] = std::min(out.totals()[d], k * share);
        send_count[d] = std::min(out.totals()[d] - send_from[d], share);
        const uint64_t their = pair_share(incoming[d], st.rounds);
        recv_from[d] = std::min(incoming[d], k * their);
        recv_count[d] = std::min(incoming[d] - recv_from[d], their);
      }
      const std::vector<Copy> copies = out.copies(send_from, send_count);
      parallel::parallel_for(copies.size(), threads, [&](size_t i) {
        const Copy& c = copies[i];
        const RunRef& run = local.runs[c.run];
        read_records(run, rs, c.first, c.count, outgoing.data() + c.at);
        // Sent: our own run file's pages are not needed again.
        if (run.file && run.discardable) run.file->discard(run.offset + c.first * rs, c.count * rs);
      });
    });
    if (k == st.rounds) break;
    const auto m0 = std::chrono::steady_clock::now();
    comm.alltoallv(outgoing.data(), send_count, arriving.data(), recv_count, rs);
    st.mpi_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - m0).count();
  }
  local.release();
  inbox->describe(piece_records);
  st.exchange_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gxsort::distributed
