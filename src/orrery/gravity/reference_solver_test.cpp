#include "orrery/gravity/reference_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "support/all_pairs_targets_checks.hpp"
#include "support/test_particles.hpp"

namespace orrery::gravity {
namespace {

TEST(ReferenceSolver, TwoBodiesMatchNewton) {
  Particles<double> p(2);
  p.x = {0.0, 2.0};
  p.y = {0.0, 0.0};
  p.z = {0.0, 0.0};
  p.mass = {3.0, 0.5};
  Accelerations<double> a(2);
  ReferenceSolver<double>(SofteningKind::plummer, 0.0).solve(p.sources(), a.view());
  EXPECT_DOUBLE_EQ(a.ax[0], 0.5 / 4.0);
  EXPECT_DOUBLE_EQ(a.ax[1], -3.0 / 4.0);
  EXPECT_EQ(a.ay[0], 0.0);
  EXPECT_DOUBLE_EQ(a.potential[0], -0.5 / 2.0);
  EXPECT_DOUBLE_EQ(a.potential[1], -3.0 / 2.0);
}

TEST(ReferenceSolver, TwoBodiesPlummerSoftened) {
  Particles<double> p(2);
  p.x = {0.0, 0.0};
  p.y = {0.0, 0.3};
  p.z = {0.0, 0.4};  // separation 0.5
  p.mass = {1.0, 1.0};
  Accelerations<double> a(2);
  ReferenceSolver<double>(SofteningKind::plummer, 0.1).solve(p.sources(), a.view());
  const double d = std::sqrt(0.25 + 0.01);
  EXPECT_NEAR(a.az[0], 0.4 / (d * d * d), 1e-15);
  EXPECT_NEAR(a.ay[1], -0.3 / (d * d * d), 1e-15);
  EXPECT_NEAR(a.potential[0], -1.0 / d, 1e-15);
}

// A uniform thin shell of n equal masses (total mass 1, radius 1, unsoftened):
// inside the field vanishes and the potential is -1; outside both are those
// of a point mass. Test particles carry a negligible mass so they barely
// perturb the shell; we evaluate the field at them. The 6000-point sphere is
// uniform to ~1e-6, hence the tolerances.
class ShellTheorem : public ::testing::Test {
 protected:
  static constexpr int kShell = 6000;
  static void SetUpTestSuite() {
    // Fibonacci sphere: nearly uniform and deterministic.
    p_.resize(kShell + 2);
    const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
    for (int k = 0; k < kShell; ++k) {
      const double z = 1.0 - (2.0 * k + 1.0) / kShell;
      const double r = std::sqrt(1.0 - z * z);
      p_.x[k] = r * std::cos(golden * k);
      p_.y[k] = r * std::sin(golden * k);
      p_.z[k] = z;
      p_.mass[k] = 1.0 / kShell;
    }
    set_probe(kShell, 0.2, -0.1, 0.3);     // inside
    set_probe(kShell + 1, 1.5, 2.0, -1.0);  // outside, r = sqrt(7.25)
    Accelerations<double> a(kShell + 2);
    ReferenceSolver<double>(SofteningKind::plummer, 0.0).solve(p_.sources(), a.view());
    a_ = a;
  }
  static void set_probe(int k, double x, double y, double z) {
    p_.x[k] = x;
    p_.y[k] = y;
    p_.z[k] = z;
    p_.mass[k] = 1e-12;
  }
  static inline Particles<double> p_;
  static inline Accelerations<double> a_;
};

TEST_F(ShellTheorem, InsideNoForceConstantPotential) {
  const int k = kShell;
  EXPECT_LT(std::hypot(a_.ax[k], a_.ay[k], a_.az[k]), 1e-3);
  EXPECT_NEAR(a_.potential[k], -1.0, 1e-4);
}

TEST_F(ShellTheorem, OutsideActsAsPointMass) {
  const int k = kShell + 1;
  const double r = std::sqrt(7.25);
  const double g = 1.0 / (r * r * r);
  EXPECT_NEAR(a_.ax[k], -1.5 * g, 1e-5 * g);
  EXPECT_NEAR(a_.ay[k], -2.0 * g, 1e-5 * g);
  EXPECT_NEAR(a_.az[k], 1.0 * g, 1e-5 * g);
  EXPECT_NEAR(a_.potential[k], -1.0 / r, 1e-5 / r);
}

TEST(ReferenceSolver, CompensatedSumsKeepTermsBelowHalfAnUlp) {
  // One huge term (2^40, from a source at 2^-20) then 3000 terms of ~1e-4,
  // each below half an ulp of 2^40: a naive double sum drops every one of
  // them (a relative error of ~3e-13); the compensated sum keeps them.
  const int n = 3002;
  Particles<double> p(n);
  for (int k = 0; k < n; ++k) {
    p.x[k] = k == 0 ? 0.0 : (k == 1 ? 0x1p-20 : 100.0 + 0.01 * k);
    p.y[k] = 0;
    p.z[k] = 0;
    p.mass[k] = 1.0;
  }
  Accelerations<double> a(n);
  ReferenceSolver<double>(SofteningKind::plummer, 0.0).solve(p.sources(), a.view(), {.potential = false});
  long double small = 0;
  for (int k = 2; k < n; ++k) small += 1.0L / ((long double)p.x[k] * p.x[k]);
  const double exact = static_cast<double>(0x1p40L + small);
  ASSERT_GT(small, 0.2L);
  EXPECT_NEAR(a.ax[0], exact, 2e-15 * exact);
}

TEST(ReferenceSolver, RejectsBadInput) {
  Particles<double> p(2);
  p.x = {0.0, NAN};
  p.mass = {1.0, 1.0};
  Accelerations<double> a(2);
  ReferenceSolver<double> solver(SofteningKind::plummer, 0.1);
  EXPECT_THROW(solver.solve(p.sources(), a.view()), InputError);
  p.x = {0.0, 1.0};
  p.mass = {1.0, -1.0};
  EXPECT_THROW(solver.solve(p.sources(), a.view()), InputError);
  EXPECT_THROW(ReferenceSolver<double>(SofteningKind::plummer, -1.0), InputError);
}

// ForceSolver's targets overload: the set of every source is the plain
// solve. A solver that does not take subsets (ForceSolver's default; none
// of the library's) refuses one with a message naming it and those that do.
TEST(ReferenceSolver, TakesEverySourceAsTargets) {
  Particles<double> p(3);
  p.x = {0.0, 1.0, 3.0};
  p.mass = {1.0, 2.0, 0.5};
  ReferenceSolver<double> solver(SofteningKind::plummer, 0.1);
  ForceSolver<double>& as_interface = solver;
  Accelerations<double> plain(3), through_set(3);
  solver.solve(p.sources(), plain.view());
  as_interface.solve(p.sources(), TargetSet<double>{}, through_set.view());
  EXPECT_EQ(plain.ax, through_set.ax);
  EXPECT_EQ(plain.potential, through_set.potential);
}

class EverySourceOnly final : public ForceSolver<double> {
 public:
  std::string name() const override { return "every-source-only"; }
  SolverReport solve(const SourcesView<double>&, const AccelerationsView<double>&, const SolveOptions&) override {
    return {};
  }
  using ForceSolver<double>::solve;
};

TEST(ForceSolver, TheDefaultTargetsSolveRefusesASubsetNamingTheSolversThatTakeOne) {
  Particles<double> p(3);
  p.mass = {1.0, 2.0, 0.5};
  EverySourceOnly solver;
  const std::vector<std::int64_t> one{1};
  Accelerations<double> a(1);
  try {
    solver.solve(p.sources(), TargetSet<double>::of_sources(1, one.data()), a.view());
    ADD_FAILURE() << "a subset was not refused";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("every-source-only"), std::string::npos) << m;
    EXPECT_NE(m.find("accepted: the reference, direct or tree solver"), std::string::npos) << m;
  }
}

// The TargetSet contract on random subsets and points (support/all_pairs_targets_checks.hpp),
// and a subset's refusals named as every solver names them.
TEST(ReferenceSolverTargets, RandomSubsetsAndPointsGetTheWholeSetsBitsAndCounters) {
  ReferenceSolver<double> plummer_double(SofteningKind::plummer, 0.05);
  testing::expect_all_pairs_targets_contract<double>(plummer_double, testing::plummer<double>(1201, 96), -1 / 0.05,
                                                     "double plummer");
  ReferenceSolver<float> spline(SofteningKind::spline, 0.05);
  const double spline_zero = -SplineSoftening<double>(0.05).factors<MathMode::exact>(0.0).phi;
  testing::expect_all_pairs_targets_contract<float>(spline, testing::plummer<float>(801, 97), spline_zero,
                                                    "float spline");
}

TEST(ReferenceSolverTargets, BadTargetSetsAreRefusedByName) {
  ReferenceSolver<double> solver(SofteningKind::plummer, 0.05);
  testing::expect_bad_target_sets_refused<double>(solver, testing::plummer<double>(100, 98));
}

}  // namespace
}  // namespace orrery::gravity
