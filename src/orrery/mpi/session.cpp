#include "orrery/mpi/session.hpp"

#include <mpi.h>

#include "orrery/core/error.hpp"

namespace orrery::mpi {

void initialize() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw EnvironmentError("MPI_Init_thread failed; accepted: a working MPI installation (mpirun -np K orrery run ...)");
}

bool active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void finalize() {
  if (active()) MPI_Finalize();
}

namespace {
int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
}  // namespace

void abort_job(int status) {
  if (!active()) return;
  if (world_size() == 1) {
    MPI_Finalize();
    return;
  }
  MPI_Abort(MPI_COMM_WORLD, status);
}

std::string rank_prefix() {
  if (!active()) return {};
  const int size = world_size();
  if (size == 1) return {};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return "rank " + std::to_string(rank) + " of " + std::to_string(size) + ": ";
}

}  // namespace orrery::mpi
