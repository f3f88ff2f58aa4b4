#pragma once
// Kick-drift-kick leapfrog with power-of-two time bins on the host
// (integration.kind = "block"; GADGET-4's hierarchical scheme). One call of
// step() integrates one block step of dt_max, from one synchronisation point
// (every particle's step ends there, velocities and positions at the same
// time) to the next, in substeps:
//
//   opening half kick of every particle, with its own bin's dt/2
//   repeat until the block step's end:
//     drift every particle to the end of the shortest step now running
//     (the deepest occupied bin's); the particles whose step ends there are
//     active: the solver walks them as targets against a tree over every
//     (drifted) particle; closing half kick of the active ones with their new
//     accelerations; each picks its next bin from its criterion
//     (step_criterion.hpp) -- a shorter step at once, a longer one only
//     where both bins end (time_bins.hpp) -- and, unless the block step ends
//     here, gets its next opening half kick.
//
// Kicks are not merged across a step boundary (closing then opening, two
// fmas): with every particle in bin 0 a block step is then the global
// step of Simulation, bit for bit (the kick and drift of leapfrog.hpp, the
// solve of every target). The bins are state: they must survive a restart
// (io/checkpoint). Deterministic on any thread count: the active set is
// found by one in-order scan, and each solve is (force_solver.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/integrate/phase_timers.hpp"
#include "orrery/integrate/step_criterion.hpp"
#include "orrery/integrate/time_bins.hpp"

namespace orrery::integrate {

/// The parameters of block steps; dt_max is the Simulation's dt.
struct BlockStepConfig {
  StepRule rule;
  double dt_min = 1e-7;  // > 0, <= dt_max: the shortest step a particle may take
};

/// The deepest bin whose step dt_max / 2^k is >= dt_min. InputError naming
/// integration.dt_min when dt_min is not in (0, dt_max] or the bins would be
/// more than kMaxTimeBins deep.
int deepest_bin(double dt_max, double dt_min);

/// Checks the parameters (InputError naming the key: integration.dt_min as
/// deepest_bin does, integration.eta, and gravity.softening = 0 with the
/// softening criterion) and returns the deepest bin.
int check_block_steps(const BlockStepConfig& config, double dt_max);

/// Each bin's half step, half[k] = Real(0.5 * dt_max / 2^k) (the global
/// step's Real(0.5 * dt)): the kicks of the host and the device integrators.
template <class Real>
std::vector<Real> half_steps(double dt_max, int deepest);

/// The InputError of particle i (id, position, acceleration at `time`)
/// whose criterion asks for `dt`, a step the bins do not hold: shorter than
/// the deepest bin's (integration.dt_min) or not a number > 0. Shared by the
/// host and the device integrators, so both name the particle alike.
template <class Real>
[[noreturn]] void throw_step_outside_bins(const BlockStepConfig& config, double dt_max, int deepest, std::int64_t i,
                                          std::uint64_t id, double time, Real x, Real y, Real z, Real ax, Real ay,
                                          Real az, double dt);

/// Whether a solver phase is the walk's: its name says so ("walk",
/// "bootstrap walk", the direct solvers' "direct"); every other phase (keys,
/// sort, topology, moments, relative scales, scatter) is the tree's build and
/// upkeep (Substep::walk_seconds, build_seconds).
bool is_walk_phase(const std::string& name);

/// What one substep did (integration log, substeps.csv).
struct Substep {
  std::int64_t block_step = 0;   // the Simulation step this substep belongs to (the one being completed)
  double time = 0;               // simulated time at its end
  double dt = 0;                 // its length (the drift)
  std::int64_t active = 0;       // particles whose step ended (solved and kicked)
  std::int64_t particles = 0;    // N
  double seconds = 0;            // wall time of the whole substep
  double solve_seconds = 0;      // the force solve's wall time: build, walk, and the solver's own upkeep (the rest)
  double build_seconds = 0;      // its phases other than the walk's (box, keys, sort, build, moments, relative
                                 // scales, scatter)
  double walk_seconds = 0;       // its walk phases ("walk", "bootstrap walk", "direct")
  std::vector<std::pair<std::string, double>> solver_phases;  // the solve's SolverReport::phase_seconds
  double kick_seconds = 0;       // half kicks
  double drift_seconds = 0;
  double bookkeeping_seconds = 0;  // active set, gathers and scatters, new bins
};

template <class Real>
class BlockLeapfrog {
 public:
  /// n particles of which none has a bin yet (the first step assigns them).
  BlockLeapfrog(BlockStepConfig config, double dt_max, std::int64_t n);

  /// One block step of dt_max (see the file comment). `a` holds the
  /// accelerations (and, for the dynamical criterion, the potentials) at
  /// the current positions, of every particle; on return, those at the new
  /// positions (potentials too when `potential` or the criterion needs
  /// them). `have_previous`: `a` is an earlier evaluation's (the relative
  /// opening reads it). Returns the interactions the solves counted.
  /// InputError naming the particle when one asks for a step below dt_min
  /// or its acceleration is not finite; the state is then that of the
  /// substep where it happened.
  std::uint64_t step(Particles<Real>& p, Accelerations<Real>& a, gravity::ForceSolver<Real>& solver, bool potential,
                     double time_at_start, std::int64_t block_step, PhaseTimers& timers);

  /// Bins from the accelerations (and potentials) at the current
  /// positions: each particle's wanted bin, unrestricted (as at a
  /// synchronisation point). Done by the first step when no bins are set.
  void assign_bins(const Particles<Real>& p, const Accelerations<Real>& a, double time);

  bool has_bins() const { return !bins_.empty(); }
  /// One per particle (empty before the first step): the bin of the step the
  /// particle starts at the next synchronisation point.
  const std::vector<TimeBin>& bins() const { return bins_; }
  /// Sets the bins (a checkpoint's). InputError unless there is one per
  /// particle, each in [0, deepest()].
  void restore_bins(std::vector<TimeBin> bins);
  /// Particles per bin, bins 0..deepest().
  std::vector<std::int64_t> histogram() const;
  int deepest() const { return deepest_; }
  /// Whether every solve needs the potentials (the dynamical criterion).
  bool needs_potential() const { return config_.rule.criterion == StepCriterion::dynamical; }
  /// Targets solved over the run (force evaluations of one particle each).
  std::uint64_t target_evaluations() const { return evaluations_; }

  /// Called after every substep (optional), e.g. for the substep log.
  std::function<void(const Substep&)> on_substep;

 private:
  int wanted_bin(const Particles<Real>& p, const Accelerations<Real>& a, std::int64_t i, double time) const;
  void set_bin(std::int64_t i, int bin);

  BlockStepConfig config_;
  double dt_max_;
  int deepest_;
  std::int64_t n_;
  std::vector<TimeBin> bins_;
  std::vector<std::int64_t> occupied_;  // particles per bin
  std::uint64_t evaluations_ = 0;
  // Scratch of the substeps, kept to avoid reallocation.
  std::vector<std::int64_t> active_;
  Accelerations<Real> compact_;
};

extern template class BlockLeapfrog<float>;
extern template class BlockLeapfrog<double>;

}  // namespace orrery::integrate
