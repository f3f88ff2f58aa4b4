#include "orrery/integrate/simulation.hpp"

#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/integrate/step_count.hpp"

namespace orrery::integrate {

template <class Real>
Simulation<Real>::Simulation(Particles<Real> particles, std::unique_ptr<gravity::ForceSolver<Real>> solver,
                             SimulationState state)
    : particles_(std::move(particles)),
      accelerations_(static_cast<std::size_t>(particles_.size())),
      solver_(std::move(solver)),
      state_(state) {
  check_dt();
  if (!solver_) throw InputError("simulation: no force solver given");
}

template <class Real>
Simulation<Real>::Simulation(Particles<Real> particles, std::unique_ptr<DeviceStepper<Real>> device,
                             SimulationState state)
    : particles_(std::move(particles)),
      accelerations_(static_cast<std::size_t>(particles_.size())),
      device_(std::move(device)),
      state_(state) {
  check_dt();
  if (!device_) throw InputError("simulation: no device stepper given");
  device_->upload(particles_, state_.dt);  // the host copy stays current until the first step
}

template <class Real>
void Simulation<Real>::check_dt() const {
  if (!(state_.dt > 0) || !std::isfinite(state_.dt)) {
    throw InputError("integration.dt = " + std::to_string(state_.dt) + "; accepted: a finite number > 0");
  }
}

template <class Real>
const gravity::ForceSolver<Real>& Simulation<Real>::solver() const {
  if (!solver_) throw RuntimeFailure("simulation: " + solver_name() + " is device-resident and has no host ForceSolver");
  return *solver_;
}

template <class Real>
const Particles<Real>& Simulation<Real>::particles() const {
  if (!host_particles_current_) {
    device_->download(particles_);
    host_particles_current_ = true;
  }
  return particles_;
}

template <class Real>
void Simulation<Real>::compute_forces(bool with_potential) {
  auto timer = timers_.scope("force");
  if (device_) {
    device_->download_accelerations(accelerations_, with_potential);
    interactions_ = device_->interactions();
    have_forces_ = true;
    have_potential_ = with_potential;
    return;
  }
  gravity::SolveOptions options;
  options.potential = with_potential;
  options.previous_accelerations = have_previous_;
  SolverReport report;
  if (have_forces_) {
    // Only the potentials are missing. The solve goes to a copy: with the
    // relative opening its accelerations (read back as their own previous
    // ones) may differ in the last bits from those the run integrates with.
    Accelerations<Real> extra;
    extra.ax = accelerations_.ax;
    extra.ay = accelerations_.ay;
    extra.az = accelerations_.az;
    extra.potential.swap(accelerations_.potential);  // the same buffer back: views of it stay valid
    report = solver_->solve(particles_.sources(), extra.view(true), options);
    accelerations_.potential.swap(extra.potential);
  } else {
    report = solver_->solve(particles_.sources(), accelerations_.view(with_potential), options);
  }
  interactions_ += report.total.particle_interactions + report.total.cell_interactions;
  have_forces_ = true;
  have_potential_ = with_potential;
  have_previous_ = true;
}

template <class Real>
void Simulation<Real>::restore_accelerations(const Accelerations<Real>& a) {
  const auto n = static_cast<std::size_t>(particles_.size());
  if (a.ax.size() != n || a.ay.size() != n || a.az.size() != n) {
    throw InputError("simulation: restored accelerations ax, ay, az of " + std::to_string(a.ax.size()) + ", " +
                     std::to_string(a.ay.size()) + ", " + std::to_string(a.az.size()) + " values for " +
                     std::to_string(n) + " particles; accepted: one per particle in each");
  }
  accelerations_.ax = a.ax;
  accelerations_.ay = a.ay;
  accelerations_.az = a.az;
  have_forces_ = true;
  have_potential_ = false;
  have_previous_ = true;
  if (device_) device_->restore_accelerations(accelerations_);
}

template <class Real>
const Accelerations<Real>& Simulation<Real>::accelerations() {
  if (!have_forces_) compute_forces(false);
  return accelerations_;
}

template <class Real>
const std::vector<Real>& Simulation<Real>::potentials() {
  if (!have_potential_) compute_forces(true);
  return accelerations_.potential;
}

template <class Real>
void Simulation<Real>::use_block_steps(const BlockStepConfig& config) {
  deepest_bin_ = check_block_steps(config, state_.dt);
  if (device_) {
    device_->use_block_steps(config);
    device_block_ = true;
    return;
  }
  block_ = std::make_unique<BlockLeapfrog<Real>>(config, state_.dt, particles_.size());
}

template <class Real>
std::vector<std::int64_t> Simulation<Real>::time_bin_histogram() const {
  if (block_) return block_->histogram();
  auto h = device_block_ ? device_->time_bin_histogram() : std::vector<std::int64_t>{};
  if (h.empty()) h.assign(static_cast<std::size_t>(deepest_bin_) + 1, 0);
  return h;
}

template <class Real>
void Simulation<Real>::set_on_substep(std::function<void(const Substep&)> call) {
  if (block_)
    block_->on_substep = std::move(call);
  else if (device_block_)
    device_->set_on_substep(std::move(call));
}

template <class Real>
void Simulation<Real>::restore_time_bins(std::vector<TimeBin> bins) {
  if (!has_block_steps())
    throw InputError("simulation: time bins given to a run with the global step; accepted: integration.kind = "
                     "\"block\" (the run that wrote them)");
  if (device_block_) {
    device_->restore_time_bins(std::move(bins));
    return;
  }
  block_->restore_bins(std::move(bins));
}

template <class Real>
bool Simulation<Real>::potential_wanted_at(std::int64_t step, bool last) const {
  bool wanted = false;
  for (const auto& o : outputs_) wanted |= o.needs_potential & (last | o.schedule.due(step, state_.dt));
  return wanted;
}

template <class Real>
void Simulation<Real>::advance_block(bool last) {
  // The first block step assigns the bins from the evaluation at the start,
  // which the dynamical criterion needs with the potentials.
  if (block_->needs_potential() && !block_->has_bins())
    potentials();
  else
    accelerations();
  const bool potential = potential_wanted_at(state_.step + 1, last);
  have_forces_ = false;  // while the substeps run, accelerations_ belong to no single time
  interactions_ += block_->step(particles_, accelerations_, *solver_, potential, time(), state_.step, timers_);
  ++state_.step;
  // The last substep solved every particle: accelerations_ are at the new positions.
  have_forces_ = true;
  have_potential_ = potential || block_->needs_potential();
  have_previous_ = true;
  run_outputs(last);
}

template <class Real>
void Simulation<Real>::step() {
  advance(false);
}

template <class Real>
void Simulation<Real>::advance(bool last) {
  if (device_) {
    const bool potential_wanted = potential_wanted_at(state_.step + 1, last);
    {
      // The kicks and drift are kernels on the solver's stream, timed with the forces.
      auto timer = timers_.scope("force");
      device_->step(potential_wanted);
      interactions_ = device_->interactions();
    }
    ++state_.step;
    host_particles_current_ = false;
    have_forces_ = false;
    have_potential_ = false;
    run_outputs(last);
    return;
  }
  if (block_) {
    advance_block(last);
    return;
  }
  accelerations();
  const Real half = static_cast<Real>(0.5 * state_.dt);
  {
    auto timer = timers_.scope("kick");
    kick(particles_, accelerations_, half);
  }
  {
    auto timer = timers_.scope("drift");
    drift(particles_, static_cast<Real>(state_.dt));
  }
  have_forces_ = false;  // accelerations_ now belong to the positions before the drift
  have_potential_ = false;
  ++state_.step;
  compute_forces(potential_wanted_at(state_.step, last));
  {
    auto timer = timers_.scope("kick");
    kick(particles_, accelerations_, half);
  }
  run_outputs(last);
}

template <class Real>
void Simulation<Real>::run_outputs(bool force_all) {
  last_written_.resize(outputs_.size(), -1);
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    auto& o = outputs_[k];
    const bool due = force_all || o.schedule.due(state_.step, state_.dt);
    if (!due || last_written_[k] == state_.step) continue;
    auto timer = timers_.scope(o.name);
    o.write(*this);
    last_written_[k] = state_.step;
  }
}

template <class Real>
void Simulation<Real>::write_all_outputs() {
  run_outputs(true);
}

template <class Real>
std::int64_t Simulation<Real>::steps_until(double t_end) const {
  return integrate::step_count(t_end - time(), state_.dt);
}

template <class Real>
void Simulation<Real>::run_until(double t_end, const std::function<void(const Simulation&)>& on_step) {
  if (last_written_.empty() && !outputs_.empty()) write_all_outputs();
  const std::int64_t n = steps_until(t_end);
  for (std::int64_t k = 0; k < n; ++k) {
    advance(k + 1 == n);
    if (on_step) on_step(*this);
  }
}

template class Simulation<float>;
template class Simulation<double>;

}  // namespace orrery::integrate
