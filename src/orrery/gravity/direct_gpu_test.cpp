// The CUDA direct solver against the reference and the CPU DirectSolver.
// Every test skips (reported as skipped) where no CUDA device is present.
#include "orrery/gravity/direct_gpu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/per_type_softening.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "support/test_particles.hpp"

namespace orrery::gravity {
namespace {

using testing::acceleration_errors;
using testing::plummer;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

/// Solves with outputs poisoned by NaN first, so an unwritten entry fails.
template <class Real>
Accelerations<Real> solve(ForceSolver<Real>& solver, const Particles<Real>& p, bool potential = true) {
  Accelerations<Real> a(static_cast<std::size_t>(p.size()));
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  for (auto* v : {&a.ax, &a.ay, &a.az, &a.potential}) v->assign(v->size(), nan);
  solver.solve(p.sources(), a.view(potential), {.potential = potential});
  return a;
}

/// The reference field at exactly the (rounded) positions the solver saw.
template <class Real>
Accelerations<double> reference_field(const Particles<Real>& p, SofteningKind kind, Real eps) {
  Particles<double> same(static_cast<std::size_t>(p.size()));
  for (std::int64_t i = 0; i < p.size(); ++i) {
    same.x[i] = p.x[i];
    same.y[i] = p.y[i];
    same.z[i] = p.z[i];
    same.mass[i] = p.mass[i];
  }
  ReferenceSolver<double> reference(kind, static_cast<double>(eps));
  return solve<double>(reference, same);
}

template <class Real>
double max_potential_error(const Accelerations<Real>& a, const Accelerations<double>& ref) {
  double e = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    e = std::max(e, std::abs((a.potential[i] - ref.potential[i]) / ref.potential[i]));
  }
  return e;
}

template <class Real>
bool bitwise_equal(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0;
}

template <class Softening>
class DirectGpu : public ::testing::Test {};

using Kernels = ::testing::Types<PlummerSoftening<float>, SplineSoftening<float>, PlummerSoftening<double>,
                                 SplineSoftening<double>>;
TYPED_TEST_SUITE(DirectGpu, Kernels);

// N = 3001: not a multiple of any tile, lane count or K, so every tail is covered.
TYPED_TEST(DirectGpu, FastModeAgreesWithReference) {
  SKIP_WITHOUT_GPU();
  using Softening = TypeParam;
  using Real = decltype(Softening::tiny());
  const Real eps = Real(0.01);
  const auto p = plummer<Real>(3001, 11);
  DirectGpuSolver<Real, Softening> gpu(eps, MathMode::fast);
  const auto a = solve<Real>(gpu, p);
  const auto ref = reference_field(p, Softening::kind, eps);
  const auto err = acceleration_errors(a, ref);
  const double tol = sizeof(Real) == 4 ? 1e-6 : 1e-13;
  EXPECT_LT(err.rms, tol) << "max " << err.max;
  EXPECT_LT(err.max, 30 * tol);
  EXPECT_LT(max_potential_error(a, ref), 10 * tol);
}

TYPED_TEST(DirectGpu, ExactModeIsBitIdenticalToCpuDirectSolver) {
  SKIP_WITHOUT_GPU();
  using Softening = TypeParam;
  using Real = decltype(Softening::tiny());
  for (const std::int64_t n : {1, 2, 17, 1001}) {
    const auto p = plummer<Real>(n, 3);
    DirectGpuSolver<Real, Softening> gpu(Real(0.05), MathMode::exact);
    DirectSolver<Real, Softening> cpu(Real(0.05));
    const auto g = solve<Real>(gpu, p);
    const auto c = solve<Real>(cpu, p);
    EXPECT_TRUE(bitwise_equal(g.ax, c.ax)) << "n = " << n;
    EXPECT_TRUE(bitwise_equal(g.ay, c.ay)) << "n = " << n;
    EXPECT_TRUE(bitwise_equal(g.az, c.az)) << "n = " << n;
    EXPECT_TRUE(bitwise_equal(g.potential, c.potential)) << "n = " << n;
  }
}

TYPED_TEST(DirectGpu, FastModeAgreesWithCpuDirectSolver) {
  SKIP_WITHOUT_GPU();
  using Softening = TypeParam;
  using Real = decltype(Softening::tiny());
  const auto p = plummer<Real>(2000, 8);
  DirectGpuSolver<Real, Softening> gpu(Real(0.02));
  DirectSolver<Real, Softening> cpu(Real(0.02));
  const auto g = solve<Real>(gpu, p);
  const auto c = solve<Real>(cpu, p);
  Accelerations<double> cd(static_cast<std::size_t>(p.size()));
  for (std::int64_t i = 0; i < p.size(); ++i) {
    cd.ax[i] = c.ax[i];
    cd.ay[i] = c.ay[i];
    cd.az[i] = c.az[i];
  }
  const auto err = acceleration_errors(g, cd);
  EXPECT_LT(err.rms, sizeof(Real) == 4 ? 2e-6 : 2e-13) << "max " << err.max;
}

TEST(DirectGpuSolver, FastModeIsDeterministicRunToRun) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {3001, 40000}) {  // one and several source slices
    const auto p = plummer<float>(n, 6);
    DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.01f);
    const auto a = solve<float>(gpu, p);
    const auto b = solve<float>(gpu, p);
    EXPECT_TRUE(bitwise_equal(a.ax, b.ax) && bitwise_equal(a.ay, b.ay) && bitwise_equal(a.az, b.az) &&
                bitwise_equal(a.potential, b.potential))
        << "n = " << n;
  }
}

