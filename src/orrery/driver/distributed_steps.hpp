#pragma once
// The kick-drift-kick leapfrog over a distributed tree (docs/adr/0012
// decision 4): each rank kicks and drifts only the particles of its domain
// (integrate/leapfrog.hpp's element-wise steps, the one process's bits),
// and each force solve first migrates the drifted particles to their new
// domains (mpi::DistributedTree::solve). The solves are
// integrate::Simulation's, one for one: the first when the accelerations or
// potentials are first asked for, then per step kick dt/2, drift dt, a
// solve reading the previous accelerations (with the potentials when the
// step's outputs want them), kick dt/2; potentials asked for after that
// come from a solve that keeps the accelerations the run integrates with.
// So a run has the bits of one process's Simulation with the CPU
// TreeSolver on any K, outputs included. With use_block_steps, a step is
// one block step of DistributedBlockLeapfrog (integrate::Simulation's
// advance_block, one for one).
#include <cstdint>
#include <memory>
#include <utility>

#include "orrery/driver/distributed_block_steps.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/integrate/phase_timers.hpp"
#include "orrery/mpi/distributed_tree.hpp"
#include "orrery/mpi/migrate.hpp"

namespace orrery::driver {

template <class Real>
class DistributedSteps {
 public:
  /// `mine`: this rank's share of the particles (any share, with their
  /// one-process indices). `restored` (a restart): mine.a holds the
  /// accelerations of the saved positions, which the first kick uses and
  /// the next solve reads as the previous ones, as
  /// Simulation::restore_accelerations does.
  DistributedSteps(mpi::RankParticles<Real> mine, const bh::TreeSolverConfig& config, mpi::Communicator comm, double dt,
                   bool restored = false, mpi::DistributedOptions options = {},
                   std::shared_ptr<mpi::LetWalk<Real>> walk = nullptr)
      : tree_(config, comm, std::move(options), std::move(walk)),
        comm_(comm),
        particles_(std::move(mine)),
        dt_(dt),
        have_forces_(restored),
        have_previous_(restored) {}

  /// Integrates with block time steps from now on, dt the longest step.
  /// `restored_bins`: particles().bin holds a checkpoint's bins (checked);
  /// otherwise the first block step assigns them. Collective.
  void use_block_steps(const integrate::BlockStepConfig& config, bool restored_bins = false) {
    std::vector<std::uint64_t> n = {static_cast<std::uint64_t>(particles_.size())};
    comm_.sum(n);
    block_ = std::make_unique<DistributedBlockLeapfrog<Real>>(config, dt_, static_cast<std::int64_t>(n[0]));
    if (restored_bins) block_->restore_bins(particles_, comm_);
  }
  /// The block integrator (null with the global step).
  DistributedBlockLeapfrog<Real>* block_steps() { return block_.get(); }
  const DistributedBlockLeapfrog<Real>* block_steps() const { return block_.get(); }

  /// One step; with `potential` the solve after the drift computes the
  /// potentials too (the step's outputs want them). With block steps, one
  /// block step from `time` (the step number `step_count` before it, for the
  /// substep log). Collective.
  void step(bool potential = false, double time = 0, std::int64_t step_count = 0) {
    if (block_) {
      // The first block step assigns the bins from the evaluation at the
      // start, which the dynamical criterion needs with the potentials.
      if (block_->needs_potential() && !block_->has_bins())
        potentials();
      else
        accelerations();
      have_forces_ = false;
      block_->step(particles_, tree_, comm_, potential, time, step_count, timers_);
      // The last substep solved every particle.
      have_forces_ = have_previous_ = true;
      have_potential_ = potential || block_->needs_potential();
      return;
    }
    accelerations();
    const Real half = static_cast<Real>(0.5 * dt_);
    {
      auto timer = timers_.scope("kick");
      integrate::kick(particles_.p, particles_.a, half);
    }
    {
      auto timer = timers_.scope("drift");
      integrate::drift(particles_.p, static_cast<Real>(dt_));
    }
    have_forces_ = have_potential_ = false;
    solve(potential);
    auto timer = timers_.scope("kick");
    integrate::kick(particles_.p, particles_.a, half);
  }

  /// The accelerations at the current positions in particles().a (solved
  /// first when there are none). Collective.
  void accelerations() {
    if (!have_forces_) solve(false);
  }
  /// The potentials too (particles().a.potential). Collective.
  void potentials() {
    if (have_potential_) return;
    if (!have_forces_) {
      solve(true);
      return;
    }
    // Only the potentials are missing: a solve that keeps the accelerations
    // (with the relative opening its own may differ in the last bits from
    // those the run integrates with; Simulation solves into a copy).
    auto timer = timers_.scope("force");
    gravity::SolveOptions options;
    options.potential = true;
    options.previous_accelerations = have_previous_;
    tree_.solve(particles_, options, true);
    have_potential_ = true;
  }

  /// This rank's particles now (its domain's, by (key, index) at the last solve).
  const mpi::RankParticles<Real>& particles() const { return particles_; }
  const mpi::DistributedTree<Real>& tree() const { return tree_; }
  const mpi::Communicator& comm() const { return comm_; }
  const integrate::PhaseTimers& timers() const { return timers_; }
  integrate::PhaseTimers& timers() { return timers_; }
  /// Every particle in one process's order on every rank (tests; O(N) on
  /// every rank; mpi::gathered_in_index_order). Collective.
  mpi::RankParticles<Real> gathered() const { return mpi::gathered_in_index_order(particles_, comm_); }

 private:
  void solve(bool potential) {
    auto timer = timers_.scope("force");
    gravity::SolveOptions options;
    options.potential = potential;
    options.previous_accelerations = have_previous_;
    tree_.solve(particles_, options);
    have_forces_ = have_previous_ = true;
    have_potential_ = potential;
  }

  mpi::DistributedTree<Real> tree_;
  mpi::Communicator comm_;
  std::unique_ptr<DistributedBlockLeapfrog<Real>> block_;  // null with the global step
  mpi::RankParticles<Real> particles_;
  double dt_;
  integrate::PhaseTimers timers_;
  bool have_forces_;            // particles_.a holds the accelerations at the current positions
  bool have_potential_ = false;  // and the potentials
  bool have_previous_;          // particles_.a holds an evaluation of these particles (the next solve reads it)
};

}  // namespace orrery::driver
