// The tree solver against the yardstick (gravity::ReferenceSolver, double,
// compensated): theta = 0 is direct summation, and theta = 0.5 on a Plummer
// sphere is as accurate as the seed report measured (issue 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "support/test_inputs.hpp"
#include "orrery/gravity/tree_solver.hpp"

namespace orrery::gravity {
namespace {

struct Errors {
  double rms = 0, max = 0, median = 0;
};

/// Relative acceleration errors of a at targets[k] against ref[k].
template <class Real>
Errors relative_errors(const Accelerations<Real>& a, const std::vector<std::int64_t>& targets,
                       const std::vector<double>& rx, const std::vector<double>& ry, const std::vector<double>& rz) {
  Errors e;
  std::vector<double> each(targets.size());
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const auto i = targets[k];
    const double dx = a.ax[i] - rx[k], dy = a.ay[i] - ry[k], dz = a.az[i] - rz[k];
    const double e2 = (dx * dx + dy * dy + dz * dz) / (rx[k] * rx[k] + ry[k] * ry[k] + rz[k] * rz[k]);
    e.rms += e2;
    e.max = std::max(e.max, std::sqrt(e2));
    each[k] = std::sqrt(e2);
  }
  e.rms = std::sqrt(e.rms / double(targets.size()));
  std::nth_element(each.begin(), each.begin() + each.size() / 2, each.end());
  e.median = each[each.size() / 2];
  return e;
}

template <class Real>
Errors errors_against_full_reference(const Particles<float>& p, const Accelerations<Real>& a, double eps) {
  gravity::ReferenceSolver<float> ref(SofteningKind::plummer, eps);
  Accelerations<float> r(p.size());
  ref.solve(p.sources(), r.view());
  std::vector<std::int64_t> all(p.size());
  std::vector<double> rx(p.size()), ry(p.size()), rz(p.size());
  for (std::int64_t i = 0; i < p.size(); ++i) {
    all[i] = i;
    rx[i] = r.ax[i];
    ry[i] = r.ay[i];
    rz[i] = r.az[i];
  }
  return relative_errors(a, all, rx, ry, rz);
}

bh::TreeSolverConfig config(double theta, bh::Multipole mp, double eps) {
  bh::TreeSolverConfig c;
  c.tree.theta = theta;
  c.tree.multipole = mp;
  c.softening = eps;
  return c;
}

TEST(TreeAccuracy, ThetaZeroIsDirectSummation) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(2000, 3));
  TreeSolver<float> tree(config(0.0, bh::Multipole::monopole, 0.05));
  Accelerations<float> a(p.size());
  const auto rep = tree.solve(p.sources(), a.view(), {.potential = true, .per_target_counts = true});
  ASSERT_EQ(rep.per_target.size(), 2000u);
  for (const auto& c : rep.per_target) {
    ASSERT_EQ(c.particle_interactions, 1999u);
    ASSERT_EQ(c.cell_interactions, 0u);
  }
  EXPECT_EQ(rep.total.particle_interactions, 2000u * 1999u);
  // Float sums of 1999 terms against the double reference: rounding only.
  const Errors e = errors_against_full_reference(p, a, 0.05);
  EXPECT_LT(e.rms, 2e-6);
  EXPECT_LT(e.max, 5e-5);
  // And against the CPU direct solver, which sums the same pairs in another order.
  gravity::DirectSolver<float, PlummerSoftening<float>> direct(0.05f);
  Accelerations<float> d(p.size());
  direct.solve(p.sources(), d.view());
  double worst = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const double dx = a.ax[i] - d.ax[i], dy = a.ay[i] - d.ay[i], dz = a.az[i] - d.az[i];
    const double n = std::hypot(d.ax[i], std::hypot(d.ay[i], d.az[i]));
    worst = std::max(worst, std::hypot(dx, std::hypot(dy, dz)) / n);
  }
  EXPECT_LT(worst, 1e-4);
}

TEST(TreeAccuracy, ThetaZeroMatchesTheReferenceOnDegenerateInputs) {
  for (const auto& in : testing::structured_inputs()) {
    const auto& p = in.particles;
    if (p.size() < 2) continue;
    TreeSolver<float> tree(config(0.0, bh::Multipole::quadrupole, 0.01));
    Accelerations<float> a(p.size());
    const auto rep = tree.solve(p.sources(), a.view(), {.potential = true, .per_target_counts = true});
    for (const auto& c : rep.per_target) ASSERT_EQ(c.particle_interactions, std::uint64_t(p.size() - 1)) << in.name;
    if (in.name == "one_point") {
      // Every pair is at zero separation: the softened force vanishes exactly.
      for (std::int64_t i = 0; i < p.size(); ++i) ASSERT_EQ(a.ax[i], 0.0f) << in.name;
      continue;
    }
    const Errors e = errors_against_full_reference(p, a, 0.01);
    EXPECT_LT(e.rms, 1e-4) << in.name;
  }
}

struct MonoQuad {
  Errors mono, quad;
};

/// A 65536-particle Plummer sphere and the reference accelerations at
/// `count` targets spread over it (4.3e9 pairs for all targets is minutes on
/// two cores).
struct PlummerReference {
  static constexpr std::int64_t kN = 65536;
  Particles<float> p;
  std::vector<std::int64_t> targets;
  std::vector<double> rx, ry, rz;

  PlummerReference(double eps, std::int64_t count) : p(ic::to_precision<float>(ic::plummer_sphere(kN, 20260811))) {
    for (std::int64_t k = 0; k < count; ++k) targets.push_back((k * 7919) % kN);
    rx.resize(targets.size());
    ry.resize(targets.size());
    rz.resize(targets.size());
    gravity::reference_accelerations_at(p.sources(), targets, SofteningKind::plummer, eps, rx.data(), ry.data(),
                                        rz.data());
  }
  Errors errors(const Accelerations<float>& a) const { return relative_errors(a, targets, rx, ry, rz); }
};

