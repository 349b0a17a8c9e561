// The page-cache floor of the distributed sort on one host (issue 19): each of G ranks
// reads its 1/G of the input, as a rank loads its slice (io::File::read_at_parallel,
// 64 MiB at a time into a reused buffer, as into a pinned slot), then writes as many
// bytes to its range of a new output file, as a rank writes its range (io::MappedRange,
// 64 MiB pieces). Each rank has the threads gxsort gives a rank (cores / ranks). No sort,
// no exchange, no device: what G ranks of the sort cannot beat, on this host, now.
//   mpirun -np G mpi_page_cache INPUT OUTPUT
// Rank 0 prints "ranks=G threads=T read_s=.. write_s=.. total_s=.." (slowest rank each;
// total_s from the first barrier to the last, the file's creation outside it). OUTPUT
// must not exist; it is removed at the end.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/file.hpp"
#include "io/mapped_file.hpp"

using namespace gxsort;

namespace {

double slowest(double mine) {
  double most = 0;
  MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return most;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np G mpi_page_cache INPUT OUTPUT\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string out_path = argv[2];
  const io::File in = io::File::open_read(argv[1]);
  const uint64_t total = in.size(), page = 4096;
  // Ranges cut at pages, as records would be: rank r's share starts at r/G of the file.
  auto start = [&](int r) { return r == ranks ? total : total / uint64_t(ranks) * uint64_t(r) / page * page; };
  const uint64_t first = start(rank), bytes = start(rank + 1) - first;
  const unsigned threads = unsigned(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN) / ranks));
  const size_t slot = size_t(64) << 20;
  std::vector<unsigned char> buffer(slot, 1);  // touched: no first-touch faults in the timing

  if (rank == 0) io::File::create_new(out_path);
  MPI_Barrier(MPI_COMM_WORLD);
  const io::File out = io::File::open_rw(out_path);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (uint64_t at = 0; at < bytes; at += slot)
    in.read_at_parallel(buffer.data(), size_t(std::min<uint64_t>(slot, bytes - at)), first + at, threads);
  const double t1 = MPI_Wtime();
  {
    io::MappedRange range(out, first, bytes, threads);
    for (uint64_t at = 0; at < bytes; at += slot) range.put(buffer.data(), at, std::min<uint64_t>(slot, bytes - at));
  }
  const double t2 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t3 = MPI_Wtime();
  const double read_s = slowest(t1 - t0), write_s = slowest(t2 - t1);
  if (rank == 0) {
    std::printf("ranks=%d threads=%u bytes=%llu read_s=%.3f write_s=%.3f total_s=%.3f\n", ranks, threads,
                (unsigned long long)total, read_s, write_s, t3 - t0);
    std::remove(out_path.c_str());
  }
  MPI_Finalize();
  return 0;
}
