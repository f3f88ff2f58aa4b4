// A softening per particle type (docs/softening.md): a two-type system
// against a brute-force double sum with GADGET-4's rule (a pair takes the
// larger softening), on every CPU solver; a tree cell's class is the one of
// its largest softening; a softening per type that gives every pair one
// softening equals the scalar softening bit for bit (so the per-type paths
// sum the same terms as the one-softening ones); and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk_per_type.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "support/test_particles.hpp"

namespace orrery::gravity {
namespace {

// A halo of 600 PartType1 particles with eps 0.02 and a disc-like clump of
// 200 PartType2 particles with eps 0.15 inside it: many pairs of each kind.
constexpr std::int64_t kHalo = 600, kDisc = 200, kN = kHalo + kDisc;

SofteningClasses two_types() {
  SofteningClasses c;
  c.eps = {0.5, 0.02, 0.15, 0.5, 0.5, 0.5};  // types 0, 3-5 hold no particle: their eps must not matter
  c.count = {0, kHalo, kDisc, 0, 0, 0};
  return c;
}

template <class Real>
Particles<Real> two_type_particles() {
  Particles<Real> p = testing::plummer<Real>(kN, 7);
  // The disc: flattened and offset, so that its particles meet the halo's at every distance.
  for (std::int64_t i = kHalo; i < kN; ++i) {
    p.z[i] = Real(0.1) * p.z[i];
    p.x[i] = p.x[i] + Real(0.2);
  }
  return p;
}

/// The brute-force field in double: Plummer softening with max(eps_i, eps_j) for each pair.
Accelerations<double> brute_force(const Particles<double>& p, const SofteningClasses& c) {
  const auto cls = c.of_sources(p.size(), "test");
  Accelerations<double> a(static_cast<std::size_t>(p.size()));
  for (std::int64_t i = 0; i < p.size(); ++i) {
    double ax = 0, ay = 0, az = 0, phi = 0;
    for (std::int64_t j = 0; j < p.size(); ++j) {
      if (j == i) continue;
      const double eps = std::max(c.eps[cls[i]], c.eps[cls[j]]);
      const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
      const double s = std::sqrt(dx * dx + dy * dy + dz * dz + eps * eps);
      ax += p.mass[j] * dx / (s * s * s);
      ay += p.mass[j] * dy / (s * s * s);
      az += p.mass[j] * dz / (s * s * s);
      phi -= p.mass[j] / s;
    }
    a.ax[i] = ax, a.ay[i] = ay, a.az[i] = az, a.potential[i] = phi;
  }
  return a;
}

template <class Real>
Accelerations<Real> solve(ForceSolver<Real>& solver, const Particles<Real>& p, const SolveOptions& o = {}) {
  Accelerations<Real> a(static_cast<std::size_t>(p.size()));
  solver.solve(p.sources(), a.view(), o);
  return a;
}

template <class Real>
double worst_potential_error(const Accelerations<Real>& a, const Accelerations<double>& ref) {
  double worst = 0;
  for (std::int64_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a.potential[i] - ref.potential[i]) / std::abs(ref.potential[i]));
  return worst;
}

bh::TreeSolverConfig tree_config(double theta, const SofteningClasses& c, bh::Multipole m = bh::Multipole::monopole) {
  bh::TreeSolverConfig t;
  t.tree.theta = theta;
  t.tree.multipole = m;
  t.softening = c.eps[1];
  t.per_type = c;
  return t;
}

TEST(PerTypeSoftening, TwoTypesMatchTheBruteForceMaxRule) {
  const SofteningClasses c = two_types();
  const auto pd = two_type_particles<double>();
  const auto pf = ic::to_precision<float>(pd);
  const Accelerations<double> ref = brute_force(pd, c);
  // The rule matters: a single softening (either type's) is far from it.
  for (const double eps : {c.eps[1], c.eps[2]}) {
    ReferenceSolver<double> one(SofteningKind::plummer, eps);
    EXPECT_GT(testing::acceleration_errors(solve(one, pd), ref).max, 1e-2) << eps;
  }
  ReferenceSolver<double> reference(SofteningKind::plummer, c.eps[1], c);
  const auto r = solve(reference, pd);
  EXPECT_LT(testing::acceleration_errors(r, ref).max, 1e-13);
  EXPECT_LT(worst_potential_error(r, ref), 1e-13);
  DirectSolver<double, PlummerSoftening<double>> direct_d(c.eps[1], c);
  const auto dd = solve(direct_d, pd);
  EXPECT_LT(testing::acceleration_errors(dd, ref).max, 1e-12);
  EXPECT_LT(worst_potential_error(dd, ref), 1e-12);
  DirectSolver<float, PlummerSoftening<float>> direct_f(float(c.eps[1]), c);
  EXPECT_LT(testing::acceleration_errors(solve(direct_f, pf), ref).max, 2e-5);
  // theta = 0 opens every cell: the tree sums every pair, as the direct sum does.
  TreeSolver<double> all_pairs(tree_config(0.0, c));
  const auto td = solve(all_pairs, pd);
  EXPECT_LT(testing::acceleration_errors(td, ref).max, 1e-12);
  EXPECT_LT(worst_potential_error(td, ref), 1e-12);
  // An approximating tree softens a cell with its largest softening (GADGET-4's rule, checked
  // exactly below): where the disc's cells meet halo targets that is larger than the pairs',
  // an error of the rule (docs/softening.md), bounded here.
  for (const auto m : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    TreeSolver<float> tree(tree_config(0.5, c, m));
    const auto e = testing::acceleration_errors(solve(tree, pf), ref);
    EXPECT_LT(e.rms, 2e-2) << to_string(m);
    EXPECT_LT(e.max, 6e-2) << to_string(m);
  }
}

// A target (PartType1, eps 0.02) and, at distance d, a cell of two particles: PartType1 and
// PartType2 (eps 1). Far (d = 5 > 1) the cell is used with the larger softening, 1; near (d = 0.5 < 1)
// GADGET-4 opens it, since its particles' softenings differ, and each particle takes its pair's.
TEST(PerTypeSoftening, ACellIsSoftenedWithItsLargestSofteningOrOpenedWithinIt) {
  SofteningClasses c;
  c.eps = {0.5, 0.02, 1.0, 0.5, 0.5, 0.5};
  c.count = {0, 2, 1, 0, 0, 0};
  for (const double d : {5.0, 0.5}) {
    Particles<double> p(3);
    const double y[3] = {0.0, 0.0, 0.01}, x[3] = {0.0, d, d};
    for (int k = 0; k < 3; ++k) p.x[k] = x[k], p.y[k] = y[k], p.z[k] = 0, p.mass[k] = 1.0 / 3;
    bh::TreeSolverConfig t = tree_config(0.5, c);
    t.tree.leaf_capacity = 1;
    TreeSolver<double> tree(t);
    SolveOptions o;
    o.per_target_counts = true;
    Accelerations<double> a(3);
    const auto report = tree.solve(p.sources(), a.view(), o);
    const auto plummer = [](double m, double dx, double dy, double eps) {
      return m * dx / std::pow(dx * dx + dy * dy + eps * eps, 1.5);
    };
    if (d > 1.0) {
      EXPECT_EQ(report.per_target[0].cell_interactions, 1u);
      EXPECT_EQ(report.per_target[0].particle_interactions, 0u);
      EXPECT_NEAR(a.ax[0], plummer(2.0 / 3, d, 0.005, 1.0), 1e-14);
    } else {
      // The two one-particle cells below it are used, each with its own particle's softening.
      EXPECT_EQ(report.per_target[0].cell_interactions + report.per_target[0].particle_interactions, 2u);
      const double pairs = plummer(1.0 / 3, d, 0.0, 0.02) + plummer(1.0 / 3, d, 0.01, 1.0);
      EXPECT_NEAR(a.ax[0], pairs, 1e-14);
      EXPECT_GT(std::abs(pairs - plummer(2.0 / 3, d, 0.005, 1.0)), 0.5);  // what the cell would give
      // Without the opening the cell would be used: the geometric criterion alone accepts it.
      bh::TreeSolverConfig one = t;
      one.per_type.reset();
      TreeSolver<double> plain(one);
      EXPECT_EQ(plain.solve(p.sources(), a.view(), o).per_target[0].cell_interactions, 1u);
    }
  }
}

TEST(PerTypeSoftening, SplineKernelTakesTheLargerSofteningToo) {
  const SofteningClasses c = two_types();
  const auto p = two_type_particles<double>();
  const auto cls = c.of_sources(kN, "test");
  Accelerations<double> ref(kN);
  for (std::int64_t i = 0; i < kN; ++i) {
    double ax = 0;
    for (std::int64_t j = 0; j < kN; ++j) {
      if (j == i) continue;
      const SplineSoftening<double> pair(std::max(c.eps[cls[i]], c.eps[cls[j]]));
      const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
      ax += p.mass[j] * pair.factors<MathMode::exact>(dx * dx + dy * dy + dz * dz).f * dx;
    }
    ref.ax[i] = ax;
  }
  DirectSolver<double, SplineSoftening<double>> direct(c.eps[1], c);
  bh::TreeSolverConfig t = tree_config(0.0, c);
  t.softening_kind = SofteningKind::spline;
  TreeSolver<double> tree(t);
  const auto d = solve(direct, p);
  const auto e = solve(tree, p);
  for (std::int64_t i = 0; i < kN; ++i) {
    EXPECT_NEAR(d.ax[i], ref.ax[i], 1e-11 * (1 + std::abs(ref.ax[i]))) << i;
    EXPECT_NEAR(e.ax[i], ref.ax[i], 1e-11 * (1 + std::abs(ref.ax[i]))) << i;
  }
}

TEST(PerTypeSoftening, ACellTakesTheClassOfItsLargestSoftening) {
  const SofteningClasses c = two_types();
  auto p = two_type_particles<float>();
  bh::TreeParams params;
  params.leaf_capacity = 4;
  const auto tree = bh::build_octree(p.sources(), params);
  const auto cls = c.of_sources(kN, "test");
  std::vector<std::uint8_t> sorted(kN);
  for (std::int64_t k = 0; k < kN; ++k) sorted[k] = cls[tree.order[k]];
  const auto t = tree.view();
  const auto nodes = bh::node_softenings(t, c, sorted.data());
  const auto& node = nodes.largest;
  int mixed = 0;
  for (std::int32_t n = 0; n < t.num_nodes; ++n) {
    double largest = 0;
    bool any[kSofteningClasses] = {};
    for (std::int32_t j = t.first[n]; j < t.first[n] + t.count[n]; ++j) {
      largest = std::max(largest, c.eps[sorted[j]]);
      any[sorted[j]] = true;
    }
    ASSERT_EQ(c.eps[node[n]], largest) << "node " << n;
    ASSERT_TRUE(any[node[n]]) << "node " << n << ": a class none of its particles has";
    const bool both = any[1] && any[2];
    ASSERT_EQ(nodes.mixed_eps2[n], both ? float(c.eps[2]) * float(c.eps[2]) : 0.0f) << "node " << n;
    mixed += both;
  }
  EXPECT_GT(mixed, 10);  // the test sees cells of both types
}

template <class Real>
bool same_bits(const Accelerations<Real>& a, const Accelerations<Real>& b) {
  const auto same = [](const std::vector<Real>& u, const std::vector<Real>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(Real)) == 0;
  };
  return same(a.ax, b.ax) && same(a.ay, b.ay) && same(a.az, b.az) && same(a.potential, b.potential);
}

