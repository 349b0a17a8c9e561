#include "distributed/comm.hpp"

#include <algorithm>

namespace gxsort::distributed {

namespace {
std::vector<uint64_t> packed(const std::vector<uint64_t>& counts) {
  std::vector<uint64_t> at(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) at[i] = at[i - 1] + counts[i - 1];
  return at;
}
}  // namespace

void Comm::alltoallv(const void* send, const std::vector<uint64_t>& send_counts, void* recv,
                     const std::vector<uint64_t>& recv_counts, size_t unit) {
  alltoallv(send, send_counts, packed(send_counts), recv, recv_counts, packed(recv_counts), unit);
}

std::vector<uint64_t> Comm::alltoall(const std::vector<uint64_t>& per_rank) {
  const std::vector<uint64_t> ones(size_t(size()), 1);
  std::vector<uint64_t> got(per_rank.size());
  alltoallv(per_rank.data(), ones, got.data(), ones, sizeof(uint64_t));
  return got;
}

ExitCode exit_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.code();
  } catch (...) {
    return ExitCode::io;  // out of memory and the like, as main() maps them
  }
}

void Comm::collectively(const std::function<void()>& work) {
  std::exception_ptr mine;
  try {
    work();
  } catch (...) {
    mine = std::current_exception();
  }
  // Each rank's exit code (0: it went well); the first non-zero one is the job's.
  const std::vector<uint64_t> codes = allgather(mine ? std::max<uint64_t>(1, uint64_t(exit_code_of(mine))) : 0);
  for (size_t r = 0; r < codes.size(); ++r) {
    if (codes[r] == 0) continue;
    failed_rank_ = int(r);
    if (int(r) == rank()) std::rethrow_exception(mine);
    throw PeerFailed(ExitCode(int(codes[r])), int(r));
  }
}

}  // namespace gxsort::distributed
