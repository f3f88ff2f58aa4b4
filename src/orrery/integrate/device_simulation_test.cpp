// The device-resident leapfrog against the CPU Simulation.
#include "orrery/integrate/device_simulation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/device_simulation_stepper.hpp"

namespace orrery::integrate {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

template <class Real>
bool bitwise_equal(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0;
}

template <class Real>
double max_relative_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(double(b[i])));
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
  }
  return diff / scale;
}

template <class Real>
struct Runs {
  Particles<Real> cpu, gpu;
};

/// `steps` leapfrog steps of a Plummer sphere on the CPU (DirectSolver) and
/// on the device (DirectGpuSolver in `mode`), from the same initial state.
template <class Real>
Runs<Real> run_both(std::int64_t n, int steps, MathMode mode) {
  const auto initial = ic::to_precision<Real>(ic::plummer_sphere(n, 21));
  const Real eps = Real(0.05);
  SimulationState state;
  state.dt = 1.0 / 128;
  Simulation<Real> cpu(initial, std::make_unique<gravity::DirectSolver<Real, PlummerSoftening<Real>>>(eps), state);
  DeviceSimulation<Real> gpu(initial, std::make_unique<gravity::DirectGpuSolver<Real, PlummerSoftening<Real>>>(eps, mode),
                             state);
  for (int k = 0; k < steps; ++k) cpu.step();
  gpu.run_steps(steps);
  EXPECT_EQ(gpu.step_count(), steps);
  EXPECT_EQ(gpu.time(), cpu.time());
  return {cpu.particles(), gpu.particles()};
}

template <class Real>
class DeviceLeapfrog : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DeviceLeapfrog, Reals);

TYPED_TEST(DeviceLeapfrog, ExactModeRunIsBitIdenticalToCpuRun) {
  SKIP_WITHOUT_GPU();
  const auto r = run_both<TypeParam>(777, 5, MathMode::exact);
  for (auto m : {&Particles<TypeParam>::x, &Particles<TypeParam>::y, &Particles<TypeParam>::z, &Particles<TypeParam>::vx,
                 &Particles<TypeParam>::vy, &Particles<TypeParam>::vz}) {
    EXPECT_TRUE(bitwise_equal(r.gpu.*m, r.cpu.*m));
  }
  EXPECT_EQ(r.gpu.id, r.cpu.id);
}

TYPED_TEST(DeviceLeapfrog, FastModeRunAgreesWithCpuRunToRounding) {
  SKIP_WITHOUT_GPU();
  const auto r = run_both<TypeParam>(1000, 5, MathMode::fast);
  const double tol = sizeof(TypeParam) == 4 ? 1e-5 : 1e-12;
  EXPECT_LT(max_relative_difference(r.gpu.x, r.cpu.x), tol);
  EXPECT_LT(max_relative_difference(r.gpu.vy, r.cpu.vy), tol);
  EXPECT_LT(max_relative_difference(r.gpu.vz, r.cpu.vz), tol);
}

TEST(DeviceSimulation, AccelerationsAndPotentialsOnRequest) {
  SKIP_WITHOUT_GPU();
  const auto p = ic::to_precision<double>(ic::plummer_sphere(300, 2));
  SimulationState state;
  state.dt = 0.01;
  DeviceSimulation<double> gpu(p, std::make_unique<gravity::DirectGpuSolver<double, PlummerSoftening<double>>>(0.05),
                               state);
  gravity::DirectSolver<double, PlummerSoftening<double>> cpu(0.05);
  Accelerations<double> ref(300);
  cpu.solve(p.sources(), ref.view());
  const auto a = gpu.accelerations(true);
  EXPECT_LT(max_relative_difference(a.ax, ref.ax), 1e-13);
  EXPECT_LT(max_relative_difference(a.potential, ref.potential), 1e-13);
  EXPECT_GT(gpu.interactions(), 0u);
}

/// Simulation with the CUDA stepper (what `orrery run` builds for backend =
/// "cuda") against the host Simulation with the same solver on the CPU, in
/// exact mode: steps between outputs move no particle data, and the bits agree.
class DeviceResidentSimulation : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceResidentSimulation, StepsTransferNothingAndGiveTheCpuBits) {
  SKIP_WITHOUT_GPU();
  gravity::GravityConfig g;
  g.solver = GetParam();
  g.precision = gravity::Precision::double_;
  g.math = MathMode::exact;
  g.softening = 0.05;
  const auto p = ic::to_precision<double>(ic::plummer_sphere(500, 9));
  SimulationState state;
  state.dt = 1.0 / 128;
  g.backend = "cpu";
  Simulation<double> cpu(p, gravity::make_solver<double>(g), state);
  g.backend = "cuda";
  auto device_solver = gravity::make_device_solver<double>(g);
  ASSERT_NE(device_solver, nullptr);
  Simulation<double> gpu(p, make_device_stepper<double>(std::move(device_solver)), state);
  const auto& stepper = *gpu.device();
  EXPECT_EQ(stepper.uploads(), 1u);

  for (int k = 0; k < 7; ++k) {
    cpu.step();
    gpu.step();
  }
  EXPECT_EQ(stepper.uploads(), 1u);
  EXPECT_EQ(stepper.downloads(), 0u);
  for (auto m : {&Particles<double>::x, &Particles<double>::vy, &Particles<double>::vz}) {
    EXPECT_TRUE(bitwise_equal(gpu.particles().*m, cpu.particles().*m));
  }
  EXPECT_EQ(gpu.particles().id, cpu.particles().id);
  EXPECT_EQ(stepper.downloads(), 1u);
  EXPECT_TRUE(bitwise_equal(gpu.potentials(), cpu.potentials()));
  EXPECT_TRUE(bitwise_equal(gpu.accelerations().ax, cpu.accelerations().ax));
  EXPECT_EQ(stepper.downloads(), 2u);
  EXPECT_NE(gpu.solver_name().find("/cuda"), std::string::npos) << gpu.solver_name();
}

INSTANTIATE_TEST_SUITE_P(Solvers, DeviceResidentSimulation, ::testing::Values("direct", "tree"));

TEST(DeviceSimulation, HostOnlyConfigurationsHaveNoDeviceSolver) {
  gravity::GravityConfig g;
  g.backend = "cpu";
  EXPECT_EQ(gravity::make_device_solver<float>(g), nullptr);
  g.solver = "tree";
  EXPECT_EQ(gravity::make_device_solver<double>(g), nullptr);
}

TEST(DeviceSimulation, InvalidTimeStepIsAnInputErrorNamingTheKey) {
  SKIP_WITHOUT_GPU();
  const auto p = ic::to_precision<float>(ic::plummer_sphere(10, 1));
  SimulationState state;
  state.dt = -1;
  try {
    DeviceSimulation<float> gpu(p, std::make_unique<gravity::DirectGpuSolver<float, PlummerSoftening<float>>>(0.05f),
                                state);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("integration.dt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orrery::integrate
