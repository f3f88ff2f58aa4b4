#include "orrery/gravity/direct_solver.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "orrery/gravity/direct_kernel.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "support/all_pairs_targets_checks.hpp"
#include "support/test_particles.hpp"

namespace orrery::gravity {
namespace {

using testing::acceleration_errors;
using testing::plummer;

template <class Real>
Accelerations<Real> solve(ForceSolver<Real>& solver, const Particles<Real>& p, bool potential = true) {
  Accelerations<Real> a(static_cast<std::size_t>(p.size()));
  solver.solve(p.sources(), a.view(potential), {.potential = potential});
  return a;
}

template <class Softening>
class DirectVsReference : public ::testing::Test {};

using Kernels = ::testing::Types<PlummerSoftening<float>, SplineSoftening<float>, PlummerSoftening<double>,
                                 SplineSoftening<double>>;
TYPED_TEST_SUITE(DirectVsReference, Kernels);

// N = 1001: not a multiple of the lane count, so the masked tail is covered.
TYPED_TEST(DirectVsReference, AccelerationsAndPotentialsAgree) {
  using Softening = TypeParam;
  using Real = decltype(Softening(0).tiny());
  const auto p = plummer<Real>(1001, 5);
  const Particles<double> pd = ic::to_precision<double>(ic::plummer_sphere(1001, 5));
  DirectSolver<Real, Softening> direct(Real(0.05));
  ReferenceSolver<double> reference(Softening::kind, static_cast<double>(Real(0.05)));
  // The reference sees the same (rounded) positions as the solver under test.
  Particles<double> same = pd;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    same.x[i] = p.x[i];
    same.y[i] = p.y[i];
    same.z[i] = p.z[i];
    same.mass[i] = p.mass[i];
  }
  const auto a = solve<Real>(direct, p);
  const auto ref = solve<double>(reference, same);
  const auto err = acceleration_errors(a, ref);
  const double tol = sizeof(Real) == 4 ? 1e-6 : 1e-13;
  EXPECT_LT(err.rms, tol) << "max " << err.max;
  EXPECT_LT(err.max, 30 * tol);
  double pot_err = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    pot_err = std::max(pot_err, std::abs((a.potential[i] - ref.potential[i]) / ref.potential[i]));
  }
  EXPECT_LT(pot_err, 10 * tol);
}

TEST(DirectSolver, PotentialOnlyWhenAsked) {
  const auto p = plummer<float>(100, 1);
  DirectSolver<float, PlummerSoftening<float>> direct(0.05f);
  Accelerations<float> a(100);
  a.potential.assign(100, 42.0f);
  direct.solve(p.sources(), a.view(), {.potential = false});
  for (float v : a.potential) ASSERT_EQ(v, 42.0f);
  const auto with = solve<float>(direct, p, true);
  for (std::int64_t i = 0; i < 100; ++i) {
    ASSERT_EQ(a.ax[i], with.ax[i]);  // the potential does not change the forces
    ASSERT_LT(with.potential[i], 0.0f);
  }
}

template <class Real>
bool bitwise_equal(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0;
}

TEST(DirectSolver, BitIdenticalOnAnyThreadCountAndAlignment) {
  const auto p = plummer<float>(1500, 9);
  DirectSolver<float, SplineSoftening<float>> direct(0.01f);
  const int all = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = solve<float>(direct, p);
  omp_set_num_threads(2);
  const auto two = solve<float>(direct, p);
  omp_set_num_threads(std::max(all, 3));
  const auto many = solve<float>(direct, p);
  omp_set_num_threads(all);
  for (const auto* other : {&two, &many}) {
    EXPECT_TRUE(bitwise_equal(one.ax, other->ax));
    EXPECT_TRUE(bitwise_equal(one.ay, other->ay));
    EXPECT_TRUE(bitwise_equal(one.az, other->az));
    EXPECT_TRUE(bitwise_equal(one.potential, other->potential));
  }
  // The same values at an odd offset in memory give the same bits.
  std::vector<float> buf(4 * 1501 + 1);
  float* base = buf.data() + 1;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    base[i] = p.x[i];
    base[1501 + i] = p.y[i];
    base[2 * 1501 + i] = p.z[i];
    base[3 * 1501 + i] = p.mass[i];
  }
  const SourcesView<float> shifted{p.size(), base, base + 1501, base + 2 * 1501, base + 3 * 1501};
  Accelerations<float> a(static_cast<std::size_t>(p.size()));
  direct.solve(shifted, a.view());
  EXPECT_TRUE(bitwise_equal(one.ax, a.ax));
  EXPECT_TRUE(bitwise_equal(one.potential, a.potential));
}

TEST(DirectSolver, EveryLaneSumsItsSourcesInIndexOrder) {
  // The contract the GPU's exact mode relies on (direct_gpu_exact.cu): source
  // j goes to lane j % W, lanes in index order, the target itself masked in
  // place. Rebuild that sum naively and compare bits. 203 sources: a partial
  // last block; targets in the first, a middle and the last block.
  const auto p = plummer<float>(203, 12);
  const auto s = p.sources();
  const PlummerSoftening<float> soft(0.05f);
  constexpr int W = kDirectLanes<float>;
  for (std::int64_t i : {0, 5, 100, 191, 202}) {
    LaneSums<float, true> naive;
    for (std::int64_t j0 = 0; j0 < s.count; j0 += W) {
      for (int l = 0; l < W; ++l) {
        const std::int64_t j = std::min<std::int64_t>(j0 + l, s.count - 1);
        naive.add(l, s.x[j] - s.x[i], s.y[j] - s.y[i], s.z[j] - s.z[i], s.mass[j], (j0 + l < s.count) & (j != i), soft);
      }
    }
    const auto want = naive.combine();
    const auto got = direct_field_at<float, PlummerSoftening<float>, true>(i, s, soft);
    EXPECT_EQ(std::memcmp(&want, &got, sizeof want), 0) << i;
  }
}

