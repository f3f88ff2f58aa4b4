// Forces on a subset of the sources, and on points that are no sources
// (TreeSolver::solve with a TargetSet): each target's accelerations,
// potential and counters are bit-identical to the ones it gets when every
// source is a target, for random subsets of 0, 1, 7, 1 %, 50 % and 100 % of
// the particles (in random order), both criteria (the relative one from a
// bootstrap and in the steady state), both multipoles, float and double, the
// spline kernel. Points are checked against the scalar walk (walk_target_at)
// bit for bit and against a direct sum in double; bad target sets and an
// outside cube are refused with the particle or target named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <tuple>
#include <string>
#include <vector>

#include "orrery/bh/walk.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "support/random_subset.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"

namespace orrery::gravity {
namespace {

constexpr std::int64_t kN = 20000;

template <class Real>
struct Result {
  Accelerations<Real> acc;
  SolverReport report;
};

template <class Real>
Result<Real> solve(TreeSolver<Real>& solver, const Particles<Real>& p, const TargetSet<Real>& t, std::int64_t n,
                   const std::vector<Real>* previous_ax = nullptr, const std::vector<Real>* previous_ay = nullptr,
                   const std::vector<Real>* previous_az = nullptr, double largest = -1.0) {
  Result<Real> r{Accelerations<Real>(static_cast<std::size_t>(n)), {}};
  SolveOptions o;
  o.per_target_counts = true;
  if (previous_ax != nullptr) {
    r.acc.ax = *previous_ax;
    r.acc.ay = *previous_ay;
    r.acc.az = *previous_az;
    o.previous_accelerations = true;
    o.largest_previous_acceleration = largest;
  }
  r.report = solver.solve(p.sources(), t, r.acc.view(), o);
  return r;
}

template <class Real>
bool same_bits(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

template <class Real>
void expect_subsets_match(const bh::TreeSolverConfig& c, const std::string& name) {
  const auto p = ic::to_precision<Real>(ic::plummer_sphere(kN, 71));
  TreeSolver<Real> solver(c);
  const Result<Real> whole = solve(solver, p, TargetSet<Real>{}, kN);
  // The steady state of the relative opening: the whole set's second evaluation.
  const bool relative = c.tree.opening == bh::Opening::relative;
  double largest = 0;
  for (std::int64_t i = 0; i < kN; ++i)
    largest = std::max(largest, bh::acceleration_magnitude(whole.acc.ax[i], whole.acc.ay[i], whole.acc.az[i]));
  const Result<Real> steady = relative ? solve(solver, p, TargetSet<Real>{}, kN, &whole.acc.ax, &whole.acc.ay,
                                               &whole.acc.az) : whole;
  for (const std::int64_t k : {std::int64_t(0), std::int64_t(1), std::int64_t(7), kN / 100, kN / 2, kN}) {
    SCOPED_TRACE(name + ", " + std::to_string(k) + " targets");
    const auto idx = testing::random_subset(kN, k, 100 + k);
    const auto set = TargetSet<Real>::of_sources(k, idx.data());
    const Result<Real> first = solve(solver, p, set, k);
    std::vector<Real> px(k), py(k), pz(k);
    for (std::int64_t j = 0; j < k; ++j) {
      px[j] = whole.acc.ax[idx[j]];
      py[j] = whole.acc.ay[idx[j]];
      pz[j] = whole.acc.az[idx[j]];
    }
    const Result<Real> second = relative ? solve(solver, p, set, k, &px, &py, &pz, largest) : first;
    InteractionCounts total;
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t i = idx[j];
      for (const auto& [got, want, what] : {std::tuple{&first, &whole, "first"}, std::tuple{&second, &steady, "steady"}}) {
        ASSERT_TRUE(same_bits(got->acc.ax[j], want->acc.ax[i]) && same_bits(got->acc.ay[j], want->acc.ay[i]) &&
                    same_bits(got->acc.az[j], want->acc.az[i]) && same_bits(got->acc.potential[j], want->acc.potential[i]))
            << what << " evaluation, target " << j << " (source " << i << "): " << got->acc.ax[j] << " vs "
            << want->acc.ax[i];
        ASSERT_EQ(got->report.per_target[j], want->report.per_target[i]) << what << ", target " << j;
      }
      total += first.report.per_target[j];
    }
    EXPECT_EQ(first.report.total, total);
  }
}

bh::TreeSolverConfig config(bh::Opening opening, bh::Multipole mp, SofteningKind kind = SofteningKind::plummer) {
  bh::TreeSolverConfig c;
  c.tree.opening = opening;
  c.tree.multipole = mp;
  c.tree.theta = opening == bh::Opening::relative ? 1.0 : 0.6;
  c.tree.tolerance = 0.0055;
  c.tree.leaf_capacity = opening == bh::Opening::relative ? 32 : 16;
  c.softening = 0.05;
  c.softening_kind = kind;
  return c;
}

TEST(TreeTargets, SubsetsGetTheBitsOfTheWholeSet_Geometric) {
  expect_subsets_match<float>(config(bh::Opening::geometric, bh::Multipole::monopole), "float monopole");
  expect_subsets_match<float>(config(bh::Opening::geometric, bh::Multipole::quadrupole), "float quadrupole");
  expect_subsets_match<double>(config(bh::Opening::geometric, bh::Multipole::quadrupole), "double quadrupole");
  expect_subsets_match<float>(config(bh::Opening::geometric, bh::Multipole::monopole, SofteningKind::spline), "spline");
}

TEST(TreeTargets, SubsetsGetTheBitsOfTheWholeSet_Relative) {
  expect_subsets_match<float>(config(bh::Opening::relative, bh::Multipole::monopole), "float monopole");
  expect_subsets_match<float>(config(bh::Opening::relative, bh::Multipole::quadrupole), "float quadrupole");
  expect_subsets_match<double>(config(bh::Opening::relative, bh::Multipole::monopole), "double monopole");
}

TEST(TreeTargets, PointsGetTheScalarWalksBitsAndTheDirectSum) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(kN, 72));
  const auto c = config(bh::Opening::geometric, bh::Multipole::quadrupole);
  TreeSolver<float> solver(c);
  constexpr std::int64_t k = 300;
  std::vector<float> x(k), y(k), z(k);
  Rng rng(73);
  for (std::int64_t j = 0; j < k; ++j) {  // inside and around the sphere, some on sources
    const bool on_source = j % 10 == 0;
    x[j] = on_source ? p.x[j] : float(rng.uniform(-3, 3));
    y[j] = on_source ? p.y[j] : float(rng.uniform(-3, 3));
    z[j] = on_source ? p.z[j] : float(rng.uniform(-3, 3));
  }
  const Result<float> r = solve(solver, p, TargetSet<float>::of_points(k, x.data(), y.data(), z.data()), k);
  const bh::OctreeView<float> t = solver.last_tree().view();
  const PlummerSoftening<float> soft(0.05f);
  std::vector<double> err;
  for (std::int64_t j = 0; j < k; ++j) {
    bh::WalkCounts wc;
    const auto a = bh::walk_target_at<true, bh::Multipole::quadrupole, MathMode::fast>(t, soft, -1, x[j], y[j], z[j], wc);
    EXPECT_TRUE(same_bits(a.ax, r.acc.ax[j]) && same_bits(a.ay, r.acc.ay[j]) && same_bits(a.az, r.acc.az[j]) &&
                same_bits(a.pot, r.acc.potential[j]))
        << "point " << j;
    EXPECT_EQ(r.report.per_target[j], (InteractionCounts{wc.node_visits, wc.cell_interactions, wc.particle_interactions}));
    // A point is no source: it excludes no particle (all N are summed).
    double dx = 0, dy = 0, dz = 0;
    for (std::int64_t i = 0; i < kN; ++i) {
      const double rx = double(p.x[i]) - x[j], ry = double(p.y[i]) - y[j], rz = double(p.z[i]) - z[j];
      const double r2 = rx * rx + ry * ry + rz * rz + 0.05 * 0.05;
      const double f = double(p.mass[i]) / (r2 * std::sqrt(r2));
      dx += f * rx;
      dy += f * ry;
      dz += f * rz;
    }
    const double e = std::hypot(r.acc.ax[j] - dx, r.acc.ay[j] - dy, r.acc.az[j] - dz) / std::hypot(dx, dy, dz);
    err.push_back(e);
  }
  std::sort(err.begin(), err.end());
  EXPECT_LT(err[err.size() / 2], 2e-3) << "median relative error at theta 0.6, quadrupole";
  EXPECT_LT(err.back(), 3e-2);
}

