// Device-resident block steps (DeviceSimulation::use_block_steps): in exact
// mode the CPU block integrator's bits, positions, velocities,
// accelerations, potentials and time bins, over substeps with several
// occupied bins; one bin is the device global step; a step below dt_min
// names the particle as the host does. Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/device_simulation.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {
namespace {

template <class Real>
bool same_bits(const std::vector<Real>& u, const std::vector<Real>& v) {
  return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(Real)) == 0;
}

gravity::GravityConfig tree(const std::string& backend, bh::Opening opening, double softening) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.backend = backend;
  g.math = MathMode::exact;
  g.softening = softening;
  g.opening = opening;
  g.theta = opening == bh::Opening::relative ? 1.0 : 0.5;
  return g;
}

constexpr double kDtMax = 1.0 / 16;
constexpr int kBlockSteps = 3;

BlockStepConfig rule(StepCriterion criterion) {
  return {.rule = {criterion, criterion == StepCriterion::softening ? 0.025 : 0.02, 0.005}, .dt_min = 1e-6};
}

struct Case {
  bh::Opening opening;
  StepCriterion criterion;
};

class DeviceBlockLeapfrogGpu : public testing::TestWithParam<Case> {};

TEST_P(DeviceBlockLeapfrogGpu, ExactModeIsTheCpuBlockIntegratorBitForBit) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto [opening, criterion] = GetParam();
  const auto p = ic::to_precision<float>(ic::hernquist_sphere(20000, 4));
  Simulation<float> cpu(p, gravity::make_solver<float>(tree("cpu", opening, 0.005)), SimulationState{.dt = kDtMax});
  cpu.use_block_steps(rule(criterion));
  DeviceSimulation<float> gpu(p, gravity::make_gpu_tree_solver<float>(tree("cuda", opening, 0.005)),
                              SimulationState{.dt = kDtMax});
  gpu.use_block_steps(rule(criterion));
  // The substeps' active counts, in order: the same active sets substep by substep.
  std::vector<std::int64_t> cpu_active, gpu_active;
  cpu.block_steps()->on_substep = [&](const Substep& s) { cpu_active.push_back(s.active); };
  gpu.block_steps()->on_substep = [&](const Substep& s) { gpu_active.push_back(s.active); };
  for (int k = 0; k < kBlockSteps; ++k) {
    cpu.step();
    gpu.step();
    ASSERT_EQ(gpu.block_steps()->bins(), cpu.time_bins()) << "block step " << k;
  }
  const auto h = cpu.block_steps()->histogram();
  EXPECT_GE(std::count_if(h.begin(), h.end(), [](std::int64_t c) { return c > 0; }), 3);  // several bins
  EXPECT_EQ(gpu.block_steps()->histogram(), h);
  EXPECT_GT(cpu_active.size(), std::size_t{3 * kBlockSteps});  // several substeps per block step
  EXPECT_EQ(gpu_active, cpu_active);
  const auto gp = gpu.particles();
  for (auto member : {&Particles<float>::x, &Particles<float>::y, &Particles<float>::z, &Particles<float>::vx,
                      &Particles<float>::vy, &Particles<float>::vz})
    EXPECT_TRUE(same_bits(gp.*member, cpu.particles().*member));
  const bool potential = criterion == StepCriterion::dynamical;  // every solve had them
  const auto ga = gpu.accelerations(potential);
  const auto& ca = cpu.accelerations();
  EXPECT_TRUE(same_bits(ga.ax, ca.ax));
  EXPECT_TRUE(same_bits(ga.ay, ca.ay));
  EXPECT_TRUE(same_bits(ga.az, ca.az));
  if (potential) {
    EXPECT_TRUE(same_bits(ga.potential, ca.potential));
  }
  EXPECT_EQ(gpu.block_steps()->target_evaluations(), cpu.block_steps()->target_evaluations());
}

INSTANTIATE_TEST_SUITE_P(OpeningsAndCriteria, DeviceBlockLeapfrogGpu,
                         testing::Values(Case{bh::Opening::geometric, StepCriterion::softening},
                                         Case{bh::Opening::relative, StepCriterion::softening},
                                         Case{bh::Opening::geometric, StepCriterion::dynamical}));

