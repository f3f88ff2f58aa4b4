#include "orrery/integrate/device_simulation_stepper.hpp"

#include <string>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/integrate/device_simulation.hpp"

namespace orrery::integrate {
namespace {

/// DeviceSimulation, created at the first upload (it needs the particles),
/// re-uploaded in place after that. Only its particles and accelerations are
/// used: the step count and time are the owning Simulation's.
template <class Real>
class DeviceSimulationStepper final : public DeviceStepper<Real> {
 public:
  explicit DeviceSimulationStepper(std::unique_ptr<gravity::DeviceForceSolver<Real>> solver)
      : solver_(std::move(solver)) {
    if (!solver_) throw InputError("device stepper: no device force solver given");
    name_ = solver_->name();
  }

  std::string solver_name() const override { return name_; }
  std::uint64_t interactions() const override { return sim_ ? sim_->interactions() : 0; }

  // Block steps need the particles' count: after the first upload (Simulation's constructor).
  void use_block_steps(const BlockStepConfig& config) override { resident().use_block_steps(config); }
  std::vector<TimeBin> time_bins() const override {
    return sim_ && sim_->block_steps() ? sim_->block_steps()->bins() : std::vector<TimeBin>{};
  }
  void restore_time_bins(std::vector<TimeBin> bins) override { block().restore_bins(std::move(bins)); }
  std::vector<std::int64_t> time_bin_histogram() const override {
    return sim_ && sim_->block_steps() ? sim_->block_steps()->histogram() : std::vector<std::int64_t>{};
  }
  void set_on_substep(std::function<void(const Substep&)> call) override { block().on_substep = std::move(call); }

 private:
  void do_upload(const Particles<Real>& particles, double dt) override {
    if (sim_ && sim_->state().dt == dt) {
      sim_->upload(particles);
      return;
    }
    if (sim_) throw RuntimeFailure("device stepper: the time step changed from " + std::to_string(sim_->state().dt) +
                                   " to " + std::to_string(dt) + "; a Simulation's dt is fixed");
    SimulationState state;
    state.dt = dt;
    sim_ = std::make_unique<DeviceSimulation<Real>>(particles, std::move(solver_), state);
  }
  void do_step(bool potential) override { sim_->run_steps(1, potential); }
  // Into the caller's arrays: Simulation's host copies are viewed zero-copy by the Python package.
  void do_download(Particles<Real>& out) override { sim_->download(out); }
  void do_download_accelerations(Accelerations<Real>& out, bool potential) override {
    sim_->download_accelerations(out, potential);
  }
  void do_restore_accelerations(const Accelerations<Real>& a) override { sim_->restore_accelerations(a); }

  DeviceSimulation<Real>& resident() {
    if (!sim_) throw RuntimeFailure("device stepper: block steps asked for before the particles were uploaded");
    return *sim_;
  }
  DeviceBlockLeapfrog<Real>& block() {
    if (!resident().block_steps())
      throw InputError("device stepper: time bins given to a run with the global step; accepted: "
                       "integration.kind = \"block\" (the run that wrote them)");
    return *sim_->block_steps();
  }

  std::unique_ptr<gravity::DeviceForceSolver<Real>> solver_;  // moved into sim_ at the first upload
  std::unique_ptr<DeviceSimulation<Real>> sim_;
  std::string name_;
};

}  // namespace

template <class Real>
std::unique_ptr<DeviceStepper<Real>> make_device_stepper(std::unique_ptr<gravity::DeviceForceSolver<Real>> solver) {
  return std::make_unique<DeviceSimulationStepper<Real>>(std::move(solver));
}

template std::unique_ptr<DeviceStepper<float>> make_device_stepper<float>(
    std::unique_ptr<gravity::DeviceForceSolver<float>>);
template std::unique_ptr<DeviceStepper<double>> make_device_stepper<double>(
    std::unique_ptr<gravity::DeviceForceSolver<double>>);

}  // namespace orrery::integrate
