#pragma once
// A run: particle state, time, step count, a force solver, a fixed-step
// kick-drift-kick leapfrog, periodic outputs, and wall time per phase.
//
// All state needed to continue a run bit-identically is explicit: the
// particles, SimulationState (time origin, dt, step, the reference energy of
// the diagnostics, an RNG state) and the accelerations. Every solver is
// deterministic, but with the tree's relative opening (docs/adr/0007) an
// evaluation also reads the previous one's accelerations: a solve passes
// SolveOptions::previous_accelerations from the second evaluation of the same
// particles on, so a restore hands them back (restore_accelerations), or the
// first evaluation after it bootstraps.
//
// Time is time_origin + step * dt, never accumulated, so it has no drift and
// is the same in a restarted run.
//
// Block time steps (use_block_steps, block_leapfrog.hpp): dt is then the
// longest step dt_max and one step() is one block step, from one
// synchronisation point to the next; outputs run only there, where every
// particle's position and velocity are at time(). The time bins are state
// (time_bins(), restore_time_bins()).
//
// Two engines, one interface. Host: the particles live in particles() and a
// ForceSolver evaluates them. Device-resident (gravity.backend = "cuda"): a
// DeviceStepper holds the particles and steps them on the device; the host
// copies (particles(), accelerations(), potentials()) are caches, marked
// stale by every step and downloaded on first use, i.e. only when an output
// (diagnostics, snapshot, checkpoint) reads them. Steps between outputs move
// no particle data between host and device.
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/integrate/block_leapfrog.hpp"
#include "orrery/integrate/device_stepper.hpp"
#include "orrery/integrate/phase_timers.hpp"
#include "orrery/integrate/schedule.hpp"

namespace orrery::integrate {

struct SimulationState {
  double time_origin = 0;  // simulated time at step 0
  double dt = 0;           // > 0, fixed
  std::int64_t step = 0;
  /// Total energy at the start of the run (set by the first diagnostics);
  /// NaN until then. Kept so a restarted run reports the same energy error.
  double initial_energy = std::numeric_limits<double>::quiet_NaN();
  /// For stochastic extensions (none in the leapfrog); saved in checkpoints.
  std::array<std::uint64_t, 4> rng_state{};
};

template <class Real>
class Simulation;

/// Something done every `schedule.interval` of simulated time (and at the
/// first and last step of run_until): diagnostics, snapshots, checkpoints.
template <class Real>
struct Output {
  std::string name;  // also the phase name its wall time is recorded under
  Schedule schedule;
  bool needs_potential = false;  // the solve before the output computes potentials
  std::function<void(Simulation<Real>&)> write;
};

template <class Real>
class Simulation {
 public:
  /// dt > 0 (InputError naming integration.dt otherwise).
  Simulation(Particles<Real> particles, std::unique_ptr<gravity::ForceSolver<Real>> solver, SimulationState state);
  /// Device-resident: uploads `particles` to `device` once; steps run there.
  /// dt > 0 (InputError naming integration.dt otherwise); a null device is an InputError.
  Simulation(Particles<Real> particles, std::unique_ptr<DeviceStepper<Real>> device, SimulationState state);

  /// Integrates with block time steps from now on, state().dt the longest
  /// (InputError for invalid parameters, naming the key, and for a
  /// device-resident engine without them: the GPU tree solver's has them,
  /// device_block_leapfrog.hpp).
  void use_block_steps(const BlockStepConfig& config);
  /// Whether block steps run (on the host or the device).
  bool has_block_steps() const { return block_ || device_block_; }
  /// The deepest bin (block steps only).
  int deepest_time_bin() const { return deepest_bin_; }
  /// Particles per bin 0..deepest_time_bin(), zeros before the first block step.
  std::vector<std::int64_t> time_bin_histogram() const;
  /// Called after every substep (block steps only), e.g. the substep log.
  void set_on_substep(std::function<void(const Substep&)> call);
  /// The host block integrator; null with the global step and on the device.
  const BlockLeapfrog<Real>* block_steps() const { return block_.get(); }
  BlockLeapfrog<Real>* block_steps() { return block_.get(); }
  /// Every particle's time bin (empty with the global step, or before the first block step).
  std::vector<TimeBin> time_bins() const {
    return block_ ? block_->bins() : device_block_ ? device_->time_bins() : std::vector<TimeBin>{};
  }
  /// Sets the bins (a checkpoint's; see BlockLeapfrog::restore_bins). InputError with the global step.
  void restore_time_bins(std::vector<TimeBin> bins);