// substeps.csv on the device: kick, drift and bookkeeping are CUDA-event
// times of the substep's own kernels (no 0 columns), each part inside the
// substep's wall time, and the gather and scatter of a partial substep count
// as bookkeeping, not as the solve.
TEST(DeviceBlockLeapfrogGpuTiming, SubstepsSplitKickDriftAndBookkeeping) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto p = ic::to_precision<float>(ic::hernquist_sphere(20000, 4));
  DeviceSimulation<float> gpu(p, gravity::make_gpu_tree_solver<float>(tree("cuda", bh::Opening::geometric, 0.005)),
                              SimulationState{.dt = kDtMax});
  gpu.use_block_steps(rule(StepCriterion::softening));
  std::vector<Substep> substeps;
  gpu.block_steps()->on_substep = [&](const Substep& s) { substeps.push_back(s); };
  gpu.step();
  ASSERT_GT(substeps.size(), std::size_t{3});
  bool partial = false;
  for (const auto& s : substeps) {
    EXPECT_GT(s.drift_seconds, 0) << "t = " << s.time;
    EXPECT_GT(s.kick_seconds, 0) << "t = " << s.time;
    EXPECT_GT(s.bookkeeping_seconds, 0) << "t = " << s.time;
    EXPECT_GT(s.solve_seconds, 0) << "t = " << s.time;
    // Device times of parts that ran one after another on the host's order: together within the wall time.
    EXPECT_LE(s.solve_seconds + s.kick_seconds + s.drift_seconds + s.bookkeeping_seconds, 1.01 * s.seconds)
        << "t = " << s.time;
    partial = partial || s.active < s.particles;
  }
  EXPECT_TRUE(partial);  // the gather and scatter ran
}

TEST(DeviceBlockLeapfrogGpuOneBin, IsTheDeviceGlobalStepBitForBit) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3000, 3));
  const double dt = 1.0 / 64;
  const auto g = tree("cuda", bh::Opening::relative, 0.05);
  DeviceSimulation<float> global(p, gravity::make_gpu_tree_solver<float>(g), SimulationState{.dt = dt});
  DeviceSimulation<float> block(p, gravity::make_gpu_tree_solver<float>(g), SimulationState{.dt = dt});
  // A step far below what any particle asks for (eta huge), and no deeper bin allowed.
  block.use_block_steps({.rule = {StepCriterion::softening, 1e6, 0.05}, .dt_min = dt});
  global.run_steps(5);
  block.run_steps(5);
  const auto gp = global.particles(), bp = block.particles();
  for (auto member : {&Particles<float>::x, &Particles<float>::y, &Particles<float>::z, &Particles<float>::vx,
                      &Particles<float>::vy, &Particles<float>::vz})
    EXPECT_TRUE(same_bits(bp.*member, gp.*member));
  EXPECT_TRUE(same_bits(block.accelerations().ax, global.accelerations().ax));
  EXPECT_EQ(block.block_steps()->histogram(), std::vector<std::int64_t>{3000});
}

TEST(DeviceBlockLeapfrogGpuDtMin, AStepBelowDtMinNamesTheParticleAsTheHostDoes) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  auto p = ic::to_precision<float>(ic::plummer_sphere(50, 2));
  // Particle 7 next to particle 8: an acceleration no step above dt_min resolves.
  p.x[7] = p.x[8] + 1e-4f;
  p.y[7] = p.y[8];
  p.z[7] = p.z[8];
  const BlockStepConfig config{.rule = {StepCriterion::softening, 0.025, 0.001}, .dt_min = 1.0 / 1024};
  const auto message = [&](auto& sim) {
    sim.use_block_steps(config);
    try {
      sim.step();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Simulation<float> cpu(p, gravity::make_solver<float>(tree("cpu", bh::Opening::geometric, 0.001)),
                        SimulationState{.dt = 1.0 / 16});
  DeviceSimulation<float> gpu(p, gravity::make_gpu_tree_solver<float>(tree("cuda", bh::Opening::geometric, 0.001)),
                              SimulationState{.dt = 1.0 / 16});
  const std::string m = message(gpu);
  // The lowest failing index, as the host's in-order scan names it.
  EXPECT_TRUE(m.find("particle 7 (id 8)") != std::string::npos || m.find("particle 8 (id 9)") != std::string::npos) << m;
  EXPECT_NE(m.find("integration.dt_min = 0.0009765625"), std::string::npos) << m;
  EXPECT_EQ(m, message(cpu));  // exact mode: the same accelerations, so the same words and numbers
}

TEST(DeviceBlockLeapfrogGpuSolver, BlockStepsWithTheDirectSolverAreRefusedNamingTheTree) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  gravity::GravityConfig g;
  g.solver = "direct";
  g.backend = "cuda";
  g.softening = 0.05;
  const auto p = ic::to_precision<float>(ic::plummer_sphere(100, 3));
  DeviceSimulation<float> sim(p, gravity::make_device_solver<float>(g), SimulationState{.dt = 1.0 / 64});
  try {
    sim.use_block_steps({.rule = {StepCriterion::softening, 0.025, 0.05}, .dt_min = 1e-6});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gravity.solver = \"tree\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orrery::integrate
