// The ranks of a distributed job as threads of one process (distributed::Comm without
// MPI): the unit tests run the distributed sort's steps, and the whole sort, in every
// build, MPI or not. Every collective is: each rank leaves its bytes in its slot, all
// wait, each reads what it needs, all wait again (so no slot is overwritten while read).
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distributed/comm.hpp"

namespace gxsort_test {

class ThreadWorld {
 public:
  explicit ThreadWorld(int ranks) : ranks_(ranks), slots_(size_t(ranks)) {}
  int ranks() const { return ranks_; }
  void barrier() {
    std::unique_lock<std::mutex> l(m_);
    const uint64_t gen = generation_;
    if (++arrived_ == ranks_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(l, [&] { return generation_ != gen; });
    }
  }
  // Every rank's bytes, in rank order.
  std::vector<std::string> gather(int rank, const std::string& mine) {
    slots_[size_t(rank)] = mine;
    barrier();
    std::vector<std::string> all = slots_;
    barrier();
    return all;
  }
  // Runs fn(rank) on one thread per rank and waits for them all.
  void run(const std::function<void(int rank)>& fn) {
    std::vector<std::thread> t;
    for (int r = 0; r < ranks_; ++r) t.emplace_back(fn, r);
    for (auto& x : t) x.join();
  }

 private:
  int ranks_;
  std::vector<std::string> slots_;
  std::mutex m_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

class ThreadComm : public gxsort::distributed::Comm {
 public:
  ThreadComm(ThreadWorld& w, int rank) : w_(w), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return w_.ranks(); }
  int host_rank() const override { return rank_; }
  int host_size() const override { return w_.ranks(); }
  uint64_t allreduce(uint64_t value, Op op) override {
    uint64_t out = op == Op::min ? UINT64_MAX : 0;
    for (uint64_t v : allgather(value)) out = op == Op::sum ? out + v : op == Op::max ? std::max(out, v) : std::min(out, v);
    return out;
  }
  uint64_t exscan_sum(uint64_t value) override {
    const std::vector<uint64_t> all = allgather(value);
    uint64_t s = 0;
    for (int r = 0; r < rank_; ++r) s += all[size_t(r)];
    return s;
  }
  std::vector<uint64_t> allgather(uint64_t value) override {
    std::vector<uint64_t> out;
    for (const std::string& s : w_.gather(rank_, std::string(reinterpret_cast<const char*>(&value), 8))) {
      uint64_t v;
      std::memcpy(&v, s.data(), 8);
      out.push_back(v);
    }
    return out;
  }
  std::vector<std::string> allgatherv(const std::string& bytes) override { return w_.gather(rank_, bytes); }
  std::string broadcast(const std::string& bytes, int root) override { return w_.gather(rank_, bytes)[size_t(root)]; }
  using Comm::alltoallv;
  void alltoallv(const void* send, const std::vector<uint64_t>& send_counts, const std::vector<uint64_t>& send_displs,
                 void* recv, const std::vector<uint64_t>& recv_counts, const std::vector<uint64_t>& recv_displs,
                 size_t unit) override {
    // Each rank leaves the elements for rank d as its d-th piece: a count, then the bytes.
    std::string mine;
    for (size_t d = 0; d < send_counts.size(); ++d) {
      mine.append(reinterpret_cast<const char*>(&send_counts[d]), 8);
      if (send_counts[d]) mine.append(static_cast<const char*>(send) + send_displs[d] * unit, size_t(send_counts[d] * unit));
    }
    const std::vector<std::string> all = w_.gather(rank_, mine);
    for (size_t s = 0; s < all.size(); ++s) {
      size_t at = 0;
      uint64_t count = 0;
      for (int d = 0; d <= rank_; ++d) {
        std::memcpy(&count, all[s].data() + at, 8);
        if (d < rank_) at += 8 + size_t(count * unit);
      }
      if (count != recv_counts[s]) throw std::logic_error("alltoallv: the counts disagree");
      if (count) std::memcpy(static_cast<char*>(recv) + recv_displs[s] * unit, all[s].data() + at + 8, size_t(count * unit));
    }
  }
  void barrier() override { w_.barrier(); }
  [[noreturn]] void abort_job(int) override { std::terminate(); }

 private:
  ThreadWorld& w_;
  int rank_;
};

}  // namespace gxsort_test
