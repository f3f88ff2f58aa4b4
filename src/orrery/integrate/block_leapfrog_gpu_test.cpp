// Block steps with the GPU tree solver (gravity.backend = "cuda"), both
// ways: the host block integrator whose substeps solve their active
// particles through GpuTreeSolver's host TargetSet overload, and the
// device-resident Simulation (DeviceStepper, device_block_leapfrog.hpp). In
// exact mode every substep's accelerations are the CPU tree's bits, so the
// whole run, time bins included, is bit-identical to the CPU run. Skips
// without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "orrery/cuda/device.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/block_leapfrog.hpp"
#include "orrery/integrate/device_simulation_stepper.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {
namespace {

template <class Real>
bool same_bits(const std::vector<Real>& u, const std::vector<Real>& v) {
  return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(Real)) == 0;
}

// backend "cuda": the host integrator; "device": the device-resident one.
Simulation<float> block_run(const Particles<float>& p, const std::string& backend, bh::Opening opening) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.backend = backend == "device" ? "cuda" : backend;
  g.math = MathMode::exact;
  g.softening = 0.005;
  g.opening = opening;
  g.theta = opening == bh::Opening::relative ? 1.0 : 0.5;
  Simulation<float> sim = backend == "device"
                              ? Simulation<float>(p, make_device_stepper<float>(gravity::make_gpu_tree_solver<float>(g)),
                                                  SimulationState{.dt = 1.0 / 16})
                              : Simulation<float>(p, gravity::make_solver<float>(g), SimulationState{.dt = 1.0 / 16});
  sim.use_block_steps({.rule = {StepCriterion::softening, 0.025, 0.005}, .dt_min = 1e-6});
  sim.run_until(4.0 / 16);
  return sim;
}

class BlockLeapfrogGpu : public testing::TestWithParam<bh::Opening> {};

TEST_P(BlockLeapfrogGpu, ExactModeIsTheCpuRunBitForBit) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto p = ic::to_precision<float>(ic::hernquist_sphere(20000, 4));
  auto cpu = block_run(p, "cpu", GetParam());
  auto gpu = block_run(p, "cuda", GetParam());
  const auto h = cpu.block_steps()->histogram();
  EXPECT_GE(std::count_if(h.begin(), h.end(), [](std::int64_t c) { return c > 0; }), 3);  // several bins
  EXPECT_EQ(gpu.time_bins(), cpu.time_bins());
  for (auto member : {&Particles<float>::x, &Particles<float>::y, &Particles<float>::z, &Particles<float>::vx,
                      &Particles<float>::vy, &Particles<float>::vz})
    EXPECT_TRUE(same_bits(gpu.particles().*member, cpu.particles().*member));
  EXPECT_EQ(gpu.block_steps()->target_evaluations(), cpu.block_steps()->target_evaluations());
}

TEST_P(BlockLeapfrogGpu, DeviceResidentExactModeIsTheCpuRunBitForBit) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto p = ic::to_precision<float>(ic::hernquist_sphere(20000, 4));
  auto cpu = block_run(p, "cpu", GetParam());
  auto gpu = block_run(p, "device", GetParam());
  ASSERT_NE(gpu.device(), nullptr);
  EXPECT_EQ(gpu.time_bins(), cpu.time_bins());
  EXPECT_EQ(gpu.time_bin_histogram(), cpu.block_steps()->histogram());
  for (auto member : {&Particles<float>::x, &Particles<float>::y, &Particles<float>::z, &Particles<float>::vx,
                      &Particles<float>::vy, &Particles<float>::vz})
    EXPECT_TRUE(same_bits(gpu.particles().*member, cpu.particles().*member));
  EXPECT_TRUE(same_bits(gpu.accelerations().ax, cpu.accelerations().ax));
  EXPECT_TRUE(same_bits(gpu.accelerations().az, cpu.accelerations().az));
}

INSTANTIATE_TEST_SUITE_P(Openings, BlockLeapfrogGpu, testing::Values(bh::Opening::geometric, bh::Opening::relative));

}  // namespace
}  // namespace orrery::integrate