  /// One kick-drift-kick step of size dt (a block step with block steps). Runs the outputs due after it.
  void step();
  /// Steps until time() >= t_end (within 1e-9 dt) and runs the outputs due,
  /// including all of them at the first step (if none has run yet) and the
  /// last step. on_step (optional) is called after every step, e.g. for progress.
  void run_until(double t_end, const std::function<void(const Simulation&)>& on_step = {});
  /// Steps from the current step to the first step with time >= t_end.
  std::int64_t steps_until(double t_end) const;
  /// Runs every output now (e.g. at the start or the end of a run).
  void write_all_outputs();

  void add_output(Output<Real> output) { outputs_.push_back(std::move(output)); }

  double time() const { return state_.time_origin + static_cast<double>(state_.step) * state_.dt; }
  std::int64_t step_count() const { return state_.step; }
  const SimulationState& state() const { return state_; }
  SimulationState& state() { return state_; }
  /// The particles now (device-resident: downloaded if a step ran since the last download).
  const Particles<Real>& particles() const;
  /// Accelerations at the current positions; evaluated on first use.
  const Accelerations<Real>& accelerations();
  /// Potentials at the current positions (an extra solve unless the last one
  /// had them; it leaves the accelerations as they are).
  const std::vector<Real>& potentials();
  /// Sets the accelerations at the current positions to `a` (ax, ay, az of
  /// N particles; InputError otherwise): those of the evaluation that
  /// produced them, e.g. a checkpoint's. The next step kicks with them
  /// instead of evaluating, and the next evaluation reads them as the
  /// previous one's, as in the run that wrote them.
  void restore_accelerations(const Accelerations<Real>& a);
  /// The host force solver. RuntimeFailure for a device-resident simulation
  /// (use solver_name(), or device()).
  const gravity::ForceSolver<Real>& solver() const;
  std::string solver_name() const { return device_ ? device_->solver_name() : solver_->name(); }
  /// The device engine; null for a host simulation.
  const DeviceStepper<Real>* device() const { return device_.get(); }
  const PhaseTimers& timers() const { return timers_; }
  PhaseTimers& timers() { return timers_; }
  /// Interactions summed by the solver over the run (for rates in logs).
  std::uint64_t interactions() const { return interactions_; }

 private:
  void compute_forces(bool with_potential);
  void advance(bool last);
  void advance_block(bool last);
  bool potential_wanted_at(std::int64_t step, bool last) const;
  void run_outputs(bool force_all);

  void check_dt() const;

  // Device-resident: a cache of the device's particles, valid when host_particles_current_.
  mutable Particles<Real> particles_;
  Accelerations<Real> accelerations_;
  std::unique_ptr<gravity::ForceSolver<Real>> solver_;  // null when device_ is set
  std::unique_ptr<DeviceStepper<Real>> device_;         // null for a host simulation
  std::unique_ptr<BlockLeapfrog<Real>> block_;          // null with the global step
  bool device_block_ = false;                           // block steps in device_
  int deepest_bin_ = 0;
  mutable bool host_particles_current_ = true;
  SimulationState state_;
  std::vector<Output<Real>> outputs_;
  PhaseTimers timers_;
  // accelerations_ holds the accelerations (and potentials) at the current positions.
  bool have_forces_ = false;
  bool have_potential_ = false;
  // accelerations_ holds the latest evaluation of these particles (at the
  // current positions or before the last drift): the next solve reads them.
  bool have_previous_ = false;
  std::vector<std::int64_t> last_written_;  // per output, the step it last ran at
  std::uint64_t interactions_ = 0;
};

extern template class Simulation<float>;
extern template class Simulation<double>;

}  // namespace orrery::integrate
