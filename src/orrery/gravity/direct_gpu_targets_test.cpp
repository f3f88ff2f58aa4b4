// The CUDA direct solver's TargetSet solve (a subset of the sources, or
// points), in both math modes: every target's accelerations, potential and
// counters have the bits of the all-targets solve of the same mode
// (support/all_pairs_targets_checks.hpp), for several source slices of the
// fast kernel and for one; exact mode's are the CPU DirectSolver's; the
// device arrays' way in equals the host's; bad sets are refused by name.
// Every test skips (reported as skipped) where no CUDA device is present.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/direct_gpu_tuning.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "support/all_pairs_targets_checks.hpp"
#include "support/random_subset.hpp"
#include "support/test_particles.hpp"

namespace orrery::gravity {
namespace {

using testing::plummer;
using testing::same_bits;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

template <class Softening>
double phi_at_zero(double eps) {
  using Double = std::conditional_t<Softening::kind == SofteningKind::plummer, PlummerSoftening<double>,
                                    SplineSoftening<double>>;
  return -Double(eps).template factors<MathMode::exact>(0.0).phi;
}

template <class Softening>
class DirectGpuTargets : public ::testing::Test {};

using Kernels = ::testing::Types<PlummerSoftening<float>, SplineSoftening<float>, PlummerSoftening<double>,
                                 SplineSoftening<double>>;
TYPED_TEST_SUITE(DirectGpuTargets, Kernels);

// N = 3001: not a multiple of any tile, lane count or K; the fast kernel splits it into several slices.
TYPED_TEST(DirectGpuTargets, SubsetsAndPointsGetTheWholeSetsBitsInBothModes) {
  SKIP_WITHOUT_GPU();
  using Softening = TypeParam;
  using Real = decltype(Softening::tiny());
  const auto p = plummer<Real>(3001, 21);
  for (const MathMode mode : {MathMode::exact, MathMode::fast}) {
    DirectGpuSolver<Real, Softening> gpu(Real(0.05), mode);
    testing::expect_all_pairs_targets_contract<Real>(gpu, p, phi_at_zero<Softening>(0.05), gpu.name());
  }
}

// The fast kernel at sizes of one slice and of several (the plan says which).
TEST(DirectGpuTargetsFast, SubsetsGetTheWholeSetsBitsWithOneSliceAndWithSeveral) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {40000, 300001}) {
    const auto plan = gpu::choose_fast_plan<float>(n, cuda::current_multiprocessors());
    const auto p = plummer<float>(n, 22);
    DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.01f, MathMode::fast);
    testing::expect_all_pairs_targets_contract<float>(gpu, p, -1 / 0.01,
                                                      "n = " + std::to_string(n) + ", " +
                                                          std::to_string(plan.slices()) + " slices");
  }
}

TEST(DirectGpuTargetsExact, SubsetsHaveTheCpuDirectSolversBits) {
  SKIP_WITHOUT_GPU();
  const auto p = plummer<float>(2001, 23);
  DirectGpuSolver<float, SplineSoftening<float>> gpu(0.05f, MathMode::exact);
  DirectSolver<float, SplineSoftening<float>> cpu(0.05f);
  const auto idx = testing::random_subset(2001, 700, 24);
  const auto set = TargetSet<float>::of_sources(700, idx.data());
  Accelerations<float> g(700), c(700);
  gpu.solve(p.sources(), set, g.view());
  cpu.solve(p.sources(), set, c.view());
  for (std::size_t k = 0; k < 700; ++k)
    ASSERT_TRUE(same_bits(g.ax[k], c.ax[k]) && same_bits(g.ay[k], c.ay[k]) && same_bits(g.az[k], c.az[k]) &&
                same_bits(g.potential[k], c.potential[k]))
        << "target " << k;
}

template <class T>
cuda::DeviceBuffer<T> on_device(const std::vector<T>& v, cuda::StreamHandle stream) {
  cuda::DeviceBuffer<T> b(v.size());
  if (!v.empty()) b.upload(std::span<const T>(v), stream);
  return b;
}

TEST(DirectGpuTargets, DeviceApiOnAStreamEqualsHostApi) {
  SKIP_WITHOUT_GPU();
  const std::int64_t n = 5000, k = 350;
  const auto p = plummer<float>(n, 25);
  const auto idx = testing::random_subset(n, k, 26);
  for (const MathMode mode : {MathMode::exact, MathMode::fast}) {
    DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f, mode);
    Accelerations<float> host(k);
    gpu.solve(p.sources(), TargetSet<float>::of_sources(k, idx.data()), host.view());
    cuda::Stream stream;
    const auto s = stream.get();
    auto x = on_device(p.x, s), y = on_device(p.y, s), z = on_device(p.z, s), m = on_device(p.mass, s);
    auto index = on_device(idx, s);
    const auto size = static_cast<std::size_t>(k);
    cuda::DeviceBuffer<float> ax(size), ay(size), az(size), pot(size);
    gpu.solve_device({n, x.data(), y.data(), z.data(), m.data()}, TargetSet<float>::of_sources(k, index.data()),
                     {k, ax.data(), ay.data(), az.data(), pot.data()}, SolveOptions{}, s);
    Accelerations<float> dev(size);
    ax.download(dev.ax, s);
    ay.download(dev.ay, s);
    az.download(dev.az, s);
    pot.download(dev.potential, s);
    stream.synchronize();
    EXPECT_EQ(std::memcmp(dev.ax.data(), host.ax.data(), size * sizeof(float)), 0) << gpu.name();
    EXPECT_EQ(std::memcmp(dev.ay.data(), host.ay.data(), size * sizeof(float)), 0) << gpu.name();
    EXPECT_EQ(std::memcmp(dev.az.data(), host.az.data(), size * sizeof(float)), 0) << gpu.name();
    EXPECT_EQ(std::memcmp(dev.potential.data(), host.potential.data(), size * sizeof(float)), 0) << gpu.name();
  }
}

TEST(DirectGpuTargets, PointsAmongNoSourcesFeelNothing) {
  SKIP_WITHOUT_GPU();
  DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f, MathMode::fast);
  const float x[2] = {0.5f, -1.0f}, y[2] = {0, 0}, z[2] = {0, 0};
  Accelerations<float> a(2);
  a.ax.assign(2, 1.0f);
  a.potential.assign(2, 1.0f);
  gpu.solve(SourcesView<float>{}, TargetSet<float>::of_points(2, x, y, z), a.view());
  EXPECT_EQ(a.ax, std::vector<float>(2, 0.0f));
  EXPECT_EQ(a.potential, std::vector<float>(2, 0.0f));
}

TEST(DirectGpuTargets, BadTargetSetsAreRefusedByNameBeforeAnyUpload) {
  SKIP_WITHOUT_GPU();
  DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.05f);
  testing::expect_bad_target_sets_refused<float>(gpu, plummer<float>(100, 27));
}

}  // namespace
}  // namespace orrery::gravity
