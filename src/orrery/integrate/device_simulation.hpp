#pragma once
// A run whose particles stay on the GPU (gravity.backend = "cuda"): positions,
// velocities, masses and accelerations live in device memory from
// construction to destruction; the kick-drift-kick leapfrog runs as kernels
// and the force solver reads and writes device arrays. The host copies
// particles back only when asked (outputs, diagnostics). No CUDA header.
//
// The arithmetic is that of Simulation<Real> (leapfrog.hpp: v = fma(a, dt/2, v),
// x = fma(v, dt, x), xm:: functions, which the device evaluates with the same
// bits): with a solver in exact mode a run is bit-identical to the CPU run
// with DirectSolver; in fast mode it agrees to rounding.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/integrate/device_block_leapfrog.hpp"
#include "orrery/integrate/phase_timers.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {

template <class Real>
class DeviceSimulation {
 public:
  /// Uploads `particles` to the solver's device. state.dt > 0 (InputError
  /// naming integration.dt otherwise); a null solver is an InputError.
  DeviceSimulation(const Particles<Real>& particles, std::unique_ptr<gravity::DeviceForceSolver<Real>> solver,
                   SimulationState state);

  /// Integrates with block time steps from now on (device_block_leapfrog.hpp),
  /// state().dt the longest: one step() is then one block step. InputError
  /// for invalid parameters (naming the key) and for a solver other than
  /// the GPU tree's (the one that solves a subset of targets on the device).
  void use_block_steps(const BlockStepConfig& config);
  /// The block integrator; null with the global step.
  const DeviceBlockLeapfrog<Real>* block_steps() const { return block_.get(); }
  DeviceBlockLeapfrog<Real>* block_steps() { return block_.get(); }

  /// One kick-drift-kick step of size dt, on the device. Returns when it is done.
  void step();
  /// `count` steps; synchronises once at the end. `potential_at_end`: the
  /// last step's closing force solve also computes the potentials.
  void run_steps(std::int64_t count, bool potential_at_end = false);
  /// Replaces the device particles with `particles` (any count; ids as
  /// given), e.g. a restored checkpoint; the accelerations are then recomputed.
  void upload(const Particles<Real>& particles);
  /// Sets the device accelerations to a.ax/ay/az, N of each (the caller,
  /// Simulation::restore_accelerations, checks the sizes): those of the
  /// current positions, e.g. a restored checkpoint's. The next step kicks
  /// with them without solving, and its solve reads them as the previous
  /// evaluation's (relative opening).
  /// Defined here, host code only: it copies and sets flags.
  void restore_accelerations(const Accelerations<Real>& a) {
    cuda::select_device(solver_->device());
    ax_.upload(std::span<const Real>(a.ax), stream_.get());
    ay_.upload(std::span<const Real>(a.ay), stream_.get());
    az_.upload(std::span<const Real>(a.az), stream_.get());
    have_forces_ = true;
    have_potential_ = false;
  }

  double time() const { return state_.time_origin + static_cast<double>(state_.step) * state_.dt; }
  std::int64_t step_count() const { return state_.step; }
  const SimulationState& state() const { return state_; }
  std::int64_t size() const { return n_; }

  /// A host copy of the particles (ids as given at construction).
  Particles<Real> particles() const;
  /// The same, written into `out`'s own arrays (resized to N only when their
  /// size differs): a caller that hands out views of them (the Python
  /// package) keeps valid views.
  void download(Particles<Real>& out) const;
  /// A host copy of the accelerations at the current positions; potentials
  /// too when `with_potential` (an extra solve unless the last one had them).
  Accelerations<Real> accelerations(bool with_potential = false);
  /// The same, into `out`'s own arrays (as download). out.potential is left
  /// as it is unless `with_potential`.
  void download_accelerations(Accelerations<Real>& out, bool with_potential = false);

  const gravity::DeviceForceSolver<Real>& solver() const { return *solver_; }
  const PhaseTimers& timers() const { return timers_; }
  /// Pair interactions summed over the run (N^2 - N per solve).
  std::uint64_t interactions() const { return interactions_; }

 private:
  void solve_into(Real* ax, Real* ay, Real* az, bool with_potential);
  void compute_forces(bool with_potential);
  void compute_potentials_only();
  void enqueue_step(bool potential);
  void block_step(bool potential);
  SourcesView<Real> sources() const;

  std::int64_t n_;
  std::unique_ptr<gravity::DeviceForceSolver<Real>> solver_;
  std::unique_ptr<DeviceBlockLeapfrog<Real>> block_;  // null with the global step
  gravity::GpuTreeSolver<Real>* tree_ = nullptr;      // solver_ as the tree solver, with block steps
  SimulationState state_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<Real> x_, y_, z_, vx_, vy_, vz_, m_, ax_, ay_, az_, pot_;
  cuda::DeviceBuffer<Real> extra_[3];  // compute_potentials_only's accelerations
  std::vector<std::uint64_t> ids_;
  PhaseTimers timers_;
  bool have_forces_ = false;
  bool have_potential_ = false;
  std::uint64_t interactions_ = 0;
};

extern template class DeviceSimulation<float>;
extern template class DeviceSimulation<double>;

}  // namespace orrery::integrate
