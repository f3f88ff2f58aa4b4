#include "orrery/tree/tree_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "orrery/core/error.hpp"

#include "orrery/gravity/solver_factory.hpp"
#include "orrery/tree/test_inputs.hpp"

namespace orrery::tree {
namespace {

// Brute-force double-precision sum, the yardstick within this test.
void brute_force(const Particles<float>& p, double eps, std::vector<double>& ax) {
  const auto n = p.size();
  ax.assign(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double dx = double(p.x[j]) - p.x[i], dy = double(p.y[j]) - p.y[i], dz = double(p.z[j]) - p.z[i];
      const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
      ax[i] += p.mass[j] * dx / (r2 * std::sqrt(r2));
    }
}

TEST(TreeSolver, ThetaZeroIsDirectSummation) {
  const auto p = testing::uniform_cube(700, 5);
  TreeSolverConfig c;
  c.tree.theta = 0.0;
  c.softening = 0.01;
  TreeSolver<float> s(c);
  Accelerations<float> out(p.size());
  const auto rep = s.solve(p.sources(), out.view(), {.potential = true, .per_target_counts = true});
  for (const auto& pt : rep.per_target) {
    EXPECT_EQ(pt.particle_interactions, 699u);
    EXPECT_EQ(pt.cell_interactions, 0u);
  }
  std::vector<double> ref;
  brute_force(p, 0.01, ref);
  for (std::int64_t i = 0; i < p.size(); ++i) EXPECT_NEAR(out.ax[i], ref[i], 1e-4 * (std::abs(ref[i]) + 1)) << i;
}

TEST(TreeSolver, FiniteOnDegenerateInputs) {
  for (const auto& in : testing::structured_inputs()) {
    for (auto mp : {Multipole::monopole, Multipole::quadrupole}) {
      TreeSolverConfig c;
      c.tree.multipole = mp;
      TreeSolver<float> s(c);
      Accelerations<float> out(in.particles.size());
      s.solve(in.particles.sources(), out.view());
      for (std::int64_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out.ax[i]) && std::isfinite(out.ay[i]) && std::isfinite(out.az[i]) &&
                    std::isfinite(out.potential[i]))
            << in.name << " " << i;
      }
    }
  }
}

TEST(TreeSolver, QuadrupoleIsMoreAccurateThanMonopole) {
  const auto p = testing::uniform_cube(3000, 9);
  std::vector<double> ref;
  brute_force(p, 0.01, ref);
  double err[2] = {0, 0};
  int k = 0;
  for (auto mp : {Multipole::monopole, Multipole::quadrupole}) {
    TreeSolverConfig c;
    c.tree.multipole = mp;
    c.tree.theta = 0.6;
    c.softening = 0.01;
    TreeSolver<float> s(c);
    Accelerations<float> out(p.size());
    s.solve(p.sources(), out.view());
    for (std::int64_t i = 0; i < p.size(); ++i) err[k] += std::pow(out.ax[i] - ref[i], 2);
    ++k;
  }
  EXPECT_LT(err[1], 0.5 * err[0]);
}

TEST(TreeSolver, MadeByTheFactoryFromTheGravityConfig) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.theta = 0.7;
  g.leaf_capacity = 4;
  g.multipole_order = 2;
  g.softening = 0.02;
  g.math = MathMode::exact;
  const auto c = tree_solver_config(g);
  EXPECT_EQ(c.tree.theta, 0.7);
  EXPECT_EQ(c.tree.leaf_capacity, 4);
  EXPECT_EQ(c.tree.multipole, Multipole::quadrupole);
  EXPECT_EQ(c.softening, 0.02);
  EXPECT_EQ(c.math, MathMode::exact);
  const auto solver = gravity::make_solver<float>(g);
  EXPECT_EQ(solver->name(), "tree/cpu/quadrupole");
  const auto p = testing::uniform_cube(500, 4);
  Accelerations<float> out(p.size());
  const auto rep = solver->solve(p.sources(), out.view());
  EXPECT_GT(rep.total.cell_interactions, 0u);
  g.theta = -1;
  EXPECT_THROW(gravity::make_solver<float>(g)->solve(p.sources(), out.view()), InputError);
}

}  // namespace
}  // namespace orrery::tree
