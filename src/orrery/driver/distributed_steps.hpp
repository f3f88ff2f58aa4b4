#pragma once
// The kick-drift-kick leapfrog over a distributed tree (docs/adr/0012
// decision 4): each rank kicks and drifts only the particles of its domain
// (integrate/leapfrog.hpp's element-wise steps, the one process's bits),
// and each force solve first migrates the drifted particles to their new
// domains (mpi::DistributedTree::solve). The order of the steps is
// integrate::Simulation's (a first solve, then per step: kick dt/2, drift
// dt, solve reading the previous accelerations, kick dt/2), so a run has
// the bits of one process's Simulation with the CPU TreeSolver on any K.
#include <utility>

#include "orrery/integrate/leapfrog.hpp"
#include "orrery/mpi/distributed_tree.hpp"
#include "orrery/mpi/migrate.hpp"

namespace orrery::driver {

template <class Real>
class DistributedSteps {
 public:
  /// `mine`: this rank's share of the particles (any share, with their
  /// one-process indices). Collective: the first solve runs here, unless
  /// `restored` (a restart: mine.a holds the accelerations of the saved
  /// positions, which the first kick uses and the next solve reads as the
  /// previous ones, as Simulation::restore_accelerations does).
  DistributedSteps(mpi::RankParticles<Real> mine, const bh::TreeSolverConfig& config, mpi::Communicator comm, double dt,
                   bool restored = false)
      : tree_(config, comm), comm_(comm), particles_(std::move(mine)), dt_(dt), solved_(restored) {
    if (!restored) solve();
  }

  /// One step. Collective.
  void step() {
    const Real half = static_cast<Real>(0.5 * dt_);
    integrate::kick(particles_.p, particles_.a, half);
    integrate::drift(particles_.p, static_cast<Real>(dt_));
    solve();
    integrate::kick(particles_.p, particles_.a, half);
  }

  /// This rank's particles now (its domain's, by (key, index) at the last solve).
  const mpi::RankParticles<Real>& particles() const { return particles_; }
  const mpi::DistributedTree<Real>& tree() const { return tree_; }
  /// Every particle in one process's order on every rank (an output step's
  /// snapshot or checkpoint; mpi::gathered_in_index_order). Collective.
  mpi::RankParticles<Real> gathered() const { return mpi::gathered_in_index_order(particles_, comm_); }

 private:
  void solve() {
    gravity::SolveOptions options;
    options.potential = false;
    options.previous_accelerations = solved_;
    tree_.solve(particles_, options);
    solved_ = true;
  }

  mpi::DistributedTree<Real> tree_;
  mpi::Communicator comm_;
  mpi::RankParticles<Real> particles_;
  double dt_;
  bool solved_;
};

}  // namespace orrery::driver
