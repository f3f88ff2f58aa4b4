#pragma once
// The distributed tree behind the ForceSolver interface (gravity.mpi_layout =
// "distributed", docs/adr/0012), so that `orrery run` and its outputs use it
// unchanged: every rank passes every particle (as under part 1's layout),
// takes every K-th as its share, solves with mpi::DistributedTree (which
// migrates them to their domains) and gathers every result in the caller's
// order. The run's state stays replicated on this path (O(N) per rank): what
// it adds to part 1 is the distributed tree and LET inside the solve; the run
// that holds O(N/K) is driver::DistributedSteps.
#include <memory>
#include <string>

#include "orrery/bh/tree_config.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/distributed_tree.hpp"

namespace orrery::mpi {

template <class Real>
class DistributedSolver final : public gravity::ForceSolver<Real> {
 public:
  /// `walk` as DistributedTree's (null: the CPU's); `name` the one-process
  /// solver whose bits it computes (null: the CPU tree solver's).
  DistributedSolver(const bh::TreeSolverConfig& config, Communicator comm,
                    std::shared_ptr<LetWalk<Real>> walk = nullptr, std::string name = {});
  std::string name() const override;
  /// Every source is a target; a subset or points is refused by the base
  /// class with an InputError naming the solvers that take them.
  using gravity::ForceSolver<Real>::solve;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const gravity::SolveOptions& options = {}) override;

 private:
  Communicator comm_;
  DistributedTree<Real> tree_;
  std::string name_;
};

}  // namespace orrery::mpi