// Every particle PartType1 (eps 0.03) and the other types' eps different:
// the solvers take the per-type path, and every pair has eps 0.03.
SofteningClasses one_populated_type(std::int64_t n) {
  SofteningClasses c;
  c.eps = {0.3, 0.03, 0.2, 0.1, 0.4, 0.5};
  c.count = {0, static_cast<std::uint64_t>(n), 0, 0, 0, 0};
  return c;
}

template <class Real>
class PerTypeEqualsScalar : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PerTypeEqualsScalar, Reals);

TYPED_TEST(PerTypeEqualsScalar, DirectAndReference) {
  using Real = TypeParam;
  const auto p = testing::plummer<Real>(1000, 3);
  const SofteningClasses c = one_populated_type(p.size());
  ReferenceSolver<Real> ref_one(SofteningKind::plummer, 0.03), ref_typed(SofteningKind::plummer, 0.03, c);
  EXPECT_TRUE(same_bits(solve(ref_one, p), solve(ref_typed, p)));
  DirectSolver<Real, PlummerSoftening<Real>> plummer_one(Real(0.03)), plummer_typed(Real(0.03), c);
  EXPECT_TRUE(same_bits(solve(plummer_one, p), solve(plummer_typed, p)));
  DirectSolver<Real, SplineSoftening<Real>> spline_one(Real(0.03)), spline_typed(Real(0.03), c);
  EXPECT_TRUE(same_bits(solve(spline_one, p), solve(spline_typed, p)));
  // A subset of targets and points: the same bits as the one-softening solver's.
  const std::vector<std::int64_t> some = {999, 0, 17, 500};
  const std::vector<Real> px = {0.1f, 3.0f}, py = {0.2f, -1.0f}, pz = {0.0f, 0.5f};
  for (const auto& set : {TargetSet<Real>::of_sources(4, some.data()), TargetSet<Real>::of_points(2, px.data(), py.data(), pz.data())}) {
    Accelerations<Real> a(static_cast<std::size_t>(set.count)), b(static_cast<std::size_t>(set.count));
    plummer_one.solve(p.sources(), set, a.view());
    plummer_typed.solve(p.sources(), set, b.view());
    EXPECT_TRUE(same_bits(a, b));
  }
}