TEST(DirectSolver, SelfExcludedAndCoincidentUnsoftenedStaysFinite) {
  Particles<float> p(3);
  p.x = {0.0f, 1.0f, 5.0f};
  p.y = {0.0f, 0.0f, 0.0f};
  p.z = {0.0f, 0.0f, 0.0f};
  p.mass = {1.0f, 1.0f, 1.0f};
  DirectSolver<float, PlummerSoftening<float>> direct(0.0f);
  const auto a = solve<float>(direct, p);
  EXPECT_FLOAT_EQ(a.ax[0], 1.0f + 1.0f / 25.0f);
  EXPECT_FLOAT_EQ(a.potential[0], -(1.0f + 0.2f));
}

TEST(DirectSolver, ReportsAllPairs) {
  const auto p = plummer<double>(64, 2);
  DirectSolver<double, PlummerSoftening<double>> direct(0.05);
  Accelerations<double> a(64);
  const auto report = direct.solve(p.sources(), a.view(), {.potential = true, .per_target_counts = true});
  EXPECT_EQ(report.total.particle_interactions, 64u * 63u);
  ASSERT_EQ(report.per_target.size(), 64u);
  EXPECT_EQ(report.per_target[5].particle_interactions, 63u);
  EXPECT_EQ(direct.name(), "direct/cpu/double/plummer");
}

}  // namespace
}  // namespace orrery::gravity

namespace orrery::gravity {
namespace {

// The field at a subset of the sources, and at points: a source's bits are
// those of the all-targets solve, and a point placed on a source gets that
// source's accelerations (the term of zero separation adds exactly zero).
TEST(DirectSolverTargets, SubsetsHaveTheWholeSetsBitsAndAPointOnASourceItsAcceleration) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 91));
  DirectSolver<float, PlummerSoftening<float>> solver(0.05f);
  Accelerations<float> whole(3001);
  solver.solve(p.sources(), whole.view());
  const std::vector<std::int64_t> idx{3000, 17, 0, 1500, 17 + 64, 2999};
  Accelerations<float> sub(idx.size());
  const SolverReport r = solver.solve(p.sources(), TargetSet<float>::of_sources(6, idx.data()), sub.view(),
                                      {.potential = true, .per_target_counts = true});
  std::vector<float> x, y, z;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    EXPECT_EQ(std::memcmp(&sub.ax[k], &whole.ax[idx[k]], sizeof(float)), 0) << k;
    EXPECT_EQ(std::memcmp(&sub.ay[k], &whole.ay[idx[k]], sizeof(float)), 0) << k;
    EXPECT_EQ(std::memcmp(&sub.az[k], &whole.az[idx[k]], sizeof(float)), 0) << k;
    EXPECT_EQ(std::memcmp(&sub.potential[k], &whole.potential[idx[k]], sizeof(float)), 0) << k;
    EXPECT_EQ(r.per_target[k].particle_interactions, 3000u);
    x.push_back(p.x[idx[k]]);
    y.push_back(p.y[idx[k]]);
    z.push_back(p.z[idx[k]]);
  }
  Accelerations<float> at(idx.size());
  const SolverReport rp = solver.solve(p.sources(), TargetSet<float>::of_points(6, x.data(), y.data(), z.data()),
                                       at.view(), {.potential = true, .per_target_counts = true});
  for (std::size_t k = 0; k < idx.size(); ++k) {
    EXPECT_EQ(at.ax[k], whole.ax[idx[k]]) << k;
    EXPECT_EQ(at.ay[k], whole.ay[idx[k]]) << k;
    EXPECT_EQ(at.az[k], whole.az[idx[k]]) << k;
    // The point is no source: it also feels the source it sits on, -m/eps.
    EXPECT_NEAR(at.potential[k], whole.potential[idx[k]] - p.mass[idx[k]] / 0.05f, 1e-5f) << k;
    EXPECT_EQ(rp.per_target[k].particle_interactions, 3001u);
  }
  const std::vector<std::int64_t> bad{4, 3001};
  Accelerations<float> two(2);
  try {
    solver.solve(p.sources(), TargetSet<float>::of_sources(2, bad.data()), two.view());
    ADD_FAILURE() << "an index past the sources was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("target 1 names source 3001"), std::string::npos) << e.what();
  }
}

// The TargetSet contract on random subsets and points (support/all_pairs_targets_checks.hpp).
TEST(DirectSolverTargets, RandomSubsetsAndPointsGetTheWholeSetsBitsAndCounters) {
  DirectSolver<float, PlummerSoftening<float>> plummer_float(0.05f);
  testing::expect_all_pairs_targets_contract<float>(plummer_float, plummer<float>(3001, 92), -1 / 0.05, "float plummer");
  DirectSolver<double, PlummerSoftening<double>> plummer_double(0.05);
  testing::expect_all_pairs_targets_contract<double>(plummer_double, plummer<double>(2003, 93), -1 / 0.05,
                                                     "double plummer");
  DirectSolver<float, SplineSoftening<float>> spline(0.05f);
  const double spline_zero = -SplineSoftening<double>(0.05).factors<MathMode::exact>(0.0).phi;
  testing::expect_all_pairs_targets_contract<float>(spline, plummer<float>(1501, 94), spline_zero, "float spline");
}

TEST(DirectSolverTargets, BadTargetSetsAreRefusedByName) {
  DirectSolver<float, PlummerSoftening<float>> solver(0.05f);
  testing::expect_bad_target_sets_refused<float>(solver, plummer<float>(100, 95));
}

}  // namespace
}  // namespace orrery::gravity
