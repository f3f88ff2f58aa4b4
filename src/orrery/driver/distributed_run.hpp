#pragma once
// driver::run with gravity.mpi_layout = "distributed" under MPI (docs/adr/0012):
// each rank holds only its domain's particles, O(N/K) plus the nodes and
// particles the others send for its walks (gravity.max_particles_per_rank
// caps them), and steps them (DistributedSteps). Outputs read the
// particles in one process's order in pieces on rank 0 (distributed_outputs.hpp):
// the diagnostics' sums, snapshots and checkpoints have one process's bits
// and bytes for every K, and no rank holds all particles for them. A
// restart reads each rank's block of rows of the checkpoint (on any K); a new
// run's initial conditions are made (or read) whole on every rank and cut to
// its block: O(N) on each rank at the start, once, before the first solve.
#include <functional>

#include "orrery/driver/run.hpp"

namespace orrery::driver {

/// driver::run's contract (collective over MPI_COMM_WORLD).
RunSummary run_distributed(const integrate::RunConfig& config, const RunOptions& options,
                           const std::function<void(const integrate::Progress&)>& on_progress);

}  // namespace orrery::driver