TYPED_TEST(PerTypeEqualsScalar, Tree) {
  using Real = TypeParam;
  const auto p = testing::plummer<Real>(3000, 5);
  const SofteningClasses c = one_populated_type(p.size());
  for (const auto kind : {SofteningKind::plummer, SofteningKind::spline})
    for (const auto m : {bh::Multipole::monopole, bh::Multipole::quadrupole})
      for (const auto opening : {bh::Opening::geometric, bh::Opening::relative})
        for (const auto math : {MathMode::fast, MathMode::exact}) {
          bh::TreeSolverConfig one;
          one.tree.multipole = m;
          one.tree.opening = opening;
          one.tree.theta = opening == bh::Opening::relative ? 1.0 : 0.6;
          one.softening = 0.03;
          one.softening_kind = kind;
          one.math = math;
          bh::TreeSolverConfig typed = one;
          typed.per_type = c;
          TreeSolver<Real> a(one), b(typed);
          SolveOptions o;
          o.per_target_counts = true;
          Accelerations<Real> ra(static_cast<std::size_t>(p.size())), rb(static_cast<std::size_t>(p.size()));
          const auto report_a = a.solve(p.sources(), ra.view(), o);
          const auto report_b = b.solve(p.sources(), rb.view(), o);
          const std::string what = std::string(to_string(kind)) + " " + std::string(to_string(m)) + " " +
                                   (opening == bh::Opening::relative ? "relative" : "geometric") + " " +
                                   std::string(to_string(math));
          EXPECT_TRUE(same_bits(ra, rb)) << what;
          EXPECT_EQ(report_a.per_target, report_b.per_target) << what;
          if (opening == bh::Opening::relative) {  // the steady state: previous accelerations given
            o.previous_accelerations = true;
            a.solve(p.sources(), ra.view(), o);
            b.solve(p.sources(), rb.view(), o);
            EXPECT_TRUE(same_bits(ra, rb)) << what << " (steady state)";
          }
        }
}

