// MPI's own all-to-all rate: the floor of the distributed sort's exchange, measured in the
// same job layout (tools/bench/mpi_sort.sh runs it beside the sort). Every rank sends
// every rank (itself too, as the sort's exchange does) an equal share of `round` bytes
// per MPI_Alltoallv call, in elements of `record` bytes, until `total` bytes per rank
// were sent; rank 0 prints the per-rank rate of the bytes that went to other ranks.
//   mpirun -np N mpi_alltoall [round_bytes [total_bytes [record_bytes]]]
//   (defaults 64 MiB, 1 GiB, 8)
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const uint64_t round = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : uint64_t(64) << 20;
  const uint64_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : uint64_t(1) << 30;
  const int record = argc > 3 ? std::atoi(argv[3]) : 8;
  const int per_pair = int(round / uint64_t(record) / uint64_t(ranks));
  if (per_pair < 1) {
    if (rank == 0) std::fprintf(stderr, "mpi_alltoall: a round of %llu bytes is less than a record per rank\n",
                                (unsigned long long)round);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype type;
  MPI_Type_contiguous(record, MPI_BYTE, &type);
  MPI_Type_commit(&type);
  const size_t bytes = size_t(per_pair) * size_t(record) * size_t(ranks);
  std::vector<unsigned char> send(bytes), recv(bytes);
  std::memset(send.data(), rank, bytes);  // touched: no first-touch faults in the timing
  std::memset(recv.data(), 0, bytes);
  std::vector<int> counts(static_cast<size_t>(ranks), per_pair);
  std::vector<int> displs(static_cast<size_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r) displs[size_t(r)] = r * per_pair;
  auto call = [&] {
    MPI_Alltoallv(send.data(), counts.data(), displs.data(), type, recv.data(), counts.data(), displs.data(), type,
                  MPI_COMM_WORLD);
  };
  call();  // warm up: connections and registrations
  const uint64_t calls = (total + bytes - 1) / bytes;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (uint64_t i = 0; i < calls; ++i) call();
  MPI_Barrier(MPI_COMM_WORLD);
  const double seconds = MPI_Wtime() - t0;
  const double to_others = double(bytes) * double(ranks - 1) / double(ranks) * double(calls);
  if (rank == 0)
    std::printf("alltoall ranks=%d round_bytes=%zu calls=%llu seconds=%.4f per_rank_mb_s=%.1f\n", ranks, bytes,
                (unsigned long long)calls, seconds, seconds > 0 ? to_others / seconds / 1e6 : 0.0);
  MPI_Type_free(&type);
  MPI_Finalize();
  return 0;
}
