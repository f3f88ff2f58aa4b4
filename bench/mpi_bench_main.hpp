#pragma once
// main() of the MPI benchmarks (mpi_bench, mpi_let_bench): MPI up, the
// arguments parsed on every rank, the CSV header from rank 0 when asked, the
// row; a rank that throws says so and ends the job.
#include <mpi.h>

#include <cstdio>
#include <exception>

namespace orrery::bench {

/// parse(argc, argv) -> Args with a bool `header`; row(args, rank, size).
template <class Parse, class Row>
int mpi_bench_main(int argc, char** argv, const char* name, const char* header, Parse parse, Row row) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto args = parse(argc, argv);
  if (args.header && rank == 0) std::printf("%s\n", header);
  try {
    row(args, rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: rank %d: %s\n", name, rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}

}  // namespace orrery::bench