TEST(PerTypeSoftening, SubsetTargetsAndPointsKeepTheirBits) {
  const SofteningClasses c = two_types();
  const auto p = two_type_particles<float>();
  TreeSolver<float> tree(tree_config(0.5, c));
  DirectSolver<float, PlummerSoftening<float>> direct(float(c.eps[1]), c);
  ReferenceSolver<float> reference(SofteningKind::plummer, c.eps[1], c);
  const std::vector<std::int64_t> some = {kN - 1, 0, kHalo, kHalo - 1, 42};
  for (ForceSolver<float>* s : {static_cast<ForceSolver<float>*>(&tree), static_cast<ForceSolver<float>*>(&direct),
                                static_cast<ForceSolver<float>*>(&reference)}) {
    const auto all = solve(*s, p);
    Accelerations<float> part(some.size());
    s->solve(p.sources(), TargetSet<float>::of_sources(5, some.data()), part.view());
    for (std::size_t k = 0; k < some.size(); ++k) {
      EXPECT_EQ(part.ax[k], all.ax[some[k]]) << s->name() << " target " << some[k];
      EXPECT_EQ(part.potential[k], all.potential[some[k]]) << s->name() << " target " << some[k];
    }
  }
  // A point has no softening of its own: its pairs take the source's.
  const std::vector<float> px = {0.05f}, py = {0.0f}, pz = {0.01f};
  Accelerations<float> at(1);
  direct.solve(p.sources(), TargetSet<float>::of_points(1, px.data(), py.data(), pz.data()), at.view());
  const auto cls = c.of_sources(kN, "test");
  double ax = 0;
  for (std::int64_t j = 0; j < kN; ++j) {
    const double eps = c.eps[cls[j]], dx = double(p.x[j]) - px[0], dy = double(p.y[j]) - py[0], dz = double(p.z[j]) - pz[0];
    ax += p.mass[j] * dx / std::pow(dx * dx + dy * dy + dz * dz + eps * eps, 1.5);
  }
  EXPECT_NEAR(at.ax[0], ax, 1e-4 * std::abs(ax));
  Accelerations<float> ref_at(1);
  reference.solve(p.sources(), TargetSet<float>::of_points(1, px.data(), py.data(), pz.data()), ref_at.view());
  EXPECT_NEAR(ref_at.ax[0], ax, 1e-6 * std::abs(ax));
}

