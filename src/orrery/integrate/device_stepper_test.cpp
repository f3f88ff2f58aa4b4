// Simulation with a device-resident engine, exercised on the CPU: a fake
// DeviceStepper whose "device memory" is host memory proves the lazy-download
// logic (no transfer between outputs, one per cache miss) and that the engine
// path gives the host path's bits. device_simulation_test.cpp does the same
// with the CUDA stepper on a GPU.
#include "orrery/integrate/device_stepper.hpp"

#include <gtest/gtest.h>

#include <set>

#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/integrate/simulation.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery::integrate {
namespace {

using Solver = gravity::DirectSolver<double, PlummerSoftening<double>>;

/// A DeviceStepper whose resident state is a host copy, stepped with
/// leapfrog.hpp and a DirectSolver: the contract of device_stepper.hpp with
/// no device. Counts force solves and the steps that asked for potentials.
class HostMemoryStepper final : public DeviceStepper<double> {
 public:
  int solves = 0;
  std::vector<bool> step_potentials;  // per step: did it ask for potentials?

  std::string solver_name() const override { return "fake/" + solver_.name(); }
  std::uint64_t interactions() const override { return static_cast<std::uint64_t>(solves); }

 private:
  void solve(bool potential) {
    gravity::SolveOptions options;
    options.potential = potential;
    solver_.solve(p_.sources(), a_.view(potential), options);
    ++solves;
    have_forces_ = true;
    have_potential_ = potential;
  }
  void do_upload(const Particles<double>& p, double dt) override {
    p_ = p;
    a_ = Accelerations<double>(p.x.size());
    dt_ = dt;
    have_forces_ = have_potential_ = false;
  }
  void do_step(bool potential) override {
    if (!have_forces_) solve(false);
    kick(p_, a_, 0.5 * dt_);
    drift(p_, dt_);
    solve(potential);
    kick(p_, a_, 0.5 * dt_);
    step_potentials.push_back(potential);
  }
  void do_download(Particles<double>& out) override { out = p_; }
  void do_download_accelerations(Accelerations<double>& out, bool potential) override {
    if (!have_forces_ || (potential && !have_potential_)) solve(potential);
    out = a_;
  }
  void do_restore_accelerations(const Accelerations<double>& a) override {
    a_.ax = a.ax;
    a_.ay = a.ay;
    a_.az = a.az;
    have_forces_ = true;
    have_potential_ = false;
  }

