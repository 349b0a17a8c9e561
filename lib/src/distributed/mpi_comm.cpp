// Comm over MPI: MPI_COMM_WORLD, its host-local split, and the collectives as MPI calls.
// The only file of gxsort that includes mpi.h: the plugin libgxsort-mpi.so, which
// load_mpi_comm opens (distributed/mpi_comm.hpp names its entry points).
#include "distributed/mpi_comm.hpp"

#include <mpi.h>

#include <map>
#include <type_traits>

namespace gxsort::distributed {
namespace {

// MPI counts and displacements are ints: every exchange is cut below that (Comm says so).
std::vector<int> as_ints(const std::vector<uint64_t>& v, const char* what) {
  std::vector<int> out;
  out.reserve(v.size());
  for (uint64_t x : v) {
    if (x > Comm::kMaxElements) throw Error(ExitCode::io, std::string("internal: an MPI ") + what + " past 2^31");
    out.push_back(int(x));
  }
  return out;
}

// Packed displacements of ints (allgatherv).
std::vector<int> displacements(const std::vector<int>& counts, const char* what) {
  std::vector<int> d(counts.size());
  uint64_t at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (at > Comm::kMaxElements) throw Error(ExitCode::io, std::string("internal: an MPI ") + what + " past 2^31");
    d[i] = int(at);
    at += uint64_t(counts[i]);
  }
  if (at > Comm::kMaxElements) throw Error(ExitCode::io, std::string("internal: an MPI ") + what + " past 2^31");
  return d;
}

MPI_Op mpi_op(Comm::Op op) { return op == Comm::Op::sum ? MPI_SUM : op == Comm::Op::max ? MPI_MAX : MPI_MIN; }

class MpiComm : public Comm {
 public:
  MpiComm(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_);
    MPI_Comm_rank(host_, &host_rank_);
    MPI_Comm_size(host_, &host_size_);
  }
  ~MpiComm() override {
    for (auto& t : types_) MPI_Type_free(&t.second);
    MPI_Comm_free(&host_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int host_rank() const override { return host_rank_; }
  int host_size() const override { return host_size_; }

  uint64_t allreduce(uint64_t value, Op op) override {
    uint64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, mpi_op(op), MPI_COMM_WORLD);
    return out;
  }
  uint64_t exscan_sum(uint64_t value) override {
    uint64_t out = 0;
    MPI_Exscan(&value, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return rank_ == 0 ? 0 : out;  // undefined on rank 0
  }
  std::vector<uint64_t> allgather(uint64_t value) override {
    std::vector<uint64_t> out(size_t(size_), 0);
    MPI_Allgather(&value, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    return out;
  }
  std::vector<std::string> allgatherv(const std::string& bytes) override {
    const std::vector<uint64_t> sizes = allgather(bytes.size());
    const std::vector<int> counts = as_ints(sizes, "allgather count");
    const std::vector<int> displs = displacements(counts, "allgather");
    std::string all(size_t(displs.back()) + size_t(counts.back()), '\0');
    MPI_Allgatherv(bytes.data(), int(bytes.size()), MPI_BYTE, &all[0], counts.data(), displs.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(size_t(displs[size_t(r)]), size_t(counts[size_t(r)])));
    return out;
  }
  std::string broadcast(const std::string& bytes, int root) override {
    uint64_t n = bytes.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
    std::string out = rank_ == root ? bytes : std::string(size_t(n), '\0');
    if (n > Comm::kMaxElements) throw Error(ExitCode::io, "internal: an MPI broadcast past 2^31 bytes");
    if (n) MPI_Bcast(&out[0], int(n), MPI_BYTE, root, MPI_COMM_WORLD);
    return out;
  }
  using Comm::alltoallv;
  void alltoallv(const void* send, const std::vector<uint64_t>& send_counts, const std::vector<uint64_t>& send_displs,
                 void* recv, const std::vector<uint64_t>& recv_counts, const std::vector<uint64_t>& recv_displs,
                 size_t unit) override {
    const std::vector<int> sc = as_ints(send_counts, "send count"), rc = as_ints(recv_counts, "receive count");
    const std::vector<int> sd = as_ints(send_displs, "send displacement"), rd = as_ints(recv_displs, "receive displacement");
    const MPI_Datatype t = unit_type(unit);
    MPI_Alltoallv(send, sc.data(), sd.data(), t, recv, rc.data(), rd.data(), t, MPI_COMM_WORLD);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  void abort_job(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }  // ends the job

 private:
  // A record of `unit` bytes as one MPI element: counts and displacements count records,
  // so an exchange of up to 2^31 records (not bytes) fits one call.
  MPI_Datatype unit_type(size_t unit) {
    auto it = types_.find(unit);
    if (it != types_.end()) return it->second;
    MPI_Datatype t;
    MPI_Type_contiguous(int(unit), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    types_[unit] = t;
    return t;
  }
  int rank_ = 0, size_ = 1, host_rank_ = 0, host_size_ = 1;
  MPI_Comm host_ = MPI_COMM_NULL;
  std::map<size_t, MPI_Datatype> types_;
};

}  // namespace

}  // namespace gxsort::distributed

// The plugin's entry points (the only symbols it exports: it is built with hidden visibility).
extern "C" __attribute__((visibility("default"))) const char* gxsort_mpi_plugin_version() { return GXSORT_VERSION; }
extern "C" __attribute__((visibility("default"))) gxsort::distributed::Comm* gxsort_make_mpi_comm(int* argc,
                                                                                                   char*** argv) {
  return new gxsort::distributed::MpiComm(argc, argv);
}
static_assert(std::is_same_v<decltype(gxsort_mpi_plugin_version), gxsort::distributed::MpiPluginVersionFn>);
static_assert(std::is_same_v<decltype(gxsort_make_mpi_comm), gxsort::distributed::MakeMpiCommFn>);