TEST(DirectGpuSolver, PotentialOnlyWhenAskedAndForcesUnchanged) {
  SKIP_WITHOUT_GPU();
  const auto p = plummer<float>(700, 2);
  DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f);
  Accelerations<float> a(700);
  a.potential.assign(700, 42.0f);
  gpu.solve(p.sources(), a.view(), {.potential = false});
  for (float v : a.potential) ASSERT_EQ(v, 42.0f);
  const auto with = solve<float>(gpu, p, true);
  for (std::int64_t i = 0; i < 700; ++i) {
    ASSERT_EQ(a.ax[i], with.ax[i]) << i;  // the same arithmetic either way
    ASSERT_LT(with.potential[i], 0.0f);
  }
}

TEST(DirectGpuSolver, DeviceApiOnAStreamEqualsHostApi) {
  SKIP_WITHOUT_GPU();
  const std::int64_t n = 5000;
  const auto p = plummer<float>(n, 4);
  DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f);
  const auto host = solve<float>(gpu, p);
  const auto size = static_cast<std::size_t>(n);
  cuda::Stream stream;
  cuda::DeviceBuffer<float> x(size), y(size), z(size), m(size), ax(size), ay(size), az(size), pot(size);
  x.upload(p.x, stream.get());
  y.upload(p.y, stream.get());
  z.upload(p.z, stream.get());
  m.upload(p.mass, stream.get());
  gpu.solve_device({n, x.data(), y.data(), z.data(), m.data()}, {n, ax.data(), ay.data(), az.data(), pot.data()},
                   SolveOptions{.potential = true}, stream.get());
  stream.synchronize();
  Accelerations<float> dev(size);
  ax.download(dev.ax, stream.get());
  ay.download(dev.ay, stream.get());
  az.download(dev.az, stream.get());
  pot.download(dev.potential, stream.get());
  EXPECT_TRUE(bitwise_equal(dev.ax, host.ax));
  EXPECT_TRUE(bitwise_equal(dev.ay, host.ay));
  EXPECT_TRUE(bitwise_equal(dev.az, host.az));
  EXPECT_TRUE(bitwise_equal(dev.potential, host.potential));
}

TEST(DirectGpuSolver, ReportCountsPairsAndPhases) {
  SKIP_WITHOUT_GPU();
  const auto p = plummer<double>(300, 1);
  DirectGpuSolver<double, SplineSoftening<double>> gpu(0.05, MathMode::exact);
  Accelerations<double> a(300);
  const SolverReport r = gpu.solve(p.sources(), a.view(), {.per_target_counts = true});
  EXPECT_EQ(r.total.particle_interactions, 300u * 299u);
  ASSERT_EQ(r.per_target.size(), 300u);
  EXPECT_EQ(r.per_target[7].particle_interactions, 299u);
  ASSERT_EQ(r.phase_seconds.size(), 3u);
  EXPECT_EQ(r.phase_seconds[1].first, "direct");
  EXPECT_GT(r.phase_seconds[1].second, 0.0);
  EXPECT_EQ(gpu.name(), "direct/cuda/double/spline/exact");
}

TEST(DirectGpuSolver, FactoryBuildsItForBackendCuda) {
  SKIP_WITHOUT_GPU();
  GravityConfig c;
  c.backend = "cuda";
  c.math = MathMode::exact;
  EXPECT_EQ(make_solver<float>(c)->name(), "direct/cuda/single/plummer/exact");
  c.backend = "auto";  // the GPU first where one is present
  c.softening_kernel = SofteningKind::spline;
  EXPECT_EQ(make_solver<double>(c)->name(), "direct/cuda/double/spline/exact");
}

TEST(DirectGpuSolver, BadInputIsAnInputError) {
  SKIP_WITHOUT_GPU();
  EXPECT_THROW((DirectGpuSolver<float, PlummerSoftening<float>>(-1.0f)), InputError);
  DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f);
  auto p = plummer<float>(10, 1);
  Accelerations<float> a(9);
  EXPECT_THROW(gpu.solve(p.sources(), a.view()), InputError);
  p.mass[3] = -1.0f;
  Accelerations<float> b(10);
  EXPECT_THROW(gpu.solve(p.sources(), b.view()), InputError);
}

TEST(DirectGpuSolver, InvalidDeviceIsARuntimeFailureNamingTheIndex) {
  SKIP_WITHOUT_GPU();
  const int bad = cuda::device_count() + 5;
  try {
    DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f, MathMode::fast, bad);
    FAIL() << "no exception for device " << bad;
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("device index " + std::to_string(bad)), std::string::npos) << e.what();
  }
}

TEST(DirectGpuSolver, RefusesASofteningPerTypeNamingTheSolversThatComputeIt) {
  // Refused before a device is touched (docs/softening.md: the CPU solvers compute it).
  GravityConfig c;
  c.softening_per_type[2] = 0.15;
  for (int device = 0; device < 2; ++device) {
    try {
      if (device)
        make_direct_cuda_device<float>(c);
      else
        make_direct_cuda<float>(c);
      FAIL() << "no InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), per_type_softening_refusal("direct/cuda"));
    }
  }
}

}  // namespace
}  // namespace orrery::gravity