  Solver solver_{0.05};
  Particles<double> p_;
  Accelerations<double> a_;
  double dt_ = 0;
  bool have_forces_ = false, have_potential_ = false;
};

struct Fake {
  Simulation<double> sim;
  HostMemoryStepper* stepper;
};

Fake fake_simulation(const Particles<double>& p, SimulationState state) {
  auto stepper = std::make_unique<HostMemoryStepper>();
  auto* raw = stepper.get();
  return {Simulation<double>(p, std::move(stepper), state), raw};
}

Particles<double> initial() { return ic::to_precision<double>(ic::plummer_sphere(200, 3)); }

TEST(DeviceStepper, StepsBetweenOutputsTransferNothingAndReadsDownloadOncePerStep) {
  auto [sim, stepper] = fake_simulation(initial(), {.dt = 1.0 / 64});
  EXPECT_EQ(stepper->uploads(), 1u);
  for (int k = 0; k < 10; ++k) sim.step();
  EXPECT_EQ(stepper->uploads(), 1u);
  EXPECT_EQ(stepper->downloads(), 0u);
  EXPECT_EQ(stepper->solves, 11);  // the first step's opening solve, then one per step

  sim.particles();
  sim.particles();
  EXPECT_EQ(stepper->downloads(), 1u);  // the second read hits the cache
  sim.accelerations();
  sim.accelerations();
  EXPECT_EQ(stepper->downloads(), 2u);
  sim.potentials();  // not asked for by the last step: one solve on the "device", one download
  sim.potentials();
  EXPECT_EQ(stepper->downloads(), 3u);
  EXPECT_EQ(stepper->solves, 12);

  sim.step();  // every host copy is stale now
  sim.particles();
  sim.accelerations();
  EXPECT_EQ(stepper->downloads(), 5u);
  EXPECT_EQ(stepper->uploads(), 1u);
  EXPECT_EQ(sim.step_count(), 11);
}

TEST(DeviceStepper, RunWithOutputsHasTheHostRunsBitsAndDownloadsOnlyForOutputs) {
  const SimulationState state{.dt = 0.1};
  Simulation<double> host(initial(), std::make_unique<Solver>(0.05), state);
  auto [device, stepper] = fake_simulation(initial(), state);
  std::vector<diag::Diagnostics> host_rows, device_rows;
  host.add_output(diagnostics_output<double>(nullptr, 0.25, [&](const auto& d) { host_rows.push_back(d); }));
  device.add_output(diagnostics_output<double>(nullptr, 0.25, [&](const auto& d) { device_rows.push_back(d); }));

  host.run_until(1.05);
  device.write_all_outputs();  // step 0: the uploaded copy is current, only the potentials are fetched
  EXPECT_EQ(stepper->downloads(), 1u);
  std::set<std::int64_t> download_steps;
  std::uint64_t seen = stepper->downloads();
  device.run_until(1.05, [&](const Simulation<double>& s) {
    if (stepper->downloads() != seen) download_steps.insert(s.step_count());
    seen = stepper->downloads();
  });

  // Outputs at steps 0, 3, 5, 8, 10, 11 (simulation_test.cpp); transfers only there.
  EXPECT_EQ(download_steps, (std::set<std::int64_t>{3, 5, 8, 10, 11}));
  // Then particles + potentials at each output.
  EXPECT_EQ(stepper->downloads(), 1u + 5u * 2u);
  EXPECT_EQ(stepper->uploads(), 1u);
  // The steps before an output asked for potentials in their closing solve: no extra solve.
  const std::vector<bool> asked{false, false, true, false, true, false, false, true, false, true, true};
  EXPECT_EQ(stepper->step_potentials, asked);
  EXPECT_EQ(stepper->solves, 1 + 11);

  ASSERT_EQ(device_rows.size(), host_rows.size());
  for (std::size_t k = 0; k < host_rows.size(); ++k) {
    EXPECT_EQ(device_rows[k].step, host_rows[k].step);
    EXPECT_EQ(device_rows[k].total, host_rows[k].total);
    EXPECT_EQ(device_rows[k].kinetic, host_rows[k].kinetic);
    EXPECT_EQ(device_rows[k].relative_energy_error, host_rows[k].relative_energy_error);
  }
  io::testing::expect_same_particles(device.particles(), host.particles());
  EXPECT_EQ(device.state().initial_energy, host.state().initial_energy);
}

TEST(DeviceStepper, RestartFromDownloadedStateIsBitIdentical) {
  auto [straight, s0] = fake_simulation(initial(), {.dt = 1.0 / 64});
  for (int k = 0; k < 20; ++k) straight.step();
  auto [first, s1] = fake_simulation(initial(), {.dt = 1.0 / 64});
  for (int k = 0; k < 10; ++k) first.step();
  auto [resumed, s2] = fake_simulation(first.particles(), first.state());  // as a checkpoint would
  for (int k = 0; k < 10; ++k) resumed.step();
  EXPECT_EQ(resumed.step_count(), 20);
  io::testing::expect_same_particles(resumed.particles(), straight.particles());
}

TEST(DeviceStepper, NamesAndErrors) {
  auto [sim, stepper] = fake_simulation(initial(), {.dt = 0.01});
  EXPECT_EQ(sim.solver_name(), "fake/" + Solver(0.05).name());
  EXPECT_EQ(sim.device(), stepper);
  EXPECT_THROW(sim.solver(), RuntimeFailure);
  EXPECT_THROW(Simulation<double>(initial(), std::unique_ptr<DeviceStepper<double>>(), {.dt = 0.01}), InputError);
  EXPECT_THROW(Simulation<double>(initial(), std::make_unique<HostMemoryStepper>(), {.dt = 0.0}), InputError);
  Simulation<double> host(initial(), std::make_unique<Solver>(0.05), {.dt = 0.01});
  EXPECT_EQ(host.device(), nullptr);
  EXPECT_EQ(host.solver_name(), host.solver().name());
}

}  // namespace
}  // namespace orrery::integrate