TEST(PerTypeSoftening, TypeCountsMustAddUpToTheSources) {
  SofteningClasses c = two_types();
  const auto p = testing::plummer<float>(kN - 1, 1);
  DirectSolver<float, PlummerSoftening<float>> direct(0.02f, c);
  Accelerations<float> a(static_cast<std::size_t>(p.size()));
  try {
    direct.solve(p.sources(), a.view());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the softening per type was given for 800 particles (the type counts), not "
                                         "for the 799 sources"),
              std::string::npos)
        << e.what();
  }
  // No counts: every particle is PartType1.
  c.count = {};
  TreeSolver<float> tree(tree_config(0.5, c));
  EXPECT_NO_THROW(solve(tree, p));
}

TEST(PerTypeSoftening, NegativeSofteningOfATypeIsRefusedNamingIt) {
  SofteningClasses c = two_types();
  c.eps[2] = -0.1;
  try {
    DirectSolver<float, PlummerSoftening<float>> direct(0.02f, c);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "gravity.softening_per_type.PartType2 = -0.1 is not accepted; accepted: a number >= 0");
  }
  EXPECT_THROW(TreeSolver<float>{tree_config(0.5, c)}, InputError);
  EXPECT_THROW((ReferenceSolver<float>{SofteningKind::plummer, 0.02, c}), InputError);
}

TEST(PerTypeSoftening, TheFactoryGivesItToTheCpuSolversAndRefusesTheOthers) {
  GravityConfig g;
  g.softening = 0.02;
  g.softening_per_type[2] = 0.15;
  g.type_counts = {0, kHalo, kDisc, 0, 0, 0};
  const auto p = two_type_particles<double>();
  const Accelerations<double> ref = brute_force(p, g.softening_classes());
  for (const char* solver : {"reference", "direct", "tree"}) {
    g.solver = solver;
    g.theta = 0.0;
    g.precision = Precision::double_;
    for (const char* backend : {"cpu", "auto"}) {
      g.backend = backend;
      auto s = make_solver<double>(g);
      EXPECT_LT(testing::acceleration_errors(solve(*s, p), ref).max, 1e-12) << solver << "/" << backend;
    }
    g.backend = "cuda";
    try {
      make_solver<double>(g);
      FAIL() << solver << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("gravity.softening_per_type: solver ") + solver +
                                           "/cuda computes one softening for every particle, not a softening per "
                                           "type; accepted: the solvers reference/cpu, direct/cpu, tree/cpu "
                                           "(gravity.backend = \"cpu\" or \"auto\"), or one softening for every type");
    }
    EXPECT_THROW(make_device_solver<double>(g), InputError);
  }
  // One softening for every type, set per type: every solver, the one-softening path.
  g.softening_per_type = {0.02, 0.02, 0.02, 0.02, 0.02, 0.02};
  EXPECT_FALSE(g.per_type_softening());
}

}  // namespace
}  // namespace orrery::gravity