/// Monopole and quadrupole errors at theta on the 65536-particle Plummer sphere.
MonoQuad plummer_errors(double theta, double eps, std::int64_t count) {
  const PlummerReference ref(eps, count);
  Errors e[2];
  for (int q = 0; q < 2; ++q) {
    TreeSolver<float> tree(config(theta, q ? bh::Multipole::quadrupole : bh::Multipole::monopole, eps));
    Accelerations<float> a(PlummerReference::kN);
    tree.solve(ref.p.sources(), a.view());
    e[q] = ref.errors(a);
  }
  std::printf("theta %.2f eps %.3f N 65536: monopole rms %.3e max %.3e; quadrupole rms %.3e max %.3e; factors %.2f %.2f\n",
              theta, eps, e[0].rms, e[0].max, e[1].rms, e[1].max, e[0].rms / e[1].rms, e[0].max / e[1].max);
  return {e[0], e[1]};
}

// Issue 3: RMS relative error <= 2e-3 for the monopole at theta = 0.5 on a
// 65536-particle Plummer sphere with eps = 0.05 (seed report: 1.48e-3;
// measured 1.48e-3), quadrupole clearly better: measured 4.4x in RMS and
// 7.5x in the worst case with the softened second-order term (docs/adr/0005;
// the earlier unsoftened term gained only 1.1x and 2x here).
TEST(TreeAccuracy, PlummerSphereAtThetaHalf) {
  const MonoQuad e = plummer_errors(0.5, 0.05, 2048);
  EXPECT_LE(e.mono.rms, 2e-3);
  EXPECT_LT(e.quad.rms, e.mono.rms / 3);
  EXPECT_LT(e.quad.max, e.mono.max / 4);
}

// Where softening does not matter (eps = 0.001) the quadrupole is clearly
// better: measured 3.5x in RMS.
TEST(TreeAccuracy, QuadrupoleGainWithSmallSoftening) {
  const MonoQuad e = plummer_errors(0.5, 0.001, 1024);
  EXPECT_LE(e.mono.rms, 2e-3);
  EXPECT_LT(e.quad.rms, e.mono.rms / 2.5);
}

// The relative opening (docs/adr/0007) spends its interactions where the
// force needs them: GADGET's criterion, quadrupole, theta = 1.0 as the
// geometric cap, tolerance 0.003, the previous accelerations those of a
// bootstrap solve (floored at kRelativeFloor of the largest), against the
// geometric quadrupole at theta = 0.55, whose median error is the same.
// Measured (eps 0.05, 2048 targets):
//   relative 0.003:  median 3.26e-4, rms 4.15e-4, max 3.71e-3, 57.8 M cells, 13.1 M particle pairs
//   geometric 0.55:  median 3.27e-4, rms 4.60e-4, max 5.57e-3, 82.3 M cells, 42.9 M particle pairs
// so at equal median error the relative walk needs 30 % fewer cells and a
// third of the pairs. (Tolerance 0.004 gives median 3.93e-4 with 54.3 M
// cells, geometric theta 0.58 median 3.86e-4 with 75.2 M.) The floor holds
// the targets near the centre, whose acceleration nearly cancels, to an
// absolute tolerance: they set the worst error, 3.7e-3 at every tolerance
// from 0.003 to 0.005. The input is seeded and the walk deterministic, so
// these figures move only with rounding (fast-mode force kernels): the
// bounds leave ~10 % for that.
TEST(TreeAccuracy, RelativeOpeningOnAPlummerSphere) {
  constexpr double kEps = 0.05;
  const PlummerReference ref(kEps, 2048);
  auto c = config(1.0, bh::Multipole::quadrupole, kEps);
  c.tree.opening = bh::Opening::relative;
  c.tree.tolerance = 0.003;
  TreeSolver<float> relative(c);
  Accelerations<float> a(PlummerReference::kN);
  relative.solve(ref.p.sources(), a.view());  // the bootstrap
  const auto rr = relative.solve(ref.p.sources(), a.view(), {.previous_accelerations = true});
  const Errors er = ref.errors(a);
  TreeSolver<float> geometric(config(0.55, bh::Multipole::quadrupole, kEps));
  Accelerations<float> g(PlummerReference::kN);
  const auto rg = geometric.solve(ref.p.sources(), g.view());
  const Errors eg = ref.errors(g);
  std::printf("relative quadrupole theta 1.0 tolerance 0.003: median %.3e rms %.3e max %.3e cells %llu parts %llu\n",
              er.median, er.rms, er.max, static_cast<unsigned long long>(rr.total.cell_interactions),
              static_cast<unsigned long long>(rr.total.particle_interactions));
  std::printf("geometric quadrupole theta 0.55:             median %.3e rms %.3e max %.3e cells %llu parts %llu\n",
              eg.median, eg.rms, eg.max, static_cast<unsigned long long>(rg.total.cell_interactions),
              static_cast<unsigned long long>(rg.total.particle_interactions));
  EXPECT_LT(er.median, 3.6e-4);
  EXPECT_LT(er.median, 1.1 * eg.median);  // similar: measured 1.00
  EXPECT_LT(double(rr.total.cell_interactions), 0.8 * double(rg.total.cell_interactions));  // measured 0.70
  EXPECT_LT(double(rr.total.particle_interactions), 0.5 * double(rg.total.particle_interactions));  // 0.31
  EXPECT_LT(er.max, eg.max);  // measured 0.67
}

}  // namespace
}  // namespace orrery::gravity