TEST(TreeTargets, BadTargetSetsAndAnOutsideCubeAreRefusedByName) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(1000, 74));
  TreeSolver<float> solver(config(bh::Opening::geometric, bh::Multipole::monopole));
  const auto message = [&](const TargetSet<float>& t, std::int64_t n, const SolveOptions& o = {}) {
    Accelerations<float> a(static_cast<std::size_t>(n));
    try {
      solver.solve(p.sources(), t, a.view(), o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::vector<std::int64_t> twice{3, 5, 3}, outside{2, 1000};
  EXPECT_NE(message(TargetSet<float>::of_sources(3, twice.data()), 3).find("source 3 is listed twice"), std::string::npos);
  EXPECT_NE(message(TargetSet<float>::of_sources(2, outside.data()), 2).find("names source 1000"), std::string::npos);
  EXPECT_NE(message(TargetSet<float>::of_sources(2, outside.data()), 5).find("5 entries for 2 targets"), std::string::npos);
  // The refused sets left the solver's kept buffers as they were: the same
  // sources again are solved, with a fresh solver's bits.
  const std::vector<std::int64_t> again{3, 5, 2};
  EXPECT_EQ(message(TargetSet<float>::of_sources(3, again.data()), 3), "");
  TreeSolver<float> fresh(config(bh::Opening::geometric, bh::Multipole::monopole));
  const auto reused = solve(solver, p, TargetSet<float>::of_sources(3, again.data()), 3);
  const auto first = solve(fresh, p, TargetSet<float>::of_sources(3, again.data()), 3);
  for (int j = 0; j < 3; ++j) EXPECT_TRUE(same_bits(reused.acc.ax[j], first.acc.ax[j])) << j;
  const float nan = std::nanf(""), zero = 0.0f;
  EXPECT_NE(message(TargetSet<float>::of_points(1, &nan, &zero, &zero), 1).find("target point 0"), std::string::npos);
  SolveOptions o;
  o.cube = bh::Cube{-1.0, -1.0, -1.0, 2.0};  // the Plummer sphere reaches beyond it
  const std::string e = message(TargetSet<float>{}, 1000, o);
  EXPECT_NE(e.find("lies outside the tree's cube"), std::string::npos) << e;
  EXPECT_EQ(e.rfind("particle ", 0), 0u) << e;
}

TEST(TreeTargets, ACubeGivenFromOutsideBuildsTheTreeInIt) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(4000, 75));
  TreeSolver<float> solver(config(bh::Opening::geometric, bh::Multipole::monopole));
  SolveOptions o;
  o.cube = bh::Cube{-64.0, -64.0, -64.0, 128.0};
  Accelerations<float> a(4000), b(4000);
  solver.solve(p.sources(), TargetSet<float>{}, a.view(), o);
  EXPECT_EQ(solver.last_tree().cube.side, 128.0);
  EXPECT_EQ(solver.last_tree().cube.x0, -64.0);
  solver.solve(p.sources(), b.view());  // its own cube: another tree, the same field to the tree's accuracy
  double worst = 0;
  for (int i = 0; i < 4000; ++i)
    worst = std::max(worst, double(std::hypot(a.ax[i] - b.ax[i], a.ay[i] - b.ay[i], a.az[i] - b.az[i]) /
                                   std::hypot(b.ax[i], b.ay[i], b.az[i])));
  EXPECT_LT(worst, 0.05);
}

}  // namespace
}  // namespace orrery::gravity
