#pragma once
// The processes a run is spread over (docs/adr/0013): one process (the
// default, and the Python package's), or every rank of an MPI job. With
// gravity.mpi_layout = "replicated" each rank holds every particle and steps
// all of them; the force solve is split over the ranks by target and
// gathered (mpi::ReplicatedSolver), so every rank holds the same bits as one
// process would. With "distributed" each rank holds its domain's particles
// (distributed_run.cpp, docs/adr/0012). Rank 0 alone writes files and
// prints; whatever decides when to stop is agreed by all ranks, so they stop
// at the same step with one checkpoint. No MPI header; in a build without
// MPI, world() refuses.
#include <cstdint>
#include <memory>
#include <utility>

#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/io/run_control.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/let_walk.hpp"

namespace orrery::driver {

/// Rank r's block of N rows when the ranks hold the particles apart: [r N / K, (r + 1) N / K).
inline std::pair<std::int64_t, std::int64_t> rank_block(int rank, int ranks, std::int64_t n) {
  const auto at = [&](int r) { return n / ranks * r + n % ranks * r / ranks; };  // r N / K without overflow
  return {at(rank), at(rank + 1)};
}

class Ranks {
 public:
  /// One process.
  Ranks() = default;
  /// Every rank of MPI_COMM_WORLD, after mpi::initialize(). InputError in a
  /// build without MPI.
  static Ranks world();

  bool distributed() const { return distributed_; }
  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  /// Rank 0 writes the outputs (every rank holds the same particles) and prints.
  bool writes() const { return comm_.rank() == 0; }

  /// Rank 0's value, on every rank (e.g. a new run's random identity).
  std::int64_t from_writer(std::int64_t value) const;
  /// What every rank does after a step: the most urgent action any rank's
  /// RunControl asked for (none < checkpoint < checkpoint_and_stop).
  io::RunControl::Action agree(io::RunControl::Action mine) const;
  /// The run's force solver (gravity::make_solver); spread over the ranks
  /// when distributed, each rank on GPU (local rank mod the GPUs present)
  /// for a CUDA backend.
  template <class Real>
  std::unique_ptr<gravity::ForceSolver<Real>> solver(const gravity::GravityConfig& gravity) const;

  /// The ranks' communicator (an MPI run's collectives).
  const mpi::Communicator& comm() const { return comm_; }
  /// InputError unless the run may hold its particles apart
  /// (gravity.mpi_layout = "distributed", docs/adr/0012): the tree solver (CPU or GPU ranks), one
  /// softening for every particle (the global step or block steps); naming what is accepted.
  static void require_distributed(const gravity::GravityConfig& gravity);
  /// Refuses gravity.group_opening (docs/adr/0017) and gravity.list_walk
  /// (docs/adr/0019) under MPI: the ranks' split of the targets would change
  /// a target's group with K.
  static void refuse_target_groups(const gravity::GravityConfig& gravity);
  /// How each rank of the distributed layout walks its targets
  /// (mpi/let_walk.hpp): on the CPU (backend "cpu", or "auto" without a GPU),
  /// or on its GPU (local rank mod the GPUs present, selected here).
  template <class Real>
  std::shared_ptr<mpi::LetWalk<Real>> let_walk(const gravity::GravityConfig& gravity) const;

  /// The test seam of a failing rank: ORRERY_TEST_FAIL_RANK=<rank>:<step>
  /// makes that rank throw a RuntimeFailure after that step (the other ranks
  /// go on into the next collective, as they would after a real failure).
  void fail_if_injected(std::int64_t step) const;

 private:
  mpi::Communicator comm_;
  bool distributed_ = false;
};

extern template std::unique_ptr<gravity::ForceSolver<float>> Ranks::solver<float>(const gravity::GravityConfig&) const;
extern template std::unique_ptr<gravity::ForceSolver<double>> Ranks::solver<double>(const gravity::GravityConfig&) const;

}  // namespace orrery::driver
