// The processes of a distributed job and the few collectives the distributed sort needs.
// The only implementation that talks to MPI is mpi_comm.cpp (built with GXSORT_MPI);
// everything else in distributed/ sees this interface, so the library builds without MPI
// and tests can run the jobs on a communicator of their own.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "gxsort/error.hpp"

namespace gxsort::distributed {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank among the ranks of its host (the GPU it takes), and how many share the host
  // (its share of the host's memory and cores).
  virtual int host_rank() const = 0;
  virtual int host_size() const = 0;

  enum class Op { sum, max, min };
  virtual uint64_t allreduce(uint64_t value, Op op) = 0;
  // The sum of the values of the ranks before this one (0 on rank 0).
  virtual uint64_t exscan_sum(uint64_t value) = 0;
  // Every rank's value, in rank order.
  virtual std::vector<uint64_t> allgather(uint64_t value) = 0;
  // Every rank's bytes, in rank order (the sizes may differ).
  virtual std::vector<std::string> allgatherv(const std::string& bytes) = 0;
  // Rank `root`'s bytes, on every rank.
  virtual std::string broadcast(const std::string& bytes, int root) = 0;
  // All-to-all of elements of `unit` bytes: send_counts[d] elements from element
  // send_displs[d] of `send` go to each rank d, recv_counts[s] from each rank s land at
  // element recv_displs[s] of `recv`. Counts and displacements are at most kMaxElements
  // (MPI's are ints): the caller cuts larger exchanges into rounds.
  virtual void alltoallv(const void* send, const std::vector<uint64_t>& send_counts,
                         const std::vector<uint64_t>& send_displs, void* recv, const std::vector<uint64_t>& recv_counts,
                         const std::vector<uint64_t>& recv_displs, size_t unit) = 0;
  virtual void barrier() = 0;
  // Ends every process of the job with exit status `code` (MPI_Abort); returns only
  // where it cannot (the caller exits then).
  virtual void abort_job(int code) = 0;

  static constexpr uint64_t kMaxElements = 0x7fffffff;

  // The same with each side's elements back to back in rank order.
  void alltoallv(const void* send, const std::vector<uint64_t>& send_counts, void* recv,
                 const std::vector<uint64_t>& recv_counts, size_t unit);
  // One uint64 to and from every rank: per_rank[d] goes to rank d; returns what each
  // rank sent this one, in rank order.
  std::vector<uint64_t> alltoall(const std::vector<uint64_t>& per_rank);

  // Runs `work` here and agrees with every other rank on how it went: when it threw on
  // any rank, it throws on every rank, so that each one unwinds (removing its temp files)
  // at the same point; the first rank that failed rethrows its own error, the others a
  // quiet one. failed_rank() then names that rank. Every rank must call it at the same
  // point, as any collective.
  void collectively(const std::function<void()>& work);
  // The first rank whose error an agreement saw (-1: none yet).
  int failed_rank() const { return failed_rank_; }

 private:
  int failed_rank_ = -1;
};

// What another rank's error throws on this one: it unwinds, quietly (the failing rank
// reports the error), with that rank's exit code.
class PeerFailed : public Error {
 public:
  PeerFailed(ExitCode code, int rank)
      : Error(code, "rank " + std::to_string(rank) + " failed"), rank_(rank) {}
  int rank() const { return rank_; }

 private:
  int rank_;
};

// The exit code an exception from the library maps to (the app's mapping: Error's code,
// else an I/O or resource error).
ExitCode exit_code_of(const std::exception_ptr& e);

}  // namespace gxsort::distributed
